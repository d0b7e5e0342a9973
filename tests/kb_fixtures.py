"""Session fixtures for KBs: each shared KB is loaded once (through the binary cache)."""

from __future__ import annotations

import pytest

from conftest import SHARED
from koplc.kopl.kb import KB
from koplc.kopl.kb_cache import load_kb

EXAMPLE_KB = "data/kopl/example_kb.json"
EXAMPLE_KB_EXT = "data/kopl/example_kb_ext.json"
METAQA_KB = "data/metaqa/kopl_kb.json"


@pytest.fixture(scope="session", name="kb_for")
def kb_for_fixture():
    """kb_for("data/metaqa/kopl_kb.json") -> that shared KB, loaded once per session."""
    kbs: dict[str, KB] = {}

    def get(relative: str) -> KB:
        if relative not in kbs:
            kbs[relative] = load_kb(SHARED / relative)
        return kbs[relative]

    return get
