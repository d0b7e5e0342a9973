"""The question shapes the GNN front end answers, and the ones it hands on.

The GNN reasons along relations from one entity, so it answers two shapes: the names a chain of
relations reaches (`Find -> Relate... -> QueryName`), and, when the question asks how many, their
count (the back half's answer-type repair turns the chain's QueryName into Count). A question of
another shape (yes or no, an attribute of the entity, a comparison with a number) is handed on:
its answer says nothing was found and why, rather than a chain's names that answer something
else.
"""

from __future__ import annotations

from koplc.kopl.grounding.mentions import said_words, says
from koplc.kopl.lexicon import CONTENT_STOP_WORDS, base_form, is_yes_no, singular
from koplc.kopl.naming import name_words
from koplc.kopl.quantities_in_text import numbers_in

SHAPES = {
    "path": "the names a chain of relations from one entity reaches "
            "(Find -> Relate... -> QueryName)",
    "count": "how many they are (Find -> Relate... -> Count)",
}


def answered_shapes() -> str:
    """The shapes the GNN answers, as one phrase for messages."""
    return "; ".join(SHAPES.values())


def handed_on(question: str, kb, topic: str) -> str | None:
    """Why a relation path cannot answer the question (its shape), or None when one may.

    >>> handed_on("Is Ada older than Bob?", None, "Ada")
    'it asks yes or no'
    """
    if is_yes_no(question):
        return "it asks yes or no"
    key = said_attribute(question, kb, topic)
    if key is not None:
        return f"it asks for the attribute {key!r} of {topic!r}"
    topic_numbers = set(numbers_in(topic))
    stated = [n for n in numbers_in(question) if n not in topic_numbers]
    if stated:
        return f"it compares with the number {stated[0]}"
    return None


def said_attribute(question: str, kb, topic: str) -> str | None:
    """The attribute key of the topic entity that the question names: all its words in a row,
    else more of its words (by their lemma: "eyes" for "eye color", "built" for "year built")
    than any relation of the KB has in the question."""
    said = said_words(question)
    keys = sorted({fact[0] for node in kb.name_to_nodes.get(topic, ())
                   for fact in kb.attributes[node]})
    named = [k for k in keys if says(said, name_words(k))]
    if named:
        return max(named, key=len)
    lemmas = _lemmas(name_words(question.replace(topic, " ")))
    best = max(keys, key=lambda k: _share(k, lemmas), default=None)
    if best is None or _share(best, lemmas) == 0:
        return None
    relations = max((_share(r, lemmas) for r in kb.out_objects), default=0.0)
    return best if _share(best, lemmas) > relations else None


def _lemmas(words) -> set[str]:
    """Each content word's lemma: a verb's base form, else a noun's singular."""
    return {base_form(w) or singular(w) for w in (w.lower() for w in words)
            if w not in CONTENT_STOP_WORDS and len(w) > 2}


def _share(name: str, lemmas: set[str]) -> float:
    """The share of a schema name's content words that the question says (by lemma)."""
    words = _lemmas(name_words(name))
    return len(words & lemmas) / len(words) if words else 0.0
