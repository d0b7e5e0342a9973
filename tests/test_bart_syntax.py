"""The KQA Pro BART baseline string (`kopl-bart`): separators, stripping, what it cannot say."""

from __future__ import annotations

import pytest

from koplc.kopl.errors import UnsupportedConstruct
from koplc.kopl.ir import Count, Find, FindAll, QueryName, Relate
from koplc.kopl.syntax import bart as bart_syntax

IRELAND = QueryName(input=Relate(input=Find(name="Ireland"), relation="capital",
                                 direction="forward"))


@pytest.mark.parametrize("text", [
    "Find <arg> Ireland <func> Relate <arg> capital <arg> forward <func> What",
    "Find<arg>Ireland<func>Relate<arg>capital<arg>forward<func>QueryName",
    "  Find <arg>  Ireland\n<func>\tRelate <arg> capital <arg> forward <func> What <arg> ",
    "Find <arg> Ireland <func> Relate <arg> capital <arg> Forward <func> What",
])
def test_surface_variants_give_the_same_program(text):
    assert bart_syntax.parse(text).program == IRELAND


def test_pieces_keep_inner_spaces_and_a_dangling_arg_is_no_argument():
    assert bart_syntax.parse("Find <arg> New  York City").program == Find(name="New  York City")
    assert bart_syntax.parse("FindAll <arg> <func> Count").program == Count(input=FindAll())
    relate = bart_syntax.parse("Find <arg> X <func> Relate <arg> r <arg>").program
    assert relate == Relate(input=Find(name="X"), relation="r")
    assert bart_syntax.print_program(relate) == "Find <arg> X <func> Relate <arg> r"


@pytest.mark.parametrize(("name", "problem"), [
    ("", "is empty"),
    (" padded", "whitespace"),
    ("tab\t", "whitespace"),
    ("a <arg> b", "'<arg>'"),
    ("x<func>", "'<func>'"),
])
def test_printer_refuses_arguments_it_cannot_express(name, problem):
    with pytest.raises(UnsupportedConstruct) as err:
        bart_syntax.print_program(Count(input=Find(name=name)))
    assert repr(name) in str(err.value) and problem in str(err.value)


def test_spans_point_at_pieces():
    text = "Find <arg> Ireland <func> Relate <arg> capital"
    parsed = bart_syntax.parse(text)
    whole = parsed.source_map.node(())
    assert text[whole.start:whole.end] == "Relate <arg> capital"
    span = parsed.source_map.arg((0,), "name")
    assert text[span.start:span.end] == "Ireland"


def test_looks_like():
    assert bart_syntax.looks_like("Find <arg> X <func> Count")
    assert bart_syntax.looks_like("Find <arg> X")
    assert bart_syntax.looks_like(" FindAll\n") and bart_syntax.parse("FindAll").program == FindAll()
    assert not bart_syntax.looks_like("Find X")
    assert bart_syntax.looks_like("<func> Count")
    assert not bart_syntax.looks_like('QueryName(Find("a <arg> b"))')
    assert not bart_syntax.looks_like('(AND m.01 "<func>")')
    assert not bart_syntax.looks_like("Count(Find('X'))")
