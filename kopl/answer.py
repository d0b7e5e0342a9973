"""Answers of executed programs, rendered as the official engine's `forward` renders them, and
the comparison with the engine's output.

`forward` returns a string (a count, 'yes'/'no'/'not sure', the name SelectBetween picks) or a
list of strings (names, values, relation labels); for a program ending in an entity set it
returns ``str((entity_ids, facts))``, which is not a user-visible answer: compare the ids.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from typing import NamedTuple

from koplc.kopl.types import Type

ENTITY_TYPES = (Type.ENTITIES, Type.ENTITIES_WITH_FACTS)


class Answer(NamedTuple):
    """What a program returns: its type, the rendered value, and the entity ids of an entity set.

    `value` is a string or a list of strings for every type except entity sets, where it is
    None and `entity_ids` (and `facts`, the supporting facts as JSON-like dicts, for Relate and
    the filters) hold the answer.
    """

    type: Type
    value: str | list[str] | None = None
    entity_ids: list[str] | None = None
    facts: list[dict] | None = None

    @property
    def is_entities(self) -> bool:
        return self.type in ENTITY_TYPES

    def render(self) -> str | list[str]:
        """The official engine's `forward` output for the same program."""
        if self.is_entities:
            return str((self.entity_ids, self.facts))
        assert self.value is not None  # only an entity set has no value
        return self.value

    def items(self) -> list[str]:
        """The answer as a list: the entity ids, the listed strings, or the one string."""
        if self.is_entities:
            assert self.entity_ids is not None  # an entity set always has its ids
            return list(self.entity_ids)
        assert self.value is not None  # only an entity set has no value
        return list(self.value) if isinstance(self.value, list) else [self.value]

    def same_as(self, other: Answer) -> bool:
        """Equal types and equal items as multisets (order is not part of a KoPL answer)."""
        return self.type == other.type and Counter(self.items()) == Counter(other.items())

    def to_json(self) -> dict:
        """A JSON object: {"type", "answer"} plus "entity_ids" for an entity set."""
        if self.is_entities:
            return {"type": str(self.type), "entity_ids": self.entity_ids}
        return {"type": str(self.type), "answer": self.value}


_ID_LIST = re.compile(r"""\(\[(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|,\s*)*\]""")


def engine_entity_ids(output: str) -> list[str] | None:
    """The entity ids in the engine's rendering of an entity set, ``"(['Q1'], None)"``."""
    try:
        ids, _ = ast.literal_eval(output)
        return list(ids)
    except (ValueError, SyntaxError, TypeError):
        match = _ID_LIST.match(output)  # facts hold object reprs that do not evaluate
        return list(ast.literal_eval(match.group(0)[1:])) if match else None


def agrees_with_engine(answer: Answer | None, expected: str | list[str] | None,
                       order_sensitive: bool = True) -> bool:
    """Whether our answer is what the engine's `forward` returned.

    `answer` None means we raised and `expected` None that the engine raised. Lists compare as
    multisets when `order_sensitive` (the engine's order came from hashing), else exactly.

    >>> agrees_with_engine(Answer(Type.NAMES, ["a", "b"]), ["b", "a"])
    True
    """
    if answer is None or expected is None:
        return answer is None and expected is None
    got: str | list[str] | None
    want: str | list[str] | None
    if answer.is_entities:
        if not isinstance(expected, str):
            return False
        got, want = answer.entity_ids, engine_entity_ids(expected)
    else:
        got, want = answer.value, expected
        if isinstance(got, str) or isinstance(want, str):
            return got == want
    if want is None:
        return False
    assert got is not None and not isinstance(got, str)  # ids, or the listed strings
    return Counter(got) == Counter(want) if order_sensitive else list(got) == list(want)
