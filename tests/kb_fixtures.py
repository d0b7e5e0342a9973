"""The test KBs by name, each loaded once per session (through the binary cache).

Names are paths in the team's data folder, as the conformance cases name the example KBs, but
nothing is read from there: the example KBs are tests/fixtures/kopl/*.json, and the MetaQA KB
is the copy of its kb.txt shipped in the package (the KB of MetaQA's kopl_kb.json:
tests/test_kb_triples.py), as are MetaQA's verified dev questions.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import FIXTURES
from koplc.kopl.datasets.metaqa import KB_SCHEMA
from koplc.kopl.kb.cache import load_kb
from koplc.kopl.kb.model import KB

EXAMPLE_KB = "data/kopl/example_kb.json"
EXAMPLE_KB_EXT = "data/kopl/example_kb_ext.json"
METAQA_KB = "data/metaqa/kb.txt"


def kb_path(name: str) -> Path:
    """The file of a test KB: METAQA_KB, or an example KB as the conformance cases name it."""
    if name == METAQA_KB:
        from koplc.llm.lm.defaults import default_kb_path

        return default_kb_path()
    return FIXTURES / "kopl" / Path(name).name


def metaqa_dev(hop: int) -> Path:
    """MetaQA's verified dev questions of `hop` hops, as shipped in the package."""
    from koplc.llm.lm.defaults import default_dev_folder

    return default_dev_folder() / f"qa_{hop}hop_dev.tsv"


@pytest.fixture(scope="session", name="kb_for")
def kb_for_fixture():
    """kb_for(METAQA_KB) -> that KB, loaded once per session."""
    kbs: dict[str, KB] = {}

    def get(name: str) -> KB:
        if name not in kbs:
            kbs[name] = load_kb(kb_path(name), schema=KB_SCHEMA if name == METAQA_KB else None)
        return kbs[name]

    return get
