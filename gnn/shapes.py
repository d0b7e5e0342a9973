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
from koplc.kopl.lexicon import is_yes_no
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
    """Why a relation path cannot answer the question (its shape), or None when one may."""
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
    """The attribute key of the topic entity that the question names (the longest), if any."""
    said = said_words(question)
    keys = {fact[0] for node in kb.name_to_nodes.get(topic, ()) for fact in kb.attributes[node]}
    named = [k for k in keys if says(said, name_words(k))]
    return max(named, key=len) if named else None
