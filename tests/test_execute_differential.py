"""Differential test: koplc's executor against the real KoPL==0.0.5 engine on generated
programs over the example KB and the MetaQA KB.

Agreement means: both raise (we raise ExecutionError), or the answers are equal — lists as
multisets, since the engine's list order comes from Python's string hashing; entity sets by
their ids. The deliberate deviations are `koplc.kopl.execution.executor.DEVIATIONS`; the generator writes
none of the constructs they concern (each is tested on its own), so no disagreement at all is
tolerated here, and the test counts every program it compares.
Set KOPLC_DIFF_EXAMPLES to run more (and random rather than derandomized) examples.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings

from budget import examples
from kb_fixtures import EXAMPLE_KB, METAQA_KB, kb_for_fixture  # noqa: F401 - the kb_for fixture
from kb_strategies import guided_programs, kb_programs
from koplc.kopl.answer import agrees_with_engine
from koplc.kopl.errors import ExecutionError
from koplc.kopl.execution.executor import execute
from official_engine import engine_for_fixture, engine_forward  # noqa: F401 - engine_for

EXAMPLES = int(os.environ.get("KOPLC_DIFF_EXAMPLES", "0"))
# (KB, strategy, programs): "guided" builds each step from what the current set holds, so
# answers are mostly non-empty; "blind" draws names freely, so it also covers unknown names,
# mismatched keys and the engine's exceptions.
# MetaQA's blind programs keep to small sets (no FindAll): the engine's pair ops are quadratic.
CASES = [(EXAMPLE_KB, "guided", 500), (EXAMPLE_KB, "blind", 300),
         (METAQA_KB, "guided", 200), (METAQA_KB, "blind-small", 150)]
STRATEGIES = {"guided": guided_programs, "blind": kb_programs,
              "blind-small": lambda kb: kb_programs(kb, small_sets=True)}


@pytest.mark.parametrize("kb_path, strategy, count", [
    pytest.param(*case, id=f"{case[0].split('/')[-2]}-{case[1]}",
                 marks=[pytest.mark.whole_kb] if case[0] == METAQA_KB else [])
    for case in CASES])
def test_answers_agree_with_the_official_engine(kb_path, strategy, count, kb_for, engine_for):
    kb, engine = kb_for(kb_path), engine_for(kb_path)
    runs, disagreements = [], []

    @settings(max_examples=EXAMPLES or examples(count), deadline=None, derandomize=not EXAMPLES,
              database=None, suppress_health_check=list(HealthCheck))
    @given(STRATEGIES[strategy](kb))
    def agree(program):
        expected = engine_forward(engine, program)
        try:
            answer = execute(program, kb)
        except ExecutionError:
            answer = None
        runs.append(program)
        if not agrees_with_engine(answer, expected, order_sensitive=True):
            disagreements.append((program, expected, answer and answer.render()))

    agree()
    assert not disagreements, disagreements[:3]
    assert len(runs) >= (EXAMPLES or examples(count))


def test_at_least_a_thousand_programs_are_compared():
    assert sum(count for *_, count in CASES) >= 1000


def test_the_generated_programs_reach_every_kopl_op(kb_for):
    """The differential run covers every KoPL op (the extensions have no engine reference)."""
    from koplc.kopl.registry import OPS

    seen: set[str] = set()

    @settings(max_examples=400, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(kb_programs(kb_for(EXAMPLE_KB)))
    def collect(program):
        seen.update(type(node).__name__ for _, node in program.walk())

    collect()
    assert seen == {name for name, info in OPS.items() if not info.extension}
