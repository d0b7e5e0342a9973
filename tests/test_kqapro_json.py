"""KQA Pro program lists (`kqapro-json`): identity corpus, the conformance programs, errors."""

from __future__ import annotations

import json

import pytest

from conftest import FIXTURES
from koplc.kopl import kqapro_json
from koplc.kopl.errors import ParseError
from koplc.kopl.ir import Count, Find, FindAll, QueryName, VerifyNum


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


def error_of(text: str) -> ParseError:
    with pytest.raises(ParseError) as err:
        kqapro_json.parse(text)
    assert err.value.source == text
    return err.value


FIND = '{"function": "Find", "dependencies": [], "inputs": ["X"]}'


@pytest.mark.parametrize(("text", "code", "line", "column"), [
    ('[{"function": "Find", "dependencies": [], "inputs": ["X"],}]', "syntax", 1, 59),
    (f'[{FIND},\n {{"function": "Count" "dependencies": [0]}}]', "syntax", 2, 23),
    (f'[{FIND},\n {{"function": "Count", "dependencies": [0], "inputs": []}}', "unbalanced-brackets", 1, 1),
    ('[{"function": "Find", "dependencies": [], "inputs": ["X]}]', "unterminated-string", 1, 54),
    ('[{"function": "Find", "dependencies": [], "inputs": ["\\q"]}]', "bad-string", 1, 54),
    (f'[{FIND},\n {{"function": "Count", "dependencies": [0]}}]', "missing-key", 2, 2),
    (f'[{FIND},\n {{"function": "Count", "dependencies": [0], "input": []}}]', "unknown-key", 2, 45),
    (f'[{FIND},\n {{"function": "Count", "dependencies": "0", "inputs": []}}]', "wrong-type", 2, 40),
    (f'[{FIND},\n {{"function": "Count", "dependencies": [0.5], "inputs": []}}]', "wrong-type", 2, 41),
    ('[{"function": "Find", "dependencies": [], "inputs": [null]}]', "wrong-type", 1, 54),
    ('[{"function": 3, "dependencies": [], "inputs": []}]', "unknown-function", 1, 15),
    ('[{"function": "Find", "function": "Find", "dependencies": [], "inputs": ["X"]}]',
     "duplicate-key", 1, 23),
    ('{"function": "Find"}', "wrong-type", 1, 1),
    (f'[{FIND},\n {{"function": "Count", "dependencies": [1], "inputs": []}}]',
     "dangling-dependency", 2, 40),
    (f'[{FIND},\n {FIND}]', "unused-step", 1, 2),
    (f'[{FIND},\n {{"function": "Cont", "dependencies": [0], "inputs": []}}]',
     "unknown-function", 2, 15),
    (f'[{FIND},\n {{"function": "Count", "dependencies": [0], "inputs": ["x"]}}]', "arity", 2, 2),
    (f'[{FIND},\n {{"function": "Count", "dependencies": [0, 0], "inputs": []}}]', "arity", 2, 40),
    ("[]", "empty-program", 1, 1),
    ("", "empty-program", 1, 1),
])
def test_errors_have_codes_and_positions(text, code, line, column):
    diagnostic = error_of(text).diagnostics[0]
    assert (diagnostic.code, diagnostic.span.line, diagnostic.span.column) == (code, line, column)


def test_error_messages_read_plainly():
    assert "did you mean 'Count'?" in str(error_of(
        f'[{FIND}, {{"function": "Cont", "dependencies": [0], "inputs": []}}]'))
    assert "step 2 has no 'inputs' key" in str(error_of(
        f'[{FIND}, {{"function": "Count", "dependencies": [0]}}]'))
    assert "expected ',' or ']'" in str(error_of('[1 2]'))


def test_every_problem_is_reported_at_once():
    text = ('[{"function": "Find", "dependencies": [], "inputs": [true]},'
            ' {"function": "Count", "dependencies": [0]}, {"function": "Count"}]')
    codes = [d.code for d in error_of(text).diagnostics]
    assert codes == ["wrong-type", "missing-key", "missing-key", "missing-key"]


def test_looks_like():
    assert kqapro_json.looks_like(' [ {"function": "FindAll", "dependencies": [], "inputs": []}]')
    assert not kqapro_json.looks_like('{"functions": ["FindAll"], "inputs": [[]]}')
    assert not kqapro_json.looks_like('[["FindAll"], [[]]]')
    assert not kqapro_json.looks_like("FindAll()")
