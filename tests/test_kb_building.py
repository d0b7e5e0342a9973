"""The collector pause that building many objects runs under."""

from __future__ import annotations

import gc

import pytest

from koplc.kopl.kb.building import collector_paused


def test_the_collector_runs_again_after_the_block_even_when_it_raises():
    assert gc.isenabled()
    with pytest.raises(ValueError), collector_paused():
        assert not gc.isenabled()
        raise ValueError("bad row")
    assert gc.isenabled()


def test_an_inner_pause_leaves_the_outer_one_in_force():
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
