"""Every real logical form in tests/fixtures/corpus parses, unless listed with its reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import FIXTURES, read_jsonl
from koplc import api
from koplc.kopl.errors import ParseError

CORPORA = {
    "kopl_steps_symkgqa.jsonl": ("kopl-steps", "program_text"),
    "kopl_functional_docs.jsonl": ("kopl-nested", "program_text"),
    "sexpr_grailqa.jsonl": ("sexpr", "s_expression"),
}
UNPARSEABLE = {r["id"]: r for r in (json.loads(line) for line in (
    Path(__file__).parent / "fixtures" / "unparseable.jsonl").read_text().splitlines() if line)}


def _records():
    for name, (syntax, field) in CORPORA.items():
        for record in read_jsonl(FIXTURES / "corpus" / name):
            yield pytest.param(syntax, record[field], record["id"], id=record["id"])


@pytest.mark.parametrize(("syntax", "text", "record_id"), list(_records()))
def test_corpus_program_parses(syntax, text, record_id):
    if record_id in UNPARSEABLE:
        with pytest.raises(ParseError) as err:
            api.parse(text, syntax)
        assert err.value.diagnostics[0].code == UNPARSEABLE[record_id]["code"]
        return
    parsed = api.parse(text, syntax)
    assert api.detect_syntax(text) == syntax
    again = api.parse(api.print_program(parsed.program, syntax), syntax)
    assert again.program == parsed.program


def test_corpus_sizes():
    counts = {name: len(read_jsonl(FIXTURES / "corpus" / name)) for name in CORPORA}
    assert counts == {"kopl_steps_symkgqa.jsonl": 50, "kopl_functional_docs.jsonl": 13,
                      "sexpr_grailqa.jsonl": 15}
    assert not UNPARSEABLE, "every corpus program parses; keep this list empty or explain"
