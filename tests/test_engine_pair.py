"""The official engine's (functions, inputs) pair (`kopl-engine`): branch-stack dependencies."""

from __future__ import annotations

import json

from conftest import FIXTURES
from koplc.kopl.ir import And, Count, Find, FindAll, QueryName
from koplc.kopl.syntax import engine_pair, kqapro_json


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


def test_looks_like():
    assert engine_pair.looks_like('{"functions": ["FindAll"], "inputs": [[]]}')
    assert engine_pair.looks_like(' [["FindAll"], [[]]]')
    assert not engine_pair.looks_like('[{"function": "FindAll", "dependencies": [], "inputs": []}]')
    assert not engine_pair.looks_like("Count(FindAll())")
