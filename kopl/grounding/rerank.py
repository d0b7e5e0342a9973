"""The inverse-consistency rerank pass (BYOKG): among candidate programs, prefer the one that
best explains the question.

Each candidate comes with a forward score, log P(program | question) as the generator gave it;
a `Scorer` supplies the inverse score, log P(question | program). The combined score is
``(1 - alpha) * forward + alpha * inverse``; the best candidate wins (ties keep the given
order). Both scores should be on one scale (e.g. mean log-likelihood per token); the LM-backed
scorer lives in `llm/`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from koplc.kopl.errors import GroundingError
from koplc.kopl.grounding.context import Change, Scored
from koplc.kopl.ir import Node
from koplc.kopl.syntax.nested import print_program

PASS = "rerank"


class Scorer(Protocol):
    """Scores how well a program explains a question."""

    def log_likelihood(self, question: str, program: Node) -> float:
        """log P(question | program)."""
        ...


@dataclass(frozen=True)
class Ranked:
    """One candidate with its forward, inverse and combined scores."""

    program: Node
    forward: float
    inverse: float
    score: float


def rerank(candidates: Sequence[tuple[Node, float]], question: str, scorer: Scorer,
           alpha: float = 0.5) -> list[Ranked]:
    """The candidates (program, forward score) ranked by the combined score, best first."""
    if not 0.0 <= alpha <= 1.0:
        raise GroundingError(f"alpha must lie between 0 and 1, not {alpha}", code="bad-alpha")
    if not candidates:
        raise GroundingError("no candidate programs to rerank", code="no-candidates")
    ranked = []
    for program, forward in candidates:
        inverse = scorer.log_likelihood(question, program)
        ranked.append(Ranked(program, forward, inverse, (1 - alpha) * forward + alpha * inverse))
    return sorted(ranked, key=lambda r: -r.score)


def rerank_programs(candidates: Sequence[tuple[Node, float]], question: str, scorer: Scorer,
                    alpha: float = 0.5) -> tuple[Node, list[Change]]:
    """The best candidate, and a change record when it is not the forward favourite."""
    ranked = rerank(candidates, question, scorer, alpha)
    best = ranked[0].program
    favourite = max(candidates, key=lambda c: c[1])[0]
    if best == favourite:
        return best, []
    steps = sum(1 for _ in best.walk())
    top = ranked[0]
    change = Change(PASS, steps, type(best).__name__, "program", print_program(favourite),
                    print_program(best),
                    f"best combined score {top.score:.3f} = {1 - alpha:.2f} x forward "
                    f"{top.forward:.3f} + {alpha:.2f} x inverse {top.inverse:.3f}",
                    tuple(Scored(print_program(r.program), r.score) for r in ranked[:5]))
    return best, [change]
