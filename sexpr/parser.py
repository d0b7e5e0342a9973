"""Interpret S-expression lists as IR nodes, recording where each node and argument came from.

An atom's meaning depends on where it stands. Wherever a set is wanted, a mid is that entity,
a dotted name (``music.album``) is all instances of the class, and any other atom is an entity
name; after a JOIN relation, several atoms up to the closing parenthesis make one name
(``(JOIN r canadian law)``) and a typed or quoted literal makes a filter. ``(AND c X)`` with a
class ``c`` filters X by the class; ``(AND X (JOIN k literal))`` filters X by the literal.
"""

from __future__ import annotations

import difflib
from typing import TypeGuard

from koplc.kopl.diagnostics import Diagnostic, Span
from koplc.kopl.errors import ParseError
from koplc.kopl.ir import (
    And,
    ArgMax,
    ArgMin,
    Count,
    Entity,
    FilterConcept,
    FilterStr,
    Find,
    FindAll,
    Hop,
    Node,
    Relate,
    TimeConstraint,
)
from koplc.kopl.program import Parsed, Path, SourceMap
from koplc.kopl.registry import op_for
from koplc.kopl.types import Direction
from koplc.kopl.values import QUANTITY
from koplc.sexpr.atoms import (
    COMPARISONS,
    INVERSE_SUFFIX,
    OPERATORS,
    Literal,
    LiteralProblem,
    is_class,
    is_mid,
    operator_named,
    read_literal,
    read_time,
)
from koplc.sexpr.reader import Atom, Item, SList

_ARITY = {
    "AND": (2, 2, "2 arguments: two sets, or a class and a set"),
    "JOIN": (2, None, "2 arguments: a relation, then an entity, a set or a typed literal"),
    "R": (1, 1, "1 argument: a relation"),
    "COUNT": (1, 1, "1 argument: a set"),
    "ARGMAX": (2, 2, "2 arguments: a set, then an attribute or a (JOIN ...) path to one"),
    "ARGMIN": (2, 2, "2 arguments: a set, then an attribute or a (JOIN ...) path to one"),
    **dict.fromkeys(COMPARISONS, (2, 2, "2 arguments: an attribute and a typed literal")),
    "TC": (3, 3, "3 arguments: a set, a relation, and a year, a date or NOW"),
}


def build_program(item: Item, text: str) -> Parsed:
    """The IR of an item tree; raises ParseError with every problem found."""
    builder = _Builder(text)
    program = builder.set_expr(item, ())
    if builder.diagnostics or program is None:
        in_text_order = sorted(builder.diagnostics, key=lambda d: d.span.start if d.span else 0)
        raise ParseError(in_text_order, source=text)
    return Parsed(program, builder.spans, text)


class _Builder:
    """Reads items into nodes, collecting diagnostics and spans as it goes."""

    def __init__(self, text: str):
        self.text = text
        self.diagnostics: list[Diagnostic] = []
        self.spans = SourceMap()

    def fail(self, code: str, message: str, span: Span) -> None:
        self.diagnostics.append(Diagnostic(code, message, span))

    def put(self, at: Path, span: Span, node: Node, **arg_spans: Span) -> Node:
        self.spans.nodes[at] = span
        for name, arg_span in arg_spans.items():
            self.spans.args[(at, name)] = arg_span
        return node

    # sets

    def set_expr(self, item: Item, path: Path) -> Node | None:
        """Any expression that denotes a set of entities."""
        if isinstance(item, Atom):
            return self.atom_set(item, path)
        op = self.operator(item)
        if op is None:
            return None
        if op == "R":
            self.fail("bad-argument", "(R relation) reverses a relation; it is only "
                      "valid as the first argument of JOIN", item.span)
            return None
        handler = {"AND": self.and_, "JOIN": self.join, "COUNT": self.count,
                   "ARGMAX": self.arg_extreme, "ARGMIN": self.arg_extreme, "TC": self.tc}
        return handler.get(op, self.literal_filter)(item, path)

    def atom_set(self, atom: Atom, path: Path) -> Node | None:
        if atom.quoted or "^^" in atom.text:
            self.fail("bad-argument", f"the literal {atom.text} is not a set of entities; "
                      "filter with (JOIN attribute literal)", atom.span)
            return None
        if is_mid(atom.text):
            return self.put(path, atom.span, Entity(id=atom.text), id=atom.span)
        if is_class(atom.text):
            self.put((*path, 0), atom.span, FindAll())
            node = FilterConcept(input=FindAll(), concept=atom.text)
            return self.put(path, atom.span, node, concept=atom.span)
        return self.put(path, atom.span, Find(name=atom.text), name=atom.span)

    def and_(self, form: SList, path: Path) -> Node | None:
        first, second = form.args
        if isinstance(first, Atom) and not first.quoted and is_class(first.text):
            inner = self.set_expr(second, (*path, 0))
            if inner is None:
                return None
            node = FilterConcept(input=inner, concept=first.text)
            return self.put(path, form.span, node, concept=first.span)
        if _is_literal_filter(second):
            return self.literal_filter(second, path, input_item=first, span=form.span)
        left = self.set_expr(first, (*path, 0))
        right = self.set_expr(second, (*path, 1))
        if left is None or right is None:
            return None
        return self.put(path, form.span, And(left=left, right=right))

    def join(self, form: SList, path: Path) -> Node | None:
        if _is_literal_filter(form):
            return self.literal_filter(form, path)
        relation = self.relation(form.args[0])
        target = self.entity_target(form.args[1:], (*path, 0))
        if relation is None or target is None:
            return None
        name, reverse, name_span = relation
        direction = Direction.FORWARD if reverse else Direction.BACKWARD
        node = Relate(input=target, relation=name, direction=direction)
        return self.put(path, form.span, node, relation=name_span, direction=form.args[0].span)

    def entity_target(self, items: tuple[Item, ...], path: Path) -> Node | None:
        """JOIN's second argument: a set (a list, a mid, a class) or a name of several words."""
        if len(items) == 1 and (isinstance(items[0], SList) or is_class(items[0].text)):
            return self.set_expr(items[0], path)
        lists = [i for i in items if isinstance(i, SList)]
        if lists:
            self.fail("arity", "JOIN takes one entity, set or literal after the relation; "
                      "a name of several words cannot contain a list", lists[0].span)
            return None
        atoms = [i for i in items if isinstance(i, Atom)]
        quoted = [i for i in atoms if i.quoted or "^^" in i.text]
        if quoted:
            self.fail("bad-argument", f"the literal {quoted[0].text} cannot be part of an "
                      "entity name", quoted[0].span)
            return None
        span = Span.at_offset(self.text, atoms[0].span.start, atoms[-1].span.end)
        if len(atoms) == 1 and is_mid(atoms[0].text):
            return self.put(path, span, Entity(id=atoms[0].text), id=span)
        name = " ".join(i.text for i in atoms)
        return self.put(path, span, Find(name=name), name=span)

    def literal_filter(self, form: SList, path: Path, input_item: Item | None = None,
                       span: Span | None = None) -> Node | None:
        """(JOIN k literal) or (lt k literal), on all entities or on AND's first argument."""
        op = self.operator(form)
        if op is None:
            return None
        key_item, value_item = form.args
        key = self.attribute(key_item)
        literal = self.literal(value_item)
        inner: Node | None
        if input_item is None:
            inner = self.put((*path, 0), form.span, FindAll())
        else:
            inner = self.set_expr(input_item, (*path, 0))
        if key is None or literal is None or inner is None:
            return None
        comparator = COMPARISONS.get(op, "=")
        # An S-expression number is a quantity without a unit.
        cls = op_for("filter", QUANTITY if literal.kind == "number" else literal.kind)
        spans = {"key": key_item.span, "value": value_item.span}
        node: Node
        if cls is FilterStr:
            if comparator != "=":
                self.fail("unsupported-literal", f"a string literal can only be matched "
                          f"with JOIN, not compared with {op}", value_item.span)
                return None
            node = FilterStr(input=inner, key=key, value=literal.value)
        else:
            node = cls(input=inner, key=key, value=literal.value, comparator=comparator)
            spans["comparator"] = form.items[0].span  # the operator
        return self.put(path, span or form.span, node, **spans)

    def count(self, form: SList, path: Path) -> Node | None:
        inner = self.set_expr(form.args[0], (*path, 0))
        return None if inner is None else self.put(path, form.span, Count(input=inner))

    def arg_extreme(self, form: SList, path: Path) -> Node | None:
        cls = ArgMax if self.operator(form) == "ARGMAX" else ArgMin
        inner = self.set_expr(form.args[0], (*path, 0))
        found = self.attribute_path(form.args[1])
        if inner is None or found is None:
            return None
        key, hops, key_span = found
        node = cls(input=inner, key=key, path=hops)
        return self.put(path, form.span, node, key=key_span, path=form.args[1].span)

    def tc(self, form: SList, path: Path) -> Node | None:
        set_item, relation_item, time_item = form.args
        inner = self.set_expr(set_item, (*path, 0))
        relation = self.plain_atom(relation_item, "a relation")
        time = None
        if isinstance(time_item, Atom) and not time_item.quoted:
            time = read_time(time_item.text)
        if time is None:
            self.fail("unsupported-literal", "TC needs a year, a date or NOW as its third "
                      f"argument, got {_describe(time_item)}", time_item.span)
        if inner is None or relation is None or time is None:
            return None
        node = TimeConstraint(input=inner, relation=relation, time=time)
        return self.put(path, form.span, node, relation=relation_item.span, time=time_item.span)

    # parts

    def operator(self, form: SList) -> str | None:
        """The canonical operator heading the list, its argument count checked."""
        head = form.head
        if not isinstance(head, Atom) or head.quoted:
            what = "an empty list" if head is None else f"{_describe(head)}"
            self.fail("expected-operator", f"expected an operator ({', '.join(OPERATORS)})"
                      f", got {what}", form.span if head is None else head.span)
            return None
        op = operator_named(head.text)
        if op is None:
            message = f"unknown operator {head.text!r}"
            close = difflib.get_close_matches(head.text.upper(), [o.upper() for o in OPERATORS],
                                              n=1, cutoff=0.6)
            if close:
                message += f"; did you mean {operator_named(close[0])!r}?"
            self.fail("unknown-operator", message, head.span)
            return None
        low, high, phrase = _ARITY[op]
        count = len(form.args)
        if count < low or (high is not None and count > high):
            self.fail("arity", f"{op} takes {phrase}; got {count}", form.span)
            return None
        return op

    def relation(self, item: Item) -> tuple[str, bool, Span] | None:
        """A relation and whether it is reversed: `r`, `(R r)` or Pangu's `r_inv`."""
        reverse = False
        if isinstance(item, SList):
            if not self.operator_is(item, "R", "expected a relation or (R relation)"):
                return None
            reverse, item = True, item.args[0]
        name = self.plain_atom(item, "a relation")
        if name is None:
            return None
        if name.endswith(INVERSE_SUFFIX) and len(name) > len(INVERSE_SUFFIX):
            return name[:-len(INVERSE_SUFFIX)], not reverse, item.span
        return name, reverse, item.span

    def attribute(self, item: Item) -> str | None:
        """The attribute of a literal filter: a plain relation, never a reversed one."""
        relation = self.relation(item)
        if relation is not None and relation[1]:
            self.fail("bad-argument", "a literal cannot be reached through a reversed "
                      "relation", item.span)
            return None
        return None if relation is None else relation[0]

    def attribute_path(self, item: Item) -> tuple[str, tuple[Hop, ...], Span] | None:
        """ARGMAX/ARGMIN's attribute: `k`, or `(JOIN r1 (JOIN r2 k))` following r1, r2 first."""
        hops: list[Hop] = []
        while isinstance(item, SList):
            if not self.operator_is(item, "JOIN", "expected an attribute or a (JOIN relation "
                                    "attribute) path"):
                return None
            if len(item.args) != 2:
                self.fail("arity", "a path step is (JOIN relation attribute-or-path), "
                          f"with 2 arguments; got {len(item.args)}", item.span)
                return None
            relation = self.relation(item.args[0])
            if relation is None:
                return None
            name, reverse, _ = relation
            hops.append(Hop(relation=name,
                            direction=Direction.BACKWARD if reverse else Direction.FORWARD))
            item = item.args[1]
        key = self.plain_atom(item, "an attribute")
        return None if key is None else (key, tuple(hops), item.span)

    def literal(self, item: Item) -> Literal | None:
        if not isinstance(item, Atom):
            self.fail("bad-argument", "expected a typed literal, got a list", item.span)
            return None
        try:
            return read_literal(item.text, item.quoted)
        except LiteralProblem as problem:
            self.fail(problem.code, str(problem), item.span)
            return None

    def plain_atom(self, item: Item, what: str) -> str | None:
        if isinstance(item, Atom) and not item.quoted and "^^" not in item.text:
            return item.text
        self.fail("bad-argument", f"expected {what}, got {_describe(item)}", item.span)
        return None

    def operator_is(self, form: SList, expected: str, message: str) -> bool:
        """Whether the list is headed by `expected`; says `message` unless already reported."""
        before = len(self.diagnostics)
        if self.operator(form) == expected:
            return True
        if len(self.diagnostics) == before:
            self.fail("bad-argument", message, form.span)
        return False


def _is_literal_filter(item: Item) -> TypeGuard[SList]:
    if not isinstance(item, SList) or not isinstance(item.head, Atom) or item.head.quoted:
        return False
    op = operator_named(item.head.text)
    if op in COMPARISONS:
        return True
    if op != "JOIN" or len(item.args) != 2 or not isinstance(item.args[1], Atom):
        return False
    return item.args[1].quoted or "^^" in item.args[1].text


def _describe(item: Item) -> str:
    if isinstance(item, SList):
        return "a list"
    return f"the literal {item.text}" if item.quoted or "^^" in item.text else repr(item.text)
