"""Choosers rank the candidates for one written name with the question as context.

`SimilarityChooser` needs no language model: it blends each candidate's similarity to the
written name with how well the question supports it (the name appears in the question, or its
words do). `LikelihoodChooser` is the interface an LM-backed chooser implements (in `llm/`): it
supplies log-likelihoods of the candidates and inherits the blending.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from koplc.kopl.grounding.name_forms import (
    content_tokens,
    normal_form,
    phrases,
    same_stem,
    spoken_form,
    tokens,
)
from koplc.kopl.types import ArgKind


@dataclass(frozen=True)
class Candidate:
    """A KB name offered for a written name.

    `similarity` compares it with the written name (lexical signals and embeddings, 0..1);
    `support` is how well the question supports it (0..1); `score` is what the chooser ranks by.
    """

    name: str
    similarity: float
    support: float = 0.0
    score: float = 0.0


class Chooser(Protocol):
    """Ranks candidates for a written name of some kind, given the question (or None)."""

    def rank(self, kind: ArgKind, written: str, candidates: Sequence[Candidate],
             question: str | None) -> list[Candidate]:
        """The candidates with `score` set, best first."""
        ...


def question_support(candidates: Sequence[Candidate], question: str, stems: bool = True
                     ) -> list[float]:
    """Per candidate: 1.0 when the question says its name (articles and all; 0.6 when a longer
    candidate said there contains it), 0.9 when it says the name less its article, else 0.8
    times the share of its words the question has (words with the same stem count when
    `stems`; entity names want the words exact)."""
    said = phrases(question, form=spoken_form)
    said_normal = phrases(question)
    words = tokens(question)
    found = {spoken_form(c.name) for c in candidates} & said
    out = []
    for candidate in candidates:
        form = spoken_form(candidate.name)
        if form in found:
            longer = any(f != form and f" {form} " in f" {f} " for f in found)
            out.append(0.6 if longer else 1.0)
        elif normal_form(candidate.name) in said_normal:
            out.append(0.9)
        else:
            own = content_tokens(candidate.name)
            shared = sum(1 for w in own if w in words or stems and any(
                same_stem(w, q) for q in words))
            out.append(0.8 * shared / len(own) if own else 0.0)
    return out


QUESTION_WEIGHTS = {ArgKind.ENTITY: 0.4, ArgKind.CONCEPT: 0.2}
"""How much the question's support counts, per kind. Entity names are usually quoted in the
question; relation and key words much less reliably (a two-hop question names both hops'
relations, so the question supports each hop's wrong relation as much as its right one)."""


@dataclass(frozen=True)
class SimilarityChooser:
    """Score = (1 - w) * similarity + w * question support, with the kind's weight w (no LM)."""

    weights: tuple[tuple[ArgKind, float], ...] = tuple(QUESTION_WEIGHTS.items())
    default_weight: float = 0.1

    def weight(self, kind: ArgKind) -> float:
        """The question's weight for names of `kind`."""
        return dict(self.weights).get(kind, self.default_weight)

    def rank(self, kind: ArgKind, written: str, candidates: Sequence[Candidate],
             question: str | None) -> list[Candidate]:
        """The candidates scored with the question's support, best first."""
        if not question:
            ranked = [replace(c, support=0.0, score=c.similarity) for c in candidates]
        else:
            w = self.weight(kind)
            support = question_support(candidates, question, stems=kind is not ArgKind.ENTITY)
            ranked = [replace(c, support=s, score=(1 - w) * c.similarity + w * s)
                      for c, s in zip(candidates, support, strict=True)]
        return sorted(ranked, key=lambda c: -c.score)


class LikelihoodChooser(ABC):
    """An LM-likelihood chooser: subclasses supply `log_likelihoods`; `rank` blends the
    candidates' probabilities (softmax over the log-likelihoods) with their similarity."""

    weight: float = 0.5

    @abstractmethod
    def log_likelihoods(self, kind: ArgKind, written: str, names: Sequence[str],
                        question: str | None) -> list[float]:
        """log P(name | question, the program's written name, kind) for each name."""

    def rank(self, kind: ArgKind, written: str, candidates: Sequence[Candidate],
             question: str | None) -> list[Candidate]:
        """The candidates scored with their likelihoods, best first."""
        if not candidates:
            return []
        logs = self.log_likelihoods(kind, written, [c.name for c in candidates], question)
        top = max(logs)
        weights = [math.exp(v - top) for v in logs]
        total = sum(weights)
        ranked = [replace(c, support=w / total, score=(1 - self.weight) * c.similarity
                          + self.weight * w / total)
                  for c, w in zip(candidates, weights, strict=True)]
        return sorted(ranked, key=lambda c: -c.score)
