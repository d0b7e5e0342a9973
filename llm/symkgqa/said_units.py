"""The units a question says, put back on the numbers a generated program copied without them.

A small model writes ``FilterNum(height, 2.5, >)`` for "taller than 2.5 metres": the number
without its unit, which the grounding's units pass cannot restate in the KB's unit (centimetres)
and the executor compares as a bare number. When a bare number of a program equals a number the
question says with a unit (`koplc.kopl.quantities_in_text`) and the KB states that key in a unit,
the literal gets the unit said, and the units pass restates it in the KB's.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal, InvalidOperation

from koplc.kopl import ir
from koplc.kopl.ir import Node
from koplc.kopl.quantities_in_text import DECADE, quantities_in
from koplc.kopl.transform import rebuild
from koplc.kopl.units import bare_number
from koplc.kopl.values import read_quantity

# The quantity ops and the field that holds each one's number.
_FIELDS = {ir.FilterNum: "value", ir.VerifyNum: "value", ir.QFilterNum: "qvalue"}


def _decimal(text: str) -> Decimal | None:
    try:
        return Decimal(text)
    except InvalidOperation:
        return None


def said_units(question: str) -> dict[Decimal, str]:
    """The numbers the question says with a unit, each with its unit as written.

    >>> said_units("Which characters are taller than 2.5 metres or 3 of them?")
    {Decimal('2.5'): 'metres'}
    """
    said: dict[Decimal, str] = {}
    for quantity in quantities_in(question):
        number = _decimal(quantity.value)
        if quantity.unit and quantity.unit != DECADE and number is not None:
            said.setdefault(number, quantity.unit)
    return said


def with_said_units(program: Node, question: str, kb_unit: Callable[[Node], str | None],
                    span: Callable[[Node], tuple[float, float] | None] | None = None
                    ) -> tuple[Node, list[str]]:
    """`program` with each bare number that the question says with a unit written with that
    unit, where the KB states the number's key in a unit (`kb_unit` of the quantity node); the
    literals changed, as "old -> new". Where the KB keeps the key as bare numbers, a number
    with a unit would not compare with them: with `span` (the least and greatest of the
    node's key), a number out of that span is restated in the SI unit that brings it within
    (`koplc.kopl.units.bare_number`: "2.5 metres" of heights 66 to 264 is 250).

    >>> from koplc.kopl.ir import FilterNum, FindAll, QueryName
    >>> node = QueryName(input=FilterNum(input=FindAll(), key="height", value="2.5",
    ...                                comparator=">"))
    >>> with_said_units(node, "Who is taller than 2.5 metres?", lambda n: "centimetre")[1]
    ['2.5 -> 2.5 metres']
    >>> with_said_units(node, "Who is taller than 2.5 metres?", lambda n: "1")[1]
    []
    >>> with_said_units(node, "Who is taller than 2.5 metres?", lambda n: "1",
    ...                 lambda n: (66.0, 264.0))[1]
    ['2.5 -> 250']
    """
    said = said_units(question)
    changed: list[str] = []
    if not said:
        return program, changed

    def visit(node, expected):
        field = _FIELDS.get(type(node))
        written = getattr(node, field) if field else None
        quantity = read_quantity(written) if isinstance(written, str) else None
        if quantity is None or quantity[1] != "1":
            return node, []
        unit = kb_unit(node)
        if unit is None:
            return node, []
        number = _decimal(written.strip())
        if number is None or number not in said:
            return node, []
        if unit == "1":  # the KB's numbers are bare: restate the number, if anything
            within = span(node) if span is not None else None
            bare = bare_number(float(number), said[number], *within) if within else None
            if bare is None:
                return node, []
            literal = f"{bare:g}"
        else:
            literal = f"{written.strip()} {said[number]}"
        changed.append(f"{written} -> {literal}")
        return node.model_copy(update={field: literal}), []

    node, _ = rebuild(program, visit)
    return node, changed
