"""Value kinds in exploration: the ops that filter, qualify and verify each kind of value,
and how a KB value reads as a literal of a kind."""

from __future__ import annotations

from koplc.kopl.registry import op_for, value_kinds_of
from koplc.kopl.types import Comparator
from koplc.kopl.values import DATE, YEAR, Value

ORDERED = (Comparator.EQ, Comparator.NE, Comparator.LT, Comparator.GT)
TIME_QUALIFIERS = ("point in time", "start time")
KINDS = value_kinds_of("filter")  # string, quantity, year, date
FILTERS = {kind: op_for("filter", kind) for kind in KINDS}
QFILTERS = {kind: op_for("qfilter", kind) for kind in KINDS}
VERIFIERS = {kind: op_for("verify", kind) for kind in KINDS}


def literal(value: Value, kind: str) -> str:
    """The text of a KB value as a literal of `kind` (a date read as a year for FilterYear).

    >>> literal(Value("quantity", 1811.0, "kelvin"), "quantity"), literal(Value("quantity", 3.0, "1"), "quantity")
    ('1811 kelvin', '3')
    """
    if kind == YEAR:
        return str(value.year)
    return str(value)


def kind_fits(value: Value, kind: str) -> bool:
    return value.type == kind or (kind == YEAR and value.type == DATE)
