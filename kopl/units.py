"""Unit conversion for quantities with sympy units (an executor option, off by default).

KB units are written as words (``centimetre``, ``square kilometre``, ``kilometre per hour``,
``pound``); they are read into sympy unit expressions and two quantities convert when the
ratio of their units is a pure number. Units sympy does not know (currencies, ``1``) never
convert, so those quantities keep the engine's same-unit-only rule.
"""

from __future__ import annotations

from functools import cache

from koplc.kopl.values import QUANTITY, Value

_SPELLING = {"metre": "meter", "litre": "liter", "metres": "meters", "litres": "liters",
             "tonne": "tonne", "gramme": "gram"}
_POWERS = {"square": 2, "cubic": 3}


def _word(word: str):
    from sympy.physics import units

    word = word.lower()
    for suffix, american in _SPELLING.items():
        if word.endswith(suffix):
            word = word[: -len(suffix)] + american
            break
    unit = getattr(units, word, None)
    if unit is None and word.endswith("s"):
        unit = getattr(units, word[:-1], None)
    return unit if isinstance(unit, units.Quantity) else None


@cache
def sympy_unit(text: str):
    """The sympy expression of a unit written in words, or None when it cannot be read.

    >>> str(sympy_unit("kilometre per hour"))
    'kilometer/hour'
    """
    numerator, _, denominator = text.partition(" per ")
    parts = []
    for side in (numerator, denominator):
        if not side:
            continue
        expr, power = 1, 1
        for word in side.split():
            if word.lower() in _POWERS:
                power = _POWERS[word.lower()]
                continue
            unit = _word(word)
            if unit is None:
                return None
            expr, power = expr * unit**power, 1
        if expr == 1:
            return None
        parts.append(expr)
    if not parts:
        return None
    return parts[0] / parts[1] if len(parts) == 2 else parts[0]


@cache
def factor(source: str, target: str) -> float | None:
    """The number that turns a quantity in `source` units into `target` units, or None.

    >>> factor("centimetre", "metre"), factor("United States dollar", "metre")
    (0.01, None)
    """
    if source == target:
        return 1.0
    a, b = sympy_unit(source), sympy_unit(target)
    if a is None or b is None:
        return None
    from sympy.physics.units import convert_to

    ratio = (convert_to(a, b) / b).simplify()
    return float(ratio) if ratio.is_number and ratio.is_positive else None


def convert(value: Value, target: Value) -> Value | None:
    """`value` in the unit of `target` (both quantities), or None when the units do not convert."""
    if value.type != QUANTITY or target.type != QUANTITY:
        return None
    ratio = factor(value.unit, target.unit)
    return None if ratio is None else Value(QUANTITY, value.value * ratio, target.unit)
