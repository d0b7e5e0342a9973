"""The types KoPL operations consume and produce, and the one subtype rule between them."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal


class Type(StrEnum):
    """What flows between operations."""

    ENTITIES = "entities"
    ENTITIES_WITH_FACTS = "entities with facts"
    VALUES = "attribute values"
    QUALIFIER_VALUES = "qualifier values"
    NAMES = "names"
    COUNT = "count"
    BOOLEAN = "yes/no"
    RELATIONS = "relation labels"

    def fits(self, expected: Type) -> bool:
        """Whether a value of this type may be passed where `expected` is wanted.

        >>> Type.ENTITIES_WITH_FACTS.fits(Type.ENTITIES), Type.ENTITIES.fits(Type.ENTITIES_WITH_FACTS)
        (True, False)
        """
        return self is expected or (self is Type.ENTITIES_WITH_FACTS and expected is Type.ENTITIES)


class ArgKind(StrEnum):
    """What a textual input of an operation names or holds."""

    ENTITY = "entity name"
    ENTITY_ID = "entity id"
    CONCEPT = "concept"
    RELATION = "relation"
    ATTRIBUTE = "attribute key"
    QUALIFIER = "qualifier key"
    STRING = "string value"
    NUMBER = "number with optional unit"
    YEAR = "year"
    DATE = "date"
    VALUE = "value of the key's type"
    TIME = "year, date or NOW"
    DIRECTION = "direction"
    COMPARATOR = "comparator"
    BETWEEN = "less or greater"
    AMONG = "smallest or largest"
    PATH = "relation path"


# What an op does, as data on its class (`Node.family`): code asks the registry for the ops of
# a family, never lists them. Ops of one family that differ only in their value kind (the Filter*,
# QFilter* and Verify* variants) share one executor and one lowering method.
Family = Literal["find", "concept", "filter", "qfilter", "relate", "set", "superlative",
                 "temporal", "name", "count", "attribute", "relation", "select", "verify",
                 "exists"]

# The kind of value an op takes, read from the ArgKind of its value field: the literal kinds of
# `koplc.kopl.values` (what `parse_literal` reads), "keyed" (a value read with its key's type in
# the KB), or "none".
ValueKind = Literal["string", "quantity", "year", "date", "keyed", "time", "none"]
VALUE_KINDS: dict[ArgKind, ValueKind] = {
    ArgKind.STRING: "string", ArgKind.NUMBER: "quantity", ArgKind.YEAR: "year",
    ArgKind.DATE: "date", ArgKind.VALUE: "keyed", ArgKind.TIME: "time",
}


class Direction(StrEnum):
    """Which end of a relation fact the input entities sit at."""

    FORWARD = "forward"
    BACKWARD = "backward"


class Comparator(StrEnum):
    """Comparison operators; `<=` and `>=` are the S-expression extension."""

    EQ = "="
    NE = "!="
    LT = "<"
    GT = ">"
    LE = "<="
    GE = ">="


class BetweenOp(StrEnum):
    LESS = "less"
    GREATER = "greater"


class AmongOp(StrEnum):
    SMALLEST = "smallest"
    LARGEST = "largest"
