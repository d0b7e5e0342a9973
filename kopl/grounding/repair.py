"""The function-repair pass: swap an operation for the one its arguments and the KB call for.

- A filter or verify whose literal (or whose key's values in the KB) is a quantity, a year, a
  date or a string becomes the Num, Year, Date or Str variant (``FilterStr(height, "200
  centimetre, greater than")`` → ``FilterNum(height, 200 centimetre, >)``).
- ``QueryAttr`` on a name that is a relation becomes ``Relate`` (inside ``QueryName`` when it
  ended the program), and ``QueryName(Relate(x, key))`` on an attribute key becomes
  ``QueryAttr(x, key)``.
- A program that ends with an entity set gets the query the types call for: ``Count`` when
  the question asks how many, else ``QueryName``.
"""

from __future__ import annotations

import re
from typing import Any

from koplc.kopl import ir
from koplc.kopl.grounding.candidates import retrieve
from koplc.kopl.grounding.context import GroundingContext
from koplc.kopl.grounding.edits import Edit, numbered, op_text
from koplc.kopl.grounding.operators import split_comparison
from koplc.kopl.ir import Node
from koplc.kopl.lexicon import TIME_WORDS, asks_how_many
from koplc.kopl.registry import family_of, op_for, value_kind_of
from koplc.kopl.transform import rebuild
from koplc.kopl.types import ArgKind, Comparator, Type
from koplc.kopl.values import QUANTITY, STRING, read_date, read_quantity

PASS = "repair"

_RETYPED = ("filter", "qfilter", "verify")  # families whose ops differ only in value kind
_TIME_WORDS = re.compile(rf"\b({'|'.join(sorted(TIME_WORDS))})\b", re.IGNORECASE)


def repair_functions(program: Node, ctx: GroundingContext):
    """Swap operations for the ones their arguments call for; returns (program, changes)."""
    new, edits = rebuild(program, lambda node, expected: _visit(ctx, node, expected))
    return new, numbered(new, PASS, edits)


def retype_node(ctx: GroundingContext, node: Node) -> tuple[Node, list[Edit]]:
    """The filter or verify variant the node's literal and key call for, and the edit."""
    edits: list[Edit] = []
    return _retype_literal(ctx, node, None, edits), edits


def _visit(ctx: GroundingContext, node: Node, expected: Type | None):
    edits: list[Edit] = []
    for rule in (_retype_literal, _query_attr_on_relation, _query_name_of_attribute,
                 _final_query):
        node = rule(ctx, node, expected, edits)
    return node, edits


def _retype_literal(ctx, node, expected, edits):
    family = family_of(node)
    if family not in _RETYPED:
        return node
    kind, field = value_kind_of(node), type(node).value_field()
    written = getattr(node, field)
    key, qualifier = _key_of(node, family)
    key_type = _key_type(ctx, key, qualifier) if key else None
    literal, said = split_comparison(written) if kind == STRING or _unreadable(kind, written) \
        else (written, None)
    timeish = bool(_TIME_WORDS.search(written) or _TIME_WORDS.search(
        str(getattr(node, "comparator", ""))))
    target = _literal_kind(literal, key_type, timeish, kind, said is not None)
    if target is None or (target == kind and literal == written):
        return node
    comparator = said or getattr(node, "comparator", Comparator.EQ)
    if target == STRING and comparator not in (Comparator.EQ, "="):
        return node  # a string equality cannot say "<"
    values = {name: getattr(node, name) for name in type(node).model_fields
              if name not in ("op", field, "comparator")}
    values[field] = literal
    if target != STRING:
        values["comparator"] = comparator
    new = op_for(family, target)(**values)
    why = (f"the KB's {key!r} values are {_PLURALS[key_type]}" if key_type else
           f"{literal!r} reads as a {target}")
    if said is not None:
        why += f" and {written!r} states the comparison {op_text(said)!r}"
    edits.append(Edit(new, "function", type(node).__name__, type(new).__name__, why))
    return new


_PLURALS = {"string": "strings", "quantity": "quantities", "date": "dates or years"}


def _unreadable(kind: str, text: str) -> bool:
    if kind == QUANTITY:
        return read_quantity(text) is None
    if kind == "date":
        return read_date(text) is None
    return kind == "year" and not re.fullmatch(r"-?\d+", text.strip())


def _literal_kind(literal: str, key_type: str | None, timeish: bool, kind: str,
                  compared: bool) -> str | None:
    """Which variant the literal belongs to, given the key's type in the KB (if known)."""
    is_date = read_date(literal) is not None
    is_year = re.fullmatch(r"-?\d{1,4}", literal.strip()) is not None
    is_quantity = read_quantity(literal) is not None
    if key_type == "string":
        return STRING if not compared else None
    if key_type == "quantity":
        return QUANTITY if is_quantity else None
    if key_type == "date":
        return "date" if is_date else "year" if is_year else None
    if is_date:
        return "date"
    if is_year and (timeish or kind in ("year", "date")):
        return "year"
    if is_quantity and (compared or kind != STRING):
        return QUANTITY
    return None if kind != STRING or compared else STRING


def _key_of(node: Any, family: str) -> tuple[str | None, bool]:  # an op of `family`
    if family == "filter":
        return node.key, False
    if family == "qfilter":
        return node.qkey, True
    source = node.input
    if isinstance(source, ir.QueryAttrQualifier):
        return source.qkey, True
    if isinstance(source, ir.QueryAttr | ir.QueryAttrUnderCondition):
        return source.key, False
    return None, False


def _key_type(ctx: GroundingContext, key: str, qualifier: bool) -> str | None:
    """The KB's type for the key, matched exactly or up to normal form."""
    found = ctx.profile.key_type(key)
    if found is not None:
        return found
    kind = ArgKind.QUALIFIER if qualifier else ArgKind.ATTRIBUTE
    if not ctx.indexes.names(kind):
        return None
    index = ctx.indexes.get(kind)
    same = index.same_normal_form(key)
    return ctx.profile.key_type(index.names[same[0]]) if same else None


def _is(ctx: GroundingContext, name: str, kind: ArgKind) -> bool:
    names = ctx.indexes.names(kind)
    if not names:
        return False
    index = ctx.indexes.get(kind)
    return index.exact(name) is not None or bool(index.same_normal_form(name))


def names_relation(ctx: GroundingContext, name: str) -> bool:
    """Whether a name written as an attribute key means a relation of the KB."""
    if _is(ctx, name, ArgKind.ATTRIBUTE) or not ctx.indexes.names(ArgKind.RELATION):
        return False
    if _is(ctx, name, ArgKind.RELATION) or not ctx.indexes.names(ArgKind.ATTRIBUTE):
        return True
    relations = retrieve(ctx, ArgKind.RELATION, name)
    attributes = retrieve(ctx, ArgKind.ATTRIBUTE, name)
    if not relations:
        return False
    return not attributes or relations[0].similarity > attributes[0].similarity + 0.05


def _query_attr_on_relation(ctx, node, expected, edits):
    if type(node) is not ir.QueryAttr or expected not in (None, Type.ENTITIES) \
            or not names_relation(ctx, node.key):
        return node
    new = ir.Relate(input=node.input, relation=node.key)
    why = f"{node.key!r} is a relation of the KB, not an attribute key"
    edits.append(Edit(new, "function", "QueryAttr", "Relate", why))
    if expected is None:
        new = ir.QueryName(input=new)
        edits.append(Edit(new, "function", None, "QueryName",
                          "Relate gives entities; the answer is their names"))
    return new


def _query_name_of_attribute(ctx, node, expected, edits):
    child = getattr(node, "input", None)
    if type(node) is not ir.QueryName or type(child) is not ir.Relate \
            or not _is(ctx, child.relation, ArgKind.ATTRIBUTE) \
            or _is(ctx, child.relation, ArgKind.RELATION):
        return node
    new = ir.QueryAttr(input=child.input, key=child.relation)
    edits.append(Edit(new, "function", "QueryName(Relate)", "QueryAttr",
                      f"{child.relation!r} is an attribute key of the KB, not a relation"))
    return new


def _final_query(ctx, node, expected, edits):
    if expected is not None or not node.output.fits(Type.ENTITIES):
        return node
    counting = bool(ctx.question and asks_how_many(ctx.question))
    new = ir.Count(input=node) if counting else ir.QueryName(input=node)
    why = "the program ends with an entity set; " + (
        "the question asks how many" if counting else "the answer is the entities' names")
    edits.append(Edit(new, "function", None, type(new).__name__, why))
    return new
