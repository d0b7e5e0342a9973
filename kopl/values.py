"""Typed KB values and the official KoPL engine's comparison rules (kopl 0.0.5 `util.py`).

A value is a string, a quantity (number and unit, ``"1"`` when unitless), a year or a date.
Two quantities compare only when their units are equal; a year and a date compare by year;
``=`` and ``!=`` against a time target mean containment (the year 1984 contains 1984-12-30, a
date contains only itself).

`parse_literal` is koplc's one reader of program literals: the type checker, the executor, the
SPARQL lowering, the S-expression atoms and grounding all read through it, so what the checker
accepts is what runs. It is the engine's `_parse_key_value`, quirks included, because the
executor must answer as the engine does: numbers and years go through Python's `float` and
`int`, so ``'1_000 metre'`` is 1000 metre, ``'+1999'`` the year 1999 and ``' 12'`` twelve;
``'nan'`` and ``'inf'`` are numbers; any time with ``/`` or a non-leading ``-`` is a date
(``'1999-1-1'`` is 1999-01-01, also where a year is asked for), anything else a year; a
negative date (``'-44-01-01'``) does not read. The checker's one stricter rule (a year op takes
a year, a date op a date) is its named option `strict_time_kinds`.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Any

STRING, QUANTITY, YEAR, DATE = "string", "quantity", "year", "date"
TYPES = (STRING, QUANTITY, YEAR, DATE)
TIME = "time"  # a literal kind, not a value type: TimeConstraint's NOW, a year or a date
NOW = "NOW"


class Value:
    """One typed value: `type` is string/quantity/year/date; `unit` only for quantities."""

    __slots__ = ("type", "value", "unit")
    type: str
    # A str, a float, an int (a year) or a date, as `type` says: a tag the type checker cannot
    # follow, so the payload is Any rather than a union every reader would have to narrow.
    value: Any
    unit: str | None

    def __init__(self, type: str, value: object, unit: str | None = None):
        self.type = type
        self.value = value
        self.unit = unit

    @property
    def year(self) -> int:
        """The year of a year or a date."""
        return self.value if self.type == YEAR else self.value.year

    def __str__(self) -> str:
        """The engine's rendering: ``206 centimetre``, ``199110``, ``1984-12-30``."""
        if self.type == QUANTITY:
            number = self.value
            if number - int(number) < 1e-5:
                number = int(number)
            return f"{number} {self.unit}" if self.unit != "1" else str(number)
        if self.type == DATE:
            return self.value.isoformat()
        return str(self.value)

    def __repr__(self) -> str:
        unit = f", {self.unit!r}" if self.unit is not None else ""
        return f"Value({self.type!r}, {self.value!r}{unit})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Value):
            return NotImplemented
        return (self.type, self.value, self.unit) == (other.type, other.value, other.unit)

    def __hash__(self) -> int:
        return hash((self.type, self.value, self.unit))

    def __reduce__(self):
        return Value, (self.type, self.value, self.unit)


def parse_time(text: str) -> Value:
    """A date when the text has ``/`` or a non-leading ``-``, else a year (engine rules).

    >>> parse_time("1984/12/30"), parse_time("2010")
    (Value('date', datetime.date(1984, 12, 30)), Value('year', 2010))
    """
    if "/" in text or ("-" in text and text[0] != "-"):
        sep = "/" if "/" in text else "-"
        first, last = text.find(sep), text.rfind(sep)
        return Value(DATE, date(int(text[:first]), int(text[first + 1:last]), int(text[last + 1:])))
    return Value(YEAR, int(text))


def parse_literal(text: str, kind: str, today: date | None = None) -> Value:
    """Read a program literal as the engine's `_parse_key_value` does; raises ValueError.

    `kind` is string, quantity, time (TimeConstraint's: spaces around are ignored and NOW is
    `today`, the real date when None), or anything else for a year or date by its shape.

    >>> str(parse_literal("188 centimetre", QUANTITY)), parse_literal("12", QUANTITY).unit
    ('188 centimetre', '1')
    """
    if kind == STRING:
        return Value(STRING, text)
    if kind == QUANTITY:
        if " " in text:
            parts = text.split()
            if not parts:
                raise ValueError(f"no number in {text!r}")
            return Value(QUANTITY, float(parts[0]), " ".join(parts[1:]))
        return Value(QUANTITY, float(text), "1")
    if kind == TIME:
        text = text.strip()
        if text == NOW:
            return Value(DATE, today or date.today())
    return parse_time(text)


def read_literal(text: str, kind: str) -> Value | None:
    """`parse_literal`, or None where it raises."""
    try:
        return parse_literal(text, kind)
    except (ValueError, IndexError, OverflowError):
        return None


@lru_cache(maxsize=4096)
def literal_problem(text: str, kind: str) -> str | None:
    """Why the engine cannot read `text` as a literal of `kind` (the message the executor and
    the lowering give), or None when it can."""
    try:
        parse_literal(text, kind)
    except (ValueError, IndexError, OverflowError) as err:
        return unreadable(text, kind, err)
    return None


def unreadable(text: str, kind: str, err: Exception) -> str:
    """The message for a literal that does not read as `kind`."""
    return f"cannot read {text!r} as {_KIND_WORDS.get(kind, kind)}: {err}"


_KIND_WORDS = {STRING: "a string", QUANTITY: "a number", DATE: "a year or date",
               YEAR: "a year or date", TIME: "a year, a date or NOW"}


def read_quantity(text: str) -> tuple[float, str] | None:
    """(number, unit) of a quantity literal; the unit is ``"1"`` when none is written.

    >>> read_quantity("239389340720.488 United States dollar"), read_quantity("12")
    ((239389340720.488, 'United States dollar'), (12.0, '1'))
    """
    value = read_literal(text, QUANTITY)
    if value is None:
        return None
    assert value.unit is not None  # every quantity has one
    return value.value, value.unit


def read_date(text: str) -> date | None:
    """The date of a time literal that reads as a date (``"1738-01-01"``, ``"1738/1/1"``)."""
    value = read_literal(text, DATE)
    return value.value if value is not None and value.type == DATE else None


class ValueProblem(ValueError):
    """A literal or a comparison the engine refuses (it raises); the executor names the step."""


class UnsupportedComparison(ValueProblem):
    """The engine raises for this operator (or for ordering strings) once it compares."""


def comparable(a: Value, b: Value) -> bool:
    """The engine's `can_compare`: same type, same unit for quantities, any two times."""
    if a.type == STRING:
        return b.type == STRING
    if a.type == QUANTITY:
        return b.type == QUANTITY and a.unit == b.unit
    return b.type == YEAR or b.type == DATE


def compare(a: Value, b: Value, op: str, inclusive: bool = False) -> bool:
    """The engine's `comp(a, b, op)` for comparable values; `<=`/`>=` need `inclusive`."""
    return matcher(b, op, inclusive)(a)


def matcher(target: Value, op: str, inclusive: bool = False,
            convert: Callable[[Value, Value], Value | None] | None = None
            ) -> Callable[[Value], bool]:
    """A test `value -> bool` meaning `comparable(value, target) and comp(value, target, op)`.

    Built once per target so filters over many values pay the case analysis once. `convert`
    (unit conversion) may turn a quantity in another unit into the target's unit.
    """
    op = str(op)
    if inclusive and op in ("<=", ">="):
        strict = matcher(target, ">" if op == "<=" else "<", False, convert)
        same_kind = _same_kind(target, convert)
        return lambda v: same_kind(v) and not strict(v)
    if target.type == STRING:
        return _string_test(target.value, op)
    if target.type == QUANTITY:
        return _quantity_test(target, op, convert)
    return _time_test(target, op)


def _same_kind(target: Value, convert) -> Callable[[Value], bool]:
    if target.type == QUANTITY and convert is not None:
        return lambda v: v.type == QUANTITY and convert(v, target) is not None
    return lambda v: comparable(v, target)


def _refuse(op: str) -> UnsupportedComparison:
    return UnsupportedComparison(f"unsupported comparator {op!r}: the engine supports =, !=, <, >")


def _raise_if(compared: Callable[[Value], bool], error: Exception) -> Callable[[Value], bool]:
    """A test that fails the way the engine does: only once a comparable value turns up."""
    return _RaisingTest(compared, error)


@dataclass(frozen=True, slots=True)
class _RaisingTest:
    compared: Callable[[Value], bool]
    error: Exception
    may_raise = True  # the executor wraps it to name the step

    def __call__(self, v: Value) -> bool:
        if self.compared(v):
            raise self.error
        return False


_CHECKS: dict[str, Callable[[Any, Any], bool]] = {
    "=": operator.eq, "!=": operator.ne, "<": operator.lt, ">": operator.gt}


def _string_test(text: str, op: str) -> Callable[[Value], bool]:
    if op == "=":
        return lambda v: v.type == STRING and v.value == text
    if op == "!=":
        return lambda v: v.type == STRING and v.value != text
    error = UnsupportedComparison("strings cannot be ordered") if op in _CHECKS else _refuse(op)
    return _raise_if(lambda v: v.type == STRING, error)


def _quantity_test(target: Value, op: str, convert) -> Callable[[Value], bool]:
    unit, number = target.unit, target.value
    check = _CHECKS.get(op)
    if convert is None:
        if check is None:
            return _raise_if(lambda v: v.type == QUANTITY and v.unit == unit, _refuse(op))
        return lambda v: v.type == QUANTITY and v.unit == unit and check(v.value, number)

    def in_unit(v: Value) -> float | None:
        if v.type != QUANTITY:
            return None
        if v.unit == unit:
            return v.value
        same = convert(v, target)
        return None if same is None else same.value
    if check is None:
        return _raise_if(lambda v: in_unit(v) is not None, _refuse(op))

    def converted(v: Value) -> bool:
        if v.type == QUANTITY and v.unit == unit:
            return check(v.value, number)
        n = in_unit(v)
        if n is None:
            return False
        # A converted number carries rounding error: within 1e-9 it counts as equal.
        near = math.isclose(n, number, rel_tol=1e-9)
        return (near if op == "=" else not near) if op in ("=", "!=") else (
            not near and check(n, number))
    return converted


def _time_test(target: Value, op: str) -> Callable[[Value], bool]:
    check = _CHECKS.get(op)
    if check is None:
        return _raise_if(lambda v: v.type == YEAR or v.type == DATE, _refuse(op))
    if target.type == YEAR:  # `=` is containment: the year contains its dates
        year = target.value

        def against_year(v: Value) -> bool:
            if v.type == YEAR:
                return check(v.value, year)
            return v.type == DATE and check(v.value.year, year)
        return against_year
    day, year = target.value, target.value.year
    if op == "=":  # a date contains only itself
        return lambda v: v.type == DATE and v.value == day
    if op == "!=":
        return lambda v: v.type == YEAR or (v.type == DATE and v.value != day)

    def against_date(v: Value) -> bool:  # ordered by year when one side is a year
        if v.type == DATE:
            return check(v.value, day)
        return v.type == YEAR and check(v.value, year)
    return against_date


@lru_cache(maxsize=4096)
def compiled_test(text: str, kind: str, op: str, inclusive: bool = False, convert=None
                  ) -> Callable[[Value], bool]:
    """`matcher` of the literal `text` read as `kind`, built once per distinct arguments;
    ValueProblem when the engine could not read the literal."""
    try:
        target = parse_literal(text, kind)
    except (ValueError, IndexError, OverflowError) as err:
        raise ValueProblem(unreadable(text, kind, err)) from None
    return matcher(target, op, inclusive, convert)


def engine_equal(a: Value, b: Value) -> bool:
    """The engine's `a == b` on comparable values: same type and same value."""
    return a.type == b.type and a.value == b.value
