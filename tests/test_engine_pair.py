"""The official engine's (functions, inputs) pair (`kopl-engine`): branch-stack dependencies."""

from __future__ import annotations

import json

import pytest

from conftest import FIXTURES
from koplc.kopl import engine_pair, kqapro_json
from koplc.kopl.errors import ParseError
from koplc.kopl.ir import And, Count, Find, FindAll, QueryName


def test_conformance_programs_give_the_same_tree_without_dependencies():
    cases = json.loads((FIXTURES / "conformance" / "kopl_engine_cases.json").read_text())["cases"]
    for case in cases:
        steps = case["program"]
        explicit = kqapro_json.parse(json.dumps(steps)).program
        functions = [s["function"] for s in steps]
        inputs = [s["inputs"] for s in steps]
        as_object = json.dumps({"functions": functions, "inputs": inputs})
        as_array = json.dumps([functions, inputs])
        assert engine_pair.parse(as_object).program == explicit, case["name"]
        assert engine_pair.parse(as_array).program == explicit, case["name"]


def test_two_element_array_form():
    text = '[["FindAll", "Find", "And", "What"], [[], ["X"], [], []]]'
    assert engine_pair.parse(text).program == QueryName(input=And(left=FindAll(),
                                                                  right=Find(name="X")))
    assert engine_pair.print_program(Count(input=FindAll())) == (
        '{"functions": ["FindAll", "Count"], "inputs": [[], []]}')


def test_spans_point_at_function_names_and_inputs():
    text = '{"functions": ["Find", "Count"],\n "inputs": [["X"], []]}'
    parsed = engine_pair.parse(text)
    assert text[parsed.source_map.node(()).start:parsed.source_map.node(()).end] == '"Count"'
    span = parsed.source_map.arg((0,), "name")
    assert (span.line, span.column, text[span.start:span.end]) == (2, 14, '"X"')


def error_of(text: str) -> ParseError:
    with pytest.raises(ParseError) as err:
        engine_pair.parse(text)
    assert err.value.source == text
    return err.value


@pytest.mark.parametrize(("text", "code", "line", "column"), [
    ('{"functions": ["Find", "Count"],\n "inputs": [["X"]]}', "length-mismatch", 2, 12),
    ('[["Find"], [["X"], []]]', "length-mismatch", 1, 12),
    ('{"functions": ["Find", "Count"], "inputs": [["X"], []]', "unbalanced-brackets", 1, 1),
    ('{"functions": ["Find", "Count"]}', "missing-key", 1, 1),
    ('{"functions": ["Find", "Count"], "inputs": [["X"], []], "x": 1}', "unknown-key", 1, 57),
    ('{"functions": "Find", "inputs": [["X"]]}', "wrong-type", 1, 15),
    ('{"functions": ["Find"], "inputs": ["X"]}', "wrong-type", 1, 36),
    ('[["Find"], [["X"]], []]', "wrong-type", 1, 1),
    ('{"functions": ["Find", "Cont"], "inputs": [["X"], []]}', "unknown-function", 1, 24),
    ('{"functions": ["Find", "Count"], "inputs": [["X"], ["Y"]]}', "arity", 1, 24),
    ('{"functions": ["Find", "And"], "inputs": [["X"], []]}', "missing-input", 1, 24),
    ('{"functions": ["Find", "Find", "Count"], "inputs": [["X"], ["Y"], []]}',
     "unused-step", 1, 16),
    ('{"functions": [], "inputs": []}', "empty-program", 1, 1),
    ('{"functions": ["Find"], "inputs": [["X"]],}', "syntax", 1, 43),
])
def test_errors_have_codes_and_positions(text, code, line, column):
    diagnostic = error_of(text).diagnostics[0]
    assert (diagnostic.code, diagnostic.span.line, diagnostic.span.column) == (code, line, column)


def test_length_mismatch_message():
    message = str(error_of('[["Find", "Count"], [["X"]]]'))
    assert "2 functions but 1 input list" in message


def test_looks_like():
    assert engine_pair.looks_like('{"functions": ["FindAll"], "inputs": [[]]}')
    assert engine_pair.looks_like(' [["FindAll"], [[]]]')
    assert not engine_pair.looks_like('[{"function": "FindAll", "dependencies": [], "inputs": []}]')
    assert not engine_pair.looks_like("Count(FindAll())")
