"""Candidate KB names for a written name: retrieved lexically and by embedding, then ranked.

Retrieval unions the exact name, names with the same normal form, names sharing character
trigrams, names that are phrases of the question, the embedding's nearest neighbours and, for
small vocabularies (relations, keys), every name. Each candidate's similarity blends the
lexical signals with the embedding cosine; the chooser then adds the question's support.
The embedding is computed only when no name matches exactly or up to normal form and (in a
large vocabulary) no lexical candidate is already close (`embed_below`).
"""

from __future__ import annotations

from difflib import SequenceMatcher
from typing import TYPE_CHECKING

from koplc.kopl.grounding.choosers import Candidate
from koplc.kopl.grounding.index.kb_indexes import require_names
from koplc.kopl.grounding.index.vector import NameIndex, embedded_text
from koplc.kopl.grounding.name_forms import (
    char_similarity,
    folded,
    normal_form,
    spoken_form,
    token_overlap,
)
from koplc.kopl.types import ArgKind

if TYPE_CHECKING:
    from koplc.kopl.grounding.context import GroundingContext

SMALL_VOCABULARY = 64


def similarity(written: str, name: str, cosine: float | None) -> float:
    """How alike a written name and a KB name are: 1.0 exact, 0.99 equal but for case and
    separators, 0.97 same normal form, else lexical (trigrams, edit ratio, shared words)
    blended half and half with the cosine."""
    if written == name:
        return 1.0
    if folded(written) == folded(name):
        return 0.99
    a, b = normal_form(written), normal_form(name)
    if a == b:
        return 0.97
    # The edit ratio reads the spoken forms: "Secrret" is nearer "Secret" than "A Secret".
    ratio = SequenceMatcher(None, spoken_form(written), spoken_form(name)).ratio()
    chars = (char_similarity(written, name) + ratio) / 2
    lexical = 0.6 * chars + 0.4 * token_overlap(written, name)
    if cosine is None:
        return min(lexical, 0.95)
    return min(0.5 * lexical + 0.5 * max(cosine, 0.0), 0.95)


def retrieve(ctx: GroundingContext, kind: ArgKind, written: str) -> list[Candidate]:
    """The candidates for `written`, ranked by the context's chooser, best first (at most
    `top_k`, none whose similarity and score are both below `min_score`)."""
    return retrieve_all(ctx, [(kind, written)])[(kind, written)]


def retrieve_all(ctx: GroundingContext, names: list[tuple[ArgKind, str]]
                 ) -> dict[tuple[ArgKind, str], list[Candidate]]:
    """`retrieve` for many names, embedding those that need it in one model call."""
    found = {key: _lexical(ctx, *key) for key in dict.fromkeys(names)}
    wanted = [embedded_text(key[1]) for key, (_, _, embed) in found.items() if embed]
    vectors = dict(zip(wanted, ctx.indexes.embedder.encode_queries(wanted), strict=True)) \
        if wanted else {}
    out = {}
    for (kind, written), (index, labels, embed) in found.items():
        if embed:
            labels = _with_cosines(index, labels, vectors[embedded_text(written)],
                                   ctx.options.top_k)
        candidates = [Candidate(index.names[label], similarity(written, index.names[label],
                                                               cosine))
                      for label, cosine in labels.items()]
        ranked = ctx.chooser.rank(kind, written, candidates, ctx.visible_question)
        out[(kind, written)] = [c for c in ranked if max(c.similarity, c.score)
                                >= ctx.options.min_score][:ctx.options.top_k]
    return out


def _lexical(ctx: GroundingContext, kind: ArgKind, written: str):
    """(index, {label: None}, whether an embedding is needed) from the lexical lookups."""
    index = require_names(ctx.indexes, kind, written)
    k = ctx.options.top_k
    labels: dict[int, float | None] = {}
    exact = index.exact(written)
    if exact is not None:
        labels[exact] = None
    same = index.same_normal_form(written)
    labels.update((label, None) for label in same)
    small = len(index) <= SMALL_VOCABULARY
    if small:
        labels.update((label, None) for label in range(len(index)) if label not in labels)
    else:
        for label, _ in index.fuzzy(written, 2 * k):
            labels.setdefault(label, None)
        if kind is ArgKind.ENTITY and ctx.question_phrases:
            for label in index.phrase_matches(ctx.question_phrases):
                labels.setdefault(label, None)
    embed = exact is None and not same
    if embed and not small:  # a close lexical match makes the embedding moot
        best = max((similarity(written, index.names[label], None) for label in labels),
                   default=0.0)
        embed = best < ctx.options.embed_below
    return index, labels, embed


def _with_cosines(index: NameIndex, labels: dict, vector, k: int) -> dict:
    labels = dict(labels)
    for label, cosine in index.search(vector, k):
        labels[label] = cosine
    unscored = [label for label, cosine in labels.items() if cosine is None]
    labels.update(zip(unscored, index.cosines(vector, unscored), strict=True))
    return labels
