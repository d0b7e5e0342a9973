"""The units pass: a quantity stated in one unit is restated in the unit the KB uses for its key.

``FilterNum(area, "270 square kilometres", >)`` against a KB that states areas in square miles
becomes ``FilterNum(area, "104.2471828 square mile", >)``. The KB's unit for a key is the unit
most of its values carry; conversion factors come from sympy units (`koplc.kopl.units`), after
common abbreviations are spelled out. Unitless literals, units sympy cannot convert (currencies,
temperatures) and literals already in the KB's unit are left alone.
"""

from __future__ import annotations

import re

from koplc.kopl import ir
from koplc.kopl.grounding.context import GroundingContext
from koplc.kopl.grounding.edits import Edit, numbered
from koplc.kopl.ir import Node
from koplc.kopl.transform import rebuild
from koplc.kopl.units import factor
from koplc.kopl.values import read_quantity

PASS = "units"

_ABBREVIATIONS = {
    "km": "kilometre", "m": "metre", "cm": "centimetre", "mm": "millimetre", "mi": "mile",
    "ft": "foot", "feet": "foot", "in": "inch", "inches": "inch", "yd": "yard", "kg": "kilogram",
    "g": "gram", "mg": "milligram", "lb": "pound", "lbs": "pound", "oz": "ounce", "t": "tonne",
    "s": "second", "sec": "second", "min": "minute", "h": "hour", "hr": "hour", "hrs": "hour",
    "l": "litre", "ml": "millilitre", "ha": "hectare", "sq": "square", "cu": "cubic",
    "mph": "mile per hour", "kph": "kilometre per hour", "km/h": "kilometre per hour",
    "m/s": "metre per second",
}
_POWER_SUFFIX = re.compile(r"^(\w+?)(²|2|³|3)$")


def spelled_unit(unit: str) -> str:
    """A unit with abbreviations spelled out.

    >>> spelled_unit("sq km"), spelled_unit("km²"), spelled_unit("mph")
    ('square kilometre', 'square kilometre', 'mile per hour')
    """
    if unit.strip().lower() in _ABBREVIATIONS:
        return _ABBREVIATIONS[unit.strip().lower()]
    words = []
    for word in unit.replace("/", " per ").split():
        match = _POWER_SUFFIX.match(word)
        if match and match.group(1).lower() in _ABBREVIATIONS:
            power = "square" if match.group(2) in "²2" else "cubic"
            words += [power, _ABBREVIATIONS[match.group(1).lower()]]
        else:
            words.append(_ABBREVIATIONS.get(word.lower(), word))
    return " ".join(words)


def restate(literal: str, target_unit: str | None) -> str | None:
    """The quantity `literal` restated in `target_unit`, or None when it cannot or need not be.

    >>> restate("6.5 feet", "centimetre"), restate("12", "centimetre")
    ('198.12 centimetre', None)
    """
    quantity = read_quantity(literal)
    if quantity is None or target_unit is None:
        return None
    number, unit = quantity
    if unit == target_unit or unit == "1" or target_unit == "1":
        return None
    ratio = factor(spelled_unit(unit), target_unit)
    if ratio is None:
        return None
    return f"{number * ratio:.10g} {target_unit}"


def key_of(node: Node) -> tuple[str, bool] | None:
    """(key, is a qualifier) whose unit a quantity node's literal must be in, or None."""
    if isinstance(node, ir.FilterNum):
        return node.key, False
    if isinstance(node, ir.QFilterNum):
        return node.qkey, True
    if isinstance(node, ir.VerifyNum):
        source = node.input
        if isinstance(source, ir.QueryAttrQualifier):
            return source.qkey, True
        if isinstance(source, ir.QueryAttr | ir.QueryAttrUnderCondition):
            return source.key, False
    return None


def convert_node(node: Node, ctx: GroundingContext) -> tuple[Node, list[Edit]]:
    """The node with its quantity restated in the KB's unit for its key, and the edit."""
    found = key_of(node)
    if found is None:
        return node, []
    key, qualifier = found
    field = "qvalue" if isinstance(node, ir.QFilterNum) else "value"
    written = getattr(node, field)
    target = ctx.profile.unit(key, qualifier)
    restated = restate(written, target)
    if restated is None:
        return node, []
    new = node.model_copy(update={field: restated})
    return new, [Edit(new, field, written, restated,
                      f"the KB states {key!r} in {target}")]


def convert_units(program: Node, ctx: GroundingContext):
    """Restate every quantity literal in its key's KB unit; returns (program, changes)."""
    new, edits = rebuild(program, lambda node, expected: convert_node(node, ctx))
    return new, numbered(new, PASS, edits)
