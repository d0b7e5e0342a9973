"""KQA Pro program lists (`kqapro-json`): identity corpus, the conformance programs, errors."""

from __future__ import annotations

import json

from conftest import FIXTURES
from koplc.kopl.ir import Count, Find, FindAll, QueryName, VerifyNum
from koplc.kopl.syntax import kqapro_json


def record(function, dependencies, inputs):
    return {"function": function, "dependencies": dependencies, "inputs": inputs}


def test_every_conformance_program_parses():
    cases = json.loads((FIXTURES / "conformance" / "kopl_engine_cases.json").read_text())["cases"]
    assert len(cases) > 100
    for case in cases:
        text = json.dumps(case["program"], ensure_ascii=False, indent=2)
        program = kqapro_json.parse(text).program
        assert [s["function"] for s in case["program"]][-1] in (
            type(program).__name__, *type(program).aliases), case["name"]
        again = kqapro_json.parse(kqapro_json.print_program(program)).program
        assert again == program, case["name"]


def test_numbers_count_as_their_text_and_aliases_resolve():
    text = ('[{"function": "Find", "dependencies": [], "inputs": ["X"]},'
            ' {"function": "QueryAttr", "dependencies": [0], "inputs": ["height"]},'
            ' {"function": "VerifyNum", "dependencies": [1], "inputs": [2.06e2, "="]}]')
    program = kqapro_json.parse(text).program
    assert isinstance(program, VerifyNum) and program.value == "2.06e2"
    what = json.dumps([record("Find", [], ["X"]), record("What", [0], [])])
    assert kqapro_json.parse(what).program == QueryName(input=Find(name="X"))


def test_printer_keys_and_unicode():
    text = kqapro_json.print_program(Count(input=Find(name="Zürich")))
    assert text == ('[{"function": "Find", "dependencies": [], "inputs": ["Zürich"]}, '
                    '{"function": "Count", "dependencies": [0], "inputs": []}]')


def test_spans_point_into_the_json():
    text = ('[\n  {"function": "FindAll", "dependencies": [], "inputs": []},\n'
            '  {"function": "Count", "dependencies": [0], "inputs": []}\n]')
    parsed = kqapro_json.parse(text)
    assert parsed.program == Count(input=FindAll())
    assert (parsed.source_map.node(()).line, parsed.source_map.node(()).column) == (3, 3)
    assert parsed.source_map.node((0,)).line == 2


def test_looks_like():
    assert kqapro_json.looks_like(' [ {"function": "FindAll", "dependencies": [], "inputs": []}]')
    assert not kqapro_json.looks_like('{"functions": ["FindAll"], "inputs": [[]]}')
    assert not kqapro_json.looks_like('[["FindAll"], [[]]]')
    assert not kqapro_json.looks_like("FindAll()")
