"""Differential test: generated well-typed programs over the example KBs (KQA Pro encoding)
and the MetaQA KB (plain triples) answer the same natively and through SPARQL on pyoxigraph.

"Same" is `same`: both refuse (the executor raises; the lowering or a guard refuses), or equal
answers, lists as multisets. The strategies are the executor's (tests/kb_strategies.py), which
also draw <= and >= (the engine raises on comparable values: guards), unknown names and
mismatched keys. Set KOPLC_DIFF_EXAMPLES to run more, random examples.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from budget import examples
from kb_fixtures import EXAMPLE_KB, EXAMPLE_KB_EXT, METAQA_KB, kb_for_fixture  # noqa: F401
from kb_strategies import guided_programs, kb_programs
from koplc.api import load_kb, parse
from koplc.kopl import ir
from koplc.kopl.execution.executor import CONVERTING, DEFAULT
from koplc.kopl.syntax.nested import print_program
from sparql_fixtures import (  # noqa: F401 - the oxigraph_for fixture
    ENCODING_OF,
    load_store,
    native,
    oxigraph_for_fixture,
    same,
    through_sparql,
)

EXAMPLES = int(os.environ.get("KOPLC_DIFF_EXAMPLES", "0"))
ISOTOPES = Path(__file__).resolve().parent / "fixtures" / "devkbs" / "isotopes" / "kb.json"
CASES = [(EXAMPLE_KB, "guided", 250), (EXAMPLE_KB, "blind", 150), (EXAMPLE_KB_EXT, "blind", 100),
         (METAQA_KB, "guided", 100), (METAQA_KB, "blind-small", 100)]
STRATEGIES = {"guided": guided_programs, "blind": kb_programs,
              "blind-small": lambda kb: kb_programs(kb, small_sets=True)}


def differential(kb, store, encoding, strategy, count, options=DEFAULT):
    """Run `count` generated programs both ways; returns (programs run, disagreements)."""
    runs, disagreements = [], []

    @settings(max_examples=EXAMPLES or examples(count), deadline=None, derandomize=not EXAMPLES,
              database=None, suppress_health_check=list(HealthCheck))
    @given(STRATEGIES[strategy](kb))
    def agree(program):
        expected = native(program, kb, options)
        got = through_sparql(program, store, encoding, options)
        runs.append(program)
        if not same(expected, got):
            disagreements.append((print_program(program), expected and expected.render(),
                                  got and got.render()))

    agree()
    return runs, disagreements


@pytest.mark.parametrize("kb_path, strategy, count", [
    pytest.param(*case, id=f"{case[0].split('/')[-1]}-{case[1]}",
                 marks=[pytest.mark.whole_kb] if case[0] == METAQA_KB else [])
    for case in CASES])
def test_generated_programs_answer_the_same_on_pyoxigraph(kb_path, strategy, count, kb_for,
                                                          oxigraph_for):
    encoding = ENCODING_OF[kb_path]
    runs, disagreements = differential(kb_for(kb_path), oxigraph_for(kb_path), encoding,
                                       strategy, count)
    assert not disagreements, disagreements[:3]
    assert len(runs) >= (EXAMPLES or examples(count))


@pytest.mark.parametrize("encoding", ["kqapro", "wikidata"])
def test_unit_conversion_answers_as_the_executor_over_mixed_units(encoding, kb_for, oxigraph_for):
    """The example KB's heights and masses are in centimetres and metres, pounds and
    kilograms: with conversion, generated programs answer alike both ways."""
    kb, store = kb_for(EXAMPLE_KB_EXT), oxigraph_for(EXAMPLE_KB_EXT, encoding)
    runs, disagreements = differential(kb, store, encoding, "guided", 100, CONVERTING)
    assert not disagreements, disagreements[:3]
    assert len(runs) >= (EXAMPLES or examples(100))


HALF_LIVES = ['Count(FilterNum(FindAll(), "half-life", "1 year", ">"))',
              'Count(FilterNum(FindAll(), "half-life", "3600 second", "<"))',
              'Count(FilterNum(FindAll(), "half-life", "1 hour", "!="))',
              'VerifyNum(QueryAttr(Find("carbon-14"), "half-life"), "5000 year", ">")',
              'SelectAmong(FilterConcept(FindAll(), "isotope"), "half-life", "largest")',
              'SelectBetween(Find("carbon-14"), Find("cobalt-60"), "half-life", "greater")']


@pytest.mark.parametrize("encoding", ["kqapro", "wikidata"])
def test_half_lives_in_seconds_and_years_compare_after_conversion(encoding):
    """The isotopes KB states half-lives in units from attoseconds to years: conversion changes
    what several of these comparisons and picks answer, and they answer the same both ways."""
    kb = load_kb(ISOTOPES)
    store = load_store(kb, encoding)
    changed = 0
    for text in HALF_LIVES:
        node = parse(text).program
        converted = native(node, kb, CONVERTING)
        assert same(converted, through_sparql(node, store, encoding, CONVERTING)), text
        assert same(native(node, kb), through_sparql(node, store, encoding)), text
        changed += not same(converted, native(node, kb))
    assert changed >= 3
    for cls, best in ((ir.ArgMax, "germanium_76"), (ir.ArgMin, "hydrogen_5")):
        node = cls(input=parse('FilterConcept(FindAll(), "isotope")').program, key="half-life")
        answer = through_sparql(node, store, encoding, CONVERTING)
        assert answer is not None and list(answer.entity_ids) == [best]


def test_at_least_five_hundred_programs_are_compared():
    assert sum(count for *_, count in CASES) >= 500
