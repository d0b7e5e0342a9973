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
             "tonne": "tonne", "gramme": "gram", "kilos": "kilograms", "kilo": "kilogram"}
_POWERS = {"square": 2, "cubic": 3}


def _word(word: str):
    word = word.lower()
    for suffix, american in _SPELLING.items():
        if word.endswith(suffix):
            word = word[: -len(suffix)] + american
            break
    for name in (word, word[:-1] if word.endswith("s") else None):
        unit = _named(name) if name else None
        if unit is not None:
            return unit
    return None


def _named(word: str):
    """The unit sympy names `word`, or an SI prefix of sympy's on one it names (sympy has
    ``millisecond`` but not ``femtosecond``)."""
    from sympy.physics import units
    from sympy.physics.units.prefixes import PREFIXES

    unit = getattr(units, word, None)
    if isinstance(unit, units.Quantity):
        return unit
    for prefix in PREFIXES.values():
        rest = word.removeprefix(str(prefix.name))
        base = getattr(units, rest, None)
        # a prefix goes on a unit's name, not its symbol: "kilos" is no kilo-second
        if word.startswith(str(prefix.name)) and len(rest) > 1 and isinstance(
                base, units.Quantity):
            return prefix.scale_factor * base
    return None


@cache
def sympy_unit(text: str):
    """The sympy expression of a unit written in words, or None when it cannot be read.

    >>> str(sympy_unit("kilometre per hour")), str(sympy_unit("femtosecond"))
    ('kilometer/hour', 'second/1000000000000000')
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


@cache
def in_base(text: str) -> tuple[str, float] | None:
    """(dimension, factor): a quantity in `text` units is `factor` times one in the SI base
    units `dimension` names; None when the unit cannot be read. Two units convert (`factor`)
    when their dimensions are equal, so ranking values in mixed units needs one number a unit.

    >>> in_base("kilometre per hour"), in_base("day")
    (('meter/second', 0.2777777777777778), ('second', 86400.0))
    """
    unit = sympy_unit(text)
    if unit is None:
        return None
    from sympy import Mul
    from sympy.physics import units
    from sympy.physics.units import convert_to

    base = convert_to(unit, [units.meter, units.kilogram, units.second, units.ampere,
                             units.kelvin, units.mole, units.candela])
    powers = base.as_powers_dict()
    dimension = Mul(*(q**p for q, p in powers.items() if isinstance(q, units.Quantity)))
    number = base.subs({q: 1 for q in base.atoms(units.Quantity)})
    return (str(dimension), float(number)) if number.is_number and number.is_positive else None


# The SI units a KB that keeps a length, mass or time as bare numbers may mean, as multiples
# of the SI base unit of its dimension (metre, kilogram, second): milli- to kilo-.
_BARE_SCALES = {"meter": (1e-3, 1e-2, 1.0, 1e3), "kilogram": (1e-6, 1e-3, 1.0, 1e3),
                "second": (1e-3, 1.0)}
# Money, which a KB keeps as bare numbers of its currency, of thousands, millions or billions
# of it ("price_kusd", "budget in millions").
_MONEY = frozenset({"$", "€", "£", "¥", "dollar", "dollars", "euro", "euros", "usd", "eur"})
_MONEY_SCALES = (1.0, 1e3, 1e6, 1e9)


def is_money(unit: str) -> bool:
    """Whether a unit as written is a currency ("$", "dollars")."""
    return unit.strip().lower() in _MONEY


def bare_number(number: float, unit: str, low: float, high: float) -> float | None:
    """A number stated in `unit`, as a key that the KB keeps as bare numbers between `low` and
    `high` plausibly holds it: None when it lies within them as stated (or the unit is none
    this can read); else the stated quantity in the first SI unit of its dimension
    (`_BARE_SCALES`, smallest first) that brings it within them, or for money the first scale
    (`_MONEY_SCALES`); None when none does.

    >>> bare_number(2.5, "metres", 66, 264), bare_number(0.5, "kilometres", 100, 9000)
    (250.0, 500.0)
    >>> bare_number(190, "centimetres", 66, 264), bare_number(9, "metres", 66, 264)
    (None, None)
    >>> bare_number(10000, "$", 7.4, 61.9)  # money kept in thousands
    10.0
    """
    if low <= number <= high:
        return None
    money = is_money(unit)
    base = ("money", 1.0) if money else in_base(unit)
    if base is None or (base[0] not in _BARE_SCALES and not money):
        return None
    for scale in _MONEY_SCALES if money else _BARE_SCALES[base[0]]:
        bare = number * base[1] / scale
        if low <= bare <= high:
            return round(bare, 9)
    return None
