"""The LM's part in grounding and reranking: a likelihood chooser for QUACK and the
inverse-consistency scorer (how likely the question is given a program)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from koplc.kopl.grounding.choosers import Candidate, LikelihoodChooser
from koplc.kopl.types import ArgKind
from koplc.llm.lm.embedded import LM

_KIND_WORDS = {ArgKind.ENTITY: "entity", ArgKind.CONCEPT: "concept",
               ArgKind.RELATION: "relation", ArgKind.ATTRIBUTE: "attribute",
               ArgKind.QUALIFIER: "qualifier"}


class LMChooser(LikelihoodChooser):
    """Ranks a name's candidates by log P(candidate | question, written name, kind), blended
    with their similarity to the written name (the blending is LikelihoodChooser's)."""

    def __init__(self, lm: LM, weight: float = 0.3, max_candidates: int = 4,
                 margin: float = 0.15):
        self.lm, self.weight = lm, weight
        self.max_candidates, self.margin = max_candidates, margin

    def rank(self, kind: ArgKind, written: str, candidates: Sequence[Candidate],
             question: str | None) -> list[Candidate]:
        """Similarity alone when one candidate clearly leads (each LM call costs a forward
        pass); the LM decides between the close ones."""
        ordered = sorted(candidates, key=lambda c: -c.similarity)
        if len(ordered) < 2 or ordered[0].similarity - ordered[1].similarity >= self.margin:
            return [replace(c, score=c.similarity) for c in ordered]
        close = ordered[:self.max_candidates]
        said = _said(close, question) if kind is ArgKind.ENTITY else None
        if said is not None:
            # The question names one of them word for word: that one leads, no LM call (the
            # LM is near 50/50 between "Phantom of the Opera" and "The Phantom of the Opera").
            ranked, rest = [replace(said, score=1.0)], [c for c in ordered if c is not said]
        else:
            ranked, rest = super().rank(kind, written, close, question), ordered[len(close):]
        # The rest score as low as the LM could have put them.
        return ranked + [replace(c, score=c.similarity * (1 - self.weight)) for c in rest]

    def log_likelihoods(self, kind: ArgKind, written: str, names: Sequence[str],
                        question: str | None) -> list[float]:
        if len(names) < 2:
            return [0.0] * len(names)
        word = _KIND_WORDS.get(kind, "name")
        prompt = (f"Question: {question or ''}\nThe program wrote the {word} \"{written}\". "
                  f"In the knowledge base this {word} is called \"")
        return [self.lm.score(prompt, f"{name}\"") for name in names]


def _said(candidates: Sequence[Candidate], question: str | None) -> Candidate | None:
    """The candidate with the longest name that `question` contains as whole words, or None."""
    if not question:
        return None
    found = [c for c in candidates
             if re.search(rf"(?<!\w){re.escape(c.name)}(?!\w)", question)]
    return max(found, key=lambda c: len(c.name), default=None)


def inverse_consistency(lm: LM, program_text: str, question: str) -> float:
    """Mean per-character log P(question | program): how well the program explains the
    question (BYOKG's inverse-consistency rerank)."""
    prompt = f"A KoPL program and the question it answers.\n{program_text}\nQuestion:"
    return lm.score(prompt, f" {question}") / max(len(question), 1)
