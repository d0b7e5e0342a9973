"""Nested-call KoPL (`kopl-nested`): the docs corpus, identity corpus, spans and errors."""

from __future__ import annotations

import json

import pytest

from conftest import FIXTURES
from koplc.kopl.ir import Find, FindAll, Node, QueryName, Relate
from koplc.kopl.syntax import nested as nested_syntax


def preorder(node: Node) -> list[str]:
    return [type(node).__name__, *(name for child in node.children for name in preorder(child))]


def test_every_docs_program_parses_with_its_functions():
    lines = (FIXTURES / "corpus" / "kopl_functional_docs.jsonl").read_text(encoding="utf-8")
    records = [json.loads(line) for line in lines.splitlines() if line]
    assert len(records) == 13
    for record in records:
        parsed = nested_syntax.parse(record["program_text"])
        assert preorder(parsed.program) == record["functions"], record["id"]
        assert nested_syntax.looks_like(record["program_text"])


@pytest.mark.parametrize("text", [
    "QueryName(Relate(Find('X'), 'r', 'forward'))",
    'engine.QueryName(engine.Relate(engine.Find("X"), "r", "forward"))',
    'What(Relate(Find("X"),"r","forward"))',
    ' \n\tQueryName (\n  Relate(\n Find( "X" ) ,\r\n "r", \'forward\', ) )\n',
    'QueryName(Relate(Find("X"), "r", "Forward"))',
    'a.b.QueryName(Relate(Find("X"), "r", "forward"))',
])
def test_surface_variants_give_the_same_program(text):
    expected = QueryName(input=Relate(input=Find(name="X"), relation="r", direction="forward"))
    assert nested_syntax.parse(text).program == expected
    assert nested_syntax.print_program(expected) == 'QueryName(Relate(Find("X"), "r", "forward"))'


def test_numbers_are_kept_as_written():
    program = nested_syntax.parse('FilterNum(FindAll(), "height", -1.5e3, "<")').program
    assert program.value == "-1.5e3"
    assert nested_syntax.parse('VerifyYear(QueryAttr(Find("x"), "y"), 180, "=")').program.value == "180"


@pytest.mark.parametrize(("literal", "value"), [
    (r'"a \"b\" \\ c"', 'a "b" \\ c'),
    (r"'it\'s'", "it's"),
    (r'"\u00e9\x41\101\N{BULLET}\t\n"', "éAA\u2022\t\n"),
    (r'"C:\dir"', "C:\\dir"),  # an unknown escape keeps its backslash, as in Python
    ('"東京"', "東京"),
])
def test_string_escapes_are_pythons(literal, value):
    program = nested_syntax.parse(f"Find({literal})").program
    assert program == Find(name=value)
    assert nested_syntax.parse(nested_syntax.print_program(program)).program == program


def test_printer_escapes_like_json():
    program = Find(name='say "hi"\n\\ é')
    assert nested_syntax.print_program(program) == f"Find({json.dumps(program.name, ensure_ascii=False)})"
    assert nested_syntax.print_program(Relate(input=FindAll(), relation="r")) == 'Relate(FindAll(), "r")'


def test_spans_point_at_calls_names_and_arguments():
    text = 'QueryName(\n  engine.Relate(Find("X"), "r", \'forward\')\n)'
    parsed = nested_syntax.parse(text)
    relate = parsed.source_map.node((0,))
    assert text[relate.start:relate.end] == "engine.Relate(Find(\"X\"), \"r\", 'forward')"
    assert (relate.line, relate.column) == (2, 3)
    span = parsed.source_map.arg((0,), "direction")
    assert text[span.start:span.end] == "'forward'"
    span = parsed.source_map.arg((0, 0), "name")
    assert text[span.start:span.end] == '"X"'
    whole = parsed.source_map.node(())
    assert (whole.start, whole.end) == (0, len(text))


def test_looks_like():
    assert nested_syntax.looks_like("  engine.Count(FindAll())")
    assert nested_syntax.looks_like("QueryName (")
    assert not nested_syntax.looks_like('[{"function": "Find"}]')
    assert not nested_syntax.looks_like("Step 1: Find(X)")
    assert not nested_syntax.looks_like("Find <arg> X")
