"""Anonymised program patterns: a program with its entities and literal values blanked out.

Two programs share a pattern when they differ only in the entities they start from and the
values they compare with: the ops, relations and their directions, attribute and qualifier keys,
concepts and comparators all stay. The operands of And and Or are put in a fixed order, since
either order means the same set. Exploration keeps a few programs per pattern, and coverage
compares the patterns of explored programs with those of gold programs.
"""

from __future__ import annotations

from koplc.kopl import ir
from koplc.kopl.syntax.nested import print_program
from koplc.kopl.types import ArgKind

ENTITY = "<entity>"
# Literal kinds blanked to one placeholder each; names of schema items are kept.
_BLANKS = {ArgKind.ENTITY: ENTITY, ArgKind.ENTITY_ID: ENTITY, ArgKind.STRING: "<string>",
           ArgKind.NUMBER: "<number>", ArgKind.YEAR: "<year>", ArgKind.DATE: "<date>",
           ArgKind.VALUE: "<value>", ArgKind.TIME: "<time>"}
_COMMUTATIVE = (ir.And, ir.Or)


def anonymise(program: ir.Node) -> ir.Node:
    """The program with entity names and literal values replaced by placeholders.

    >>> from koplc.kopl.ir import Find, QueryName, Relate
    >>> p = QueryName(input=Relate(input=Find(name="Marie Curie"), relation="discovered_by",
    ...                            direction="backward"))
    >>> anonymise(p).input.input.name
    '<entity>'
    """
    children = {name: anonymise(getattr(program, name)) for name in type(program).child_fields()}
    update: dict[str, object] = dict(children)
    for name, kind in type(program).arg_fields():
        if kind in _BLANKS:
            update[name] = _BLANKS[kind]
    if isinstance(program, _COMMUTATIVE):
        left, right = children["left"], children["right"]
        if print_program(right) < print_program(left):
            update["left"], update["right"] = right, left
    return program.model_copy(update=update)


def pattern(program: ir.Node) -> str:
    """The anonymised program as one line of nested calls: the key programs are grouped by.

    >>> from koplc.kopl.ir import Count, Find, Relate
    >>> pattern(Count(input=Relate(input=Find(name="Marie Curie"), relation="discovered_by",
    ...                            direction="backward")))
    'Count(Relate(Find("<entity>"), "discovered_by", "backward"))'
    """
    return print_program(anonymise(program))
