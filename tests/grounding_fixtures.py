"""Session fixtures for the grounding tests: a small geography KB and its name indexes.

The indexes are built once per session with the real MiniLM model (offline) into a temporary
folder; the KB fixture (tests/fixtures/grounding/geo_kb.json) is read without writing a cache.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from koplc.kopl.grounding.context import GroundingContext, GroundingOptions
from koplc.kopl.grounding.index.kb_indexes import Indexes
from koplc.kopl.kb.cache import load_kb
from koplc.kopl.syntax.steps import parse

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "grounding"
GEO_KB = FIXTURES / "geo_kb.json"
os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="session", name="geo")
def geo_fixture(tmp_path_factory):
    """(kb, indexes) of the geography KB; the indexes are built once per session."""
    kb = load_kb(GEO_KB, cache=False)
    indexes = Indexes.for_kb(kb, folder=tmp_path_factory.mktemp("geo-index"))
    indexes.build_all()
    return kb, indexes


def context(geo, question: str | None = None, **options) -> GroundingContext:
    """A grounding context on the geography KB."""
    kb, indexes = geo
    return GroundingContext(kb, indexes, question, options=GroundingOptions(**options))


def program(text: str):
    """The IR of a steps program."""
    return parse(text).program


def read_cases(name: str) -> list[dict]:
    """The records of a JSONL fixture file under tests/fixtures/grounding."""
    lines = (FIXTURES / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]
