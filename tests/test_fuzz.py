"""Random text and mutated corpus programs never make a parser raise anything but KoplcError."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from budget import examples
from conftest import FIXTURES, read_jsonl
from koplc import api
from koplc.kopl.errors import KoplcError
from strategies import mutated

FUZZ = settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
SEEDS = [r["program_text"] for r in read_jsonl(FIXTURES / "corpus" / "kopl_steps_symkgqa.jsonl")]
SEEDS += [r["program_text"] for r in read_jsonl(FIXTURES / "corpus" / "kopl_functional_docs.jsonl")]
SEEDS += [r["s_expression"] for r in read_jsonl(FIXTURES / "corpus" / "sexpr_grailqa.jsonl")]
SEEDS += [
    '[{"function": "Find", "dependencies": [], "inputs": ["X"]}, '
    '{"function": "Count", "dependencies": [0], "inputs": []}]',
    '{"functions": ["Find", "Relate", "What"], "inputs": [["X"], ["r", "forward"], []]}',
    "Find <arg> Ireland <func> Relate <arg> capital <arg> forward <func> What",
    '{"op": "Count", "input": {"op": "Find", "name": "X"}}',
]
TOKENS = ["(", ")", '"', "'", ",", "\\", "\n", "Step 1:", "Done", "<arg>", "<func>", "[", "]",
          "{", "}", ":", "^^", "JOIN", "AND", "R", "m.0", "Find(", "engine.", "\x00", "é", " "]


def _parse_everywhere(text: str) -> None:
    for syntax in ["auto", *api.SYNTAXES]:
        try:
            parsed = api.parse(text, syntax)
        except KoplcError:
            continue
        api.check(text, syntax)
        for target in api.SYNTAXES:
            try:
                api.print_program(parsed.program, target)
            except KoplcError:
                pass


@FUZZ
@given(st.text(max_size=60))
def test_random_text(text):
    _parse_everywhere(text)


@FUZZ
@given(mutated(SEEDS, TOKENS, max_edits=4))
def test_mutated_corpus_programs(text):
    _parse_everywhere(text)


@pytest.mark.parametrize("depth", [200, 5000])
def test_deep_nesting_is_an_error_not_a_crash(depth):
    _parse_everywhere("Count(" * depth + "FindAll()" + ")" * depth)
    _parse_everywhere("(COUNT " * depth + "m.01" + ")" * depth)
    _parse_everywhere('{"op": "Count", "input": ' * depth + '{"op": "FindAll"}' + "}" * depth)
