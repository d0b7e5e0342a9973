"""The inverse-consistency rerank pass (BYOKG) and the LM-likelihood chooser interface.

Both protocols are implemented by language models in `llm/`; here they are implemented by small
deterministic test doubles, so that the combination arithmetic can be checked exactly.
"""

from __future__ import annotations

import math

import pytest

from koplc import api
from koplc.kopl.errors import GroundingError
from koplc.kopl.grounding.choosers import Candidate, LikelihoodChooser
from koplc.kopl.grounding.rerank import rerank, rerank_programs
from koplc.kopl.types import ArgKind

QUESTION = "who directed Psycho"
DIRECTOR = api.parse("QueryName(Relate(Find('Psycho'), 'directed_by', 'forward'))").program
WRITER = api.parse("QueryName(Relate(Find('Psycho'), 'written_by', 'forward'))").program
ACTOR = api.parse("QueryName(Relate(Find('Psycho'), 'starred_actors', 'forward'))").program


class WordOverlapScorer:
    """Test double for the Scorer protocol: log P(question | program) is minus the number of
    question words whose first four letters no name in the program starts with."""

    def log_likelihood(self, question: str, program) -> float:
        names = [str(getattr(node, field)).lower().replace("_", " ")
                 for _, node in program.walk() for field, _ in type(node).arg_fields()]
        stems = {word[:4] for name in names for word in name.split()}
        return -float(sum(1 for word in question.lower().split() if word[:4] not in stems))


def test_alpha_weighs_forward_against_inverse():
    candidates = [(WRITER, -1.0), (DIRECTOR, -2.0), (ACTOR, -4.0)]
    # Inverse scores: DIRECTOR misses "who" (-1), WRITER and ACTOR miss "who", "directed" (-2).
    assert [r.program for r in rerank(candidates, QUESTION, WordOverlapScorer(), 0.0)][0] \
        == WRITER
    assert [r.program for r in rerank(candidates, QUESTION, WordOverlapScorer(), 1.0)][0] \
        == DIRECTOR
    ranked = rerank(candidates, QUESTION, WordOverlapScorer())
    assert [(r.forward, r.inverse, r.score) for r in ranked] == [
        (-1.0, -2.0, -1.5), (-2.0, -1.0, -1.5), (-4.0, -2.0, -3.0)]
    ranked = rerank(candidates, QUESTION, WordOverlapScorer(), 0.75)
    assert ranked[0].program == DIRECTOR and ranked[0].score == pytest.approx(-1.25)


def test_the_pass_records_why_it_overruled_the_generator():
    best, changes = rerank_programs([(WRITER, -1.0), (DIRECTOR, -1.2)], QUESTION,
                                    WordOverlapScorer())
    assert best == DIRECTOR
    [change] = changes
    assert change.pass_name == "rerank" and "written_by" in change.original
    assert "directed_by" in change.replacement and "inverse -1.000" in change.reason
    best, changes = rerank_programs([(DIRECTOR, -1.0), (WRITER, -1.2)], QUESTION,
                                    WordOverlapScorer())
    assert best == DIRECTOR and changes == []


def test_bad_input_is_a_clear_error():
    with pytest.raises(GroundingError, match="no candidate"):
        rerank([], QUESTION, WordOverlapScorer())
    with pytest.raises(GroundingError, match="alpha"):
        rerank([(DIRECTOR, 0.0)], QUESTION, WordOverlapScorer(), alpha=1.5)


class FixedLikelihoods(LikelihoodChooser):
    """Test double for the LM chooser interface: log-likelihoods from a fixed table."""

    def __init__(self, table: dict[str, float]):
        self.table = table

    def log_likelihoods(self, kind, written, names, question):
        return [self.table[name] for name in names]


def test_the_likelihood_chooser_blends_probabilities_with_similarity():
    chooser = FixedLikelihoods({"directed_by": math.log(3.0), "written_by": 0.0})
    candidates = [Candidate("written_by", 0.6), Candidate("directed_by", 0.5)]
    ranked = chooser.rank(ArgKind.RELATION, "director", candidates, QUESTION)
    assert [c.name for c in ranked] == ["directed_by", "written_by"]
    assert ranked[0].support == pytest.approx(0.75)
    assert ranked[0].score == pytest.approx(0.5 * 0.5 + 0.5 * 0.75)
