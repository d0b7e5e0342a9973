"""Differential test: generated well-typed programs over the example KBs (KQA Pro encoding)
and the MetaQA KB (plain triples) answer the same natively and through SPARQL on pyoxigraph.

"Same" is `same`: both refuse (the executor raises; the lowering or a guard refuses), or equal
answers, lists as multisets. The strategies are the executor's (tests/kb_strategies.py), which
also draw <= and >= (the engine raises on comparable values: guards), unknown names and
mismatched keys. Set KOPLC_DIFF_EXAMPLES to run more, random examples.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings

from budget import examples
from kb_fixtures import EXAMPLE_KB, EXAMPLE_KB_EXT, METAQA_KB, kb_for_fixture  # noqa: F401
from kb_strategies import guided_programs, kb_programs
from koplc.kopl.syntax.nested import print_program
from sparql_fixtures import (  # noqa: F401 - the oxigraph_for fixture
    ENCODING_OF,
    native,
    oxigraph_for_fixture,
    same,
    through_sparql,
)

EXAMPLES = int(os.environ.get("KOPLC_DIFF_EXAMPLES", "0"))
CASES = [(EXAMPLE_KB, "guided", 250), (EXAMPLE_KB, "blind", 150), (EXAMPLE_KB_EXT, "blind", 100),
         (METAQA_KB, "guided", 100), (METAQA_KB, "blind-small", 100)]
STRATEGIES = {"guided": guided_programs, "blind": kb_programs,
              "blind-small": lambda kb: kb_programs(kb, small_sets=True)}


def differential(kb, store, encoding, strategy, count):
    """Run `count` generated programs both ways; returns (programs run, disagreements)."""
    runs, disagreements = [], []

    @settings(max_examples=EXAMPLES or examples(count), deadline=None, derandomize=not EXAMPLES,
              database=None, suppress_health_check=list(HealthCheck))
    @given(STRATEGIES[strategy](kb))
    def agree(program):
        expected = native(program, kb)
        got = through_sparql(program, store, encoding)
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


def test_at_least_five_hundred_programs_are_compared():
    assert sum(count for *_, count in CASES) >= 500
