"""Reading value literals as the official KoPL engine does: quantities, years, dates, times."""

from __future__ import annotations

import math
import re
from datetime import date

from koplc.kopl.types import ArgKind

_YEAR = re.compile(r"-?\d+")
_DATE = re.compile(r"(-?\d+)([-/])(\d{1,2})\2(\d{1,2})")


def read_quantity(text: str) -> tuple[float, str] | None:
    """(number, unit) of ``"270 square kilometre"``; the unit is ``"1"`` when none is written.

    >>> read_quantity("239389340720.488 United States dollar"), read_quantity("12")
    ((239389340720.488, 'United States dollar'), (12.0, '1'))
    """
    number, _, unit = text.strip().partition(" ")
    try:
        value = float(number)
    except ValueError:
        return None
    if not math.isfinite(value) or "_" in number:
        return None
    return value, unit.strip() or "1"


def read_year(text: str) -> int | None:
    """The year of ``"1829"``, or None."""
    return int(text) if _YEAR.fullmatch(text.strip()) else None


def read_date(text: str) -> date | None:
    """The date of ``"1738-01-01"`` or ``"1738/01/01"`` (KQA Pro writes both), or None."""
    match = _DATE.fullmatch(text.strip())
    if not match:
        return None
    try:
        return date(int(match.group(1)), int(match.group(3)), int(match.group(4)))
    except ValueError:
        return None


def literal_problem(kind: ArgKind, text: str) -> str | None:
    """Why `text` is not a literal of `kind`, or None when it is (or the kind is free text)."""
    if kind is ArgKind.NUMBER and read_quantity(text) is None:
        return "a number, optionally followed by a unit (e.g. '270 square kilometre')"
    if kind is ArgKind.YEAR and read_year(text) is None:
        return "a year (e.g. '1829')"
    if kind is ArgKind.DATE and read_date(text) is None:
        return "a date written yyyy-mm-dd"
    if kind is ArgKind.TIME and text.strip() != "NOW" and read_year(text) is None \
            and read_date(text) is None:
        return "a year, a date written yyyy-mm-dd, or NOW"
    return None
