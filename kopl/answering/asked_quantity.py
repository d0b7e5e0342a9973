"""A question that asks for a physical quantity the program's answer is not: "What is the
binding energy per nucleon of iron-56?" of a KB of isotopes that holds no energy, answered by
the atomic mass (in daltons), the nearest property it holds. An energy is never a mass, so
nothing is found rather than the mass.

What a question asks for is read from its asked property (`unheld.asked_property`: "the X of
ENT", "ENT's X", ...), the X of "how much X", and the noun its which or what asks for. A word
there asks for a physical quantity when sympy names it as a dimension (energy, speed, mass,
pressure, ...) and WordNet's first sense of it, as a noun, is a physical property, phenomenon,
measure or rate ("energy", "speed"; not "time", an occasion, "power", a quality, or "area", a
region: words whose everyday sense is no quantity never count). The program's answer is of a
quantity when it ends in a key's value kept in a unit sympy reads (its dimension: "dalton" a
mass), a date, or a count; a key kept as bare numbers, a string or a name says nothing. The
two disagree when the answer is of none of the dimensions asked for. No threshold: a unit's
dimension and a word's sense are facts of sympy and WordNet, not of any data set.
"""

from __future__ import annotations

import re
from functools import cache

from koplc.kopl.answering.unheld import asked_property
from koplc.kopl.grounding.schema import profile_of
from koplc.kopl.ir import Node
from koplc.kopl.lexicon import asked_noun, singular
from koplc.kopl.relatives import kinds_of, mostly_noun

# WordNet's kinds that a word's first noun sense is under when it names a quantity.
_QUANTITY_KINDS = frozenset({"physical property", "physical phenomenon", "measure",
                             "magnitude", "rate", "fundamental quantity"})
_HOW_MUCH = re.compile(r"\bhow\s+much\s+([a-z]+(?:\s+[a-z]+)?)", re.IGNORECASE)
# The ops whose answer is a key's value (QueryAttrUnderCondition: the value under a qualifier).
_VALUE_OPS = ("QueryAttr", "QueryAttrUnderCondition")
_DATE, _COUNT = "date", "count"


def dimension_named(word: str) -> tuple[tuple[str, int], ...] | None:
    """The dimension a word names as a quantity (base dimensions and powers, sorted), or None.

    >>> dimension_named("energy"), dimension_named("speed")
    ((('length', 2), ('mass', 1), ('time', -2)), (('length', 1), ('time', -1)))
    >>> dimension_named("time"), dimension_named("power"), dimension_named("colour")
    (None, None, None)
    """
    return _named(singular(word.lower()))


@cache
def _named(word: str) -> tuple[tuple[str, int], ...] | None:
    from sympy.physics import units
    from sympy.physics.units.dimensions import Dimension

    dimension = getattr(units, word, None)
    if not isinstance(dimension, Dimension) or not mostly_noun(word):
        return None
    if not _QUANTITY_KINDS & kinds_of(word, levels=8):
        return None
    return _dependencies(dimension)


def _dependencies(dimension) -> tuple[tuple[str, int], ...]:
    from sympy.physics.units.systems.si import dimsys_SI

    found = dimsys_SI.get_dimensional_dependencies(dimension)
    return tuple(sorted((str(d.name), int(p)) for d, p in found.items()))


@cache
def unit_dimension(unit: str) -> tuple[tuple[str, int], ...] | None:
    """The dimension of a unit written in words ("dalton": a mass), None when sympy cannot
    read it; a pure number ("percent") has the empty dimension.

    >>> unit_dimension("dalton"), unit_dimension("percent"), unit_dimension("1")
    ((('mass', 1),), (), None)
    """
    from sympy.physics.units.systems.si import SI

    from koplc.kopl.units import sympy_unit

    expr = sympy_unit(unit) if unit and unit != "1" else None
    return None if expr is None else _dependencies(SI.get_dimensional_expr(expr))


def asked_dimensions(question: str, masked: str) -> dict[str, tuple]:
    """The words naming the physical quantities the question asks for, each with its
    dimension (`masked`: the question with its entities as ENT), from its asked property,
    "how much X" and the noun it asks for.

    >>> sorted(asked_dimensions("How much energy does cobalt-60 release?",
    ...                         "How much energy does ENT release?"))
    ['energy']
    >>> asked_dimensions("What time does ENT open?", "What time does ENT open?")
    {}
    """
    said = [asked_property(masked), asked_noun(question)]
    said += [m.group(1) for m in _HOW_MUCH.finditer(question)]
    return {word: d for phrase in said if phrase for word in phrase.lower().split()
            if (d := dimension_named(word)) is not None}


def answer_dimension(program: Node, kb) -> tuple | str | None:
    """What the program's answer is a quantity of: a dimension (a key's value in a unit sympy
    reads), "date", "count", or None when it says nothing (names, strings, bare numbers)."""
    if program.op == "Count":
        return _COUNT
    if program.op not in _VALUE_OPS:
        return None
    key = _key(program)
    kind = kb.key_type.get(key, "")
    if kind in ("date", "year"):
        return _DATE
    if kind != "quantity":
        return None
    unit = profile_of(kb).unit(key)
    return unit_dimension(unit) if unit else None


def _key(program: Node) -> str:
    """The key whose value a QueryAttr (or QueryAttrUnderCondition) answers."""
    return str(getattr(program, "key", ""))


def other_quantity(program: Node, kb, asked: dict[str, tuple]) -> str | None:
    """Why `program` does not answer a question that asks for the quantities `asked`
    (`asked_dimensions`): its answer is of none of them (a mass for an energy); None when
    none is asked, the answer says nothing of its kind, or it is of one asked."""
    answer = answer_dimension(program, kb) if asked else None
    if answer is None or answer in asked.values():
        return None
    what = ("a date" if answer == _DATE else "a count" if answer == _COUNT
            else repr(_key(program)))
    return (f"nothing found: the question asks for {' or '.join(map(repr, asked))}, which "
            f"the KB's nearest answer, {what}, is not")
