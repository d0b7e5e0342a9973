"""Print IR as canonical S-expression text; UnsupportedConstruct for what it cannot say.

A few IR shapes mean the same set as another and share its text, so they read back in the
parser's form: ``And(class, X)`` and ``FilterNum(class, ...)`` print as ``(AND class ...)`` and
read back as FilterConcept over the rest; ``And(X, FilterNum(FindAll, ...))`` prints as
``(AND X (lt ...))`` and reads back as the filter applied to X. Printing the result again gives
the same text. Everything else reads back exactly as it was.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from koplc.kopl.errors import UnsupportedConstruct
from koplc.kopl.ir import (
    And,
    ArgMax,
    ArgMin,
    Count,
    Entity,
    FilterConcept,
    FilterDate,
    FilterNum,
    FilterStr,
    FilterYear,
    Find,
    FindAll,
    Node,
    QueryName,
    Relate,
    TimeConstraint,
)
from koplc.kopl.types import Direction
from koplc.sexpr.atoms import (
    COMPARISONS,
    INVERSE_SUFFIX,
    KEYWORDS,
    is_class,
    is_mid,
    is_plain_atom,
    is_time,
    write_literal,
)

_NO_ANSWER_VALUES = "an S-expression answers with entities or a count"
UNSUPPORTED: dict[str, str] = {
    "QueryAttr": f"{_NO_ANSWER_VALUES}, not attribute values",
    "QueryAttrUnderCondition": f"{_NO_ANSWER_VALUES}, not attribute values",
    "QueryRelation": f"{_NO_ANSWER_VALUES}, not relation labels",
    "QueryAttrQualifier": "S-expressions have no qualifiers",
    "QueryRelationQualifier": "S-expressions have no qualifiers",
    "QFilterStr": "S-expressions have no qualifiers",
    "QFilterNum": "S-expressions have no qualifiers",
    "QFilterYear": "S-expressions have no qualifiers",
    "QFilterDate": "S-expressions have no qualifiers",
    "VerifyStr": "S-expressions have no yes/no questions",
    "VerifyNum": "S-expressions have no yes/no questions",
    "VerifyYear": "S-expressions have no yes/no questions",
    "VerifyDate": "S-expressions have no yes/no questions",
    "Exists": "S-expressions have no yes/no questions",
    "SelectBetween": f"{_NO_ANSWER_VALUES}; ARGMAX/ARGMIN (ArgMax, ArgMin) select entities",
    "SelectAmong": f"{_NO_ANSWER_VALUES}; ARGMAX/ARGMIN (ArgMax, ArgMin) select entities",
    "Or": "GrailQA S-expressions have no union",
    "QueryName": "the answer names are implicit, so QueryName may only stand at the root",
    "FindAll": "all entities can only be written under a class or a literal filter",
}
_OPERATOR_OF = {"=": "JOIN", **{symbol: op for op, symbol in COMPARISONS.items()}}
_LITERAL_KIND = {FilterNum: "number", FilterYear: "year", FilterDate: "date", FilterStr: "string"}
_OTHER_WHITESPACE = re.compile(r"[^\S ]")


def print_program(program: Node) -> str:
    """The canonical S-expression of a program; raises UnsupportedConstruct.

    >>> from koplc.kopl.ir import Find, QueryName, Relate
    >>> print_program(QueryName(input=Relate(input=Find(name="x"), relation="r",
    ...                                      direction="forward")))
    '(JOIN (R r) x)'
    """
    node = program.input if isinstance(program, QueryName) else program
    try:
        return write_set(node)
    except RecursionError:
        raise UnsupportedConstruct("the program nests too deeply to print",
                                   code="too-deep") from None


def write_set(node: Node) -> str:
    """The S-expression of a node standing where a set is wanted."""
    visit = _VISITORS.get(type(node).__name__)
    if visit is None:
        raise cannot_express(type(node).__name__)
    return visit(node)


def cannot_express(op: str, detail: str | None = None) -> UnsupportedConstruct:
    """The error for an op (or one use of it) that S-expressions cannot write."""
    reason = detail or UNSUPPORTED.get(op)
    return UnsupportedConstruct(f"S-expressions cannot express {op}" +
                                (f": {reason}" if reason else ""))


def visit_Entity(node: Entity) -> str:
    if not is_mid(node.id):
        raise cannot_express("Entity", f"the id {node.id!r} is not a Freebase mid (m.… or g.…)")
    return node.id


def visit_Find(node: Find) -> str:
    return write_name(node.name, after_relation=False)


def visit_FilterConcept(node: FilterConcept) -> str:
    concept = node.concept
    if not is_plain_atom(concept) or not is_class(concept):
        raise cannot_express("FilterConcept", f"the concept {concept!r} is not a dotted class "
                             "name such as music.album (anything else reads back as an entity)")
    if isinstance(node.input, FindAll):
        return concept
    return f"(AND {concept} {write_set(node.input)})"


def visit_filter(node: FilterStr | FilterNum | FilterYear | FilterDate) -> str:
    op_name = type(node).__name__
    comparator = "=" if isinstance(node, FilterStr) else str(node.comparator)
    operator = _OPERATOR_OF.get(comparator)
    if operator is None:
        raise cannot_express(op_name, f"the comparator {comparator!r} has no S-expression "
                             "(JOIN is =, lt le gt ge are < <= > >=)")
    literal = write_literal(_LITERAL_KIND[type(node)], node.value)
    if literal is None:
        raise cannot_express(op_name, f"the value {node.value!r} is not a plain "
                             f"{_LITERAL_KIND[type(node)]} (a typed literal has no unit)")
    form = f"({operator} {write_relation(node.key, op_name)} {literal})"
    if isinstance(node.input, FindAll):
        return form
    return f"(AND {write_set(node.input)} {form})"


def visit_Relate(node: Relate) -> str:
    relation = write_relation(node.relation, "Relate")
    if node.direction is Direction.BACKWARD:
        head = relation
    elif node.direction is Direction.FORWARD:
        head = f"(R {relation})"
    else:
        raise cannot_express("Relate", f"the direction {node.direction!r} is not forward or "
                             "backward")
    target = node.input
    if isinstance(target, Find):
        return f"(JOIN {head} {write_name(target.name, after_relation=True)})"
    return f"(JOIN {head} {write_set(target)})"


def visit_And(node: And) -> str:
    return f"(AND {write_set(node.left)} {write_set(node.right)})"


def visit_Count(node: Count) -> str:
    return f"(COUNT {write_set(node.input)})"


def visit_extreme(node: ArgMax | ArgMin) -> str:
    op_name = type(node).__name__
    text = write_atom(node.key, "attribute", op_name)
    for hop in reversed(node.path):
        relation = write_relation(hop.relation, op_name)
        if hop.direction is Direction.FORWARD:
            step = relation
        elif hop.direction is Direction.BACKWARD:
            step = f"(R {relation})"
        else:
            raise cannot_express(op_name, f"the path direction {hop.direction!r} is not "
                                 "forward or backward")
        text = f"(JOIN {step} {text})"
    return f"({op_name.upper()} {write_set(node.input)} {text})"


def visit_TimeConstraint(node: TimeConstraint) -> str:
    if not is_time(node.time):
        raise cannot_express("TimeConstraint", f"the time {node.time!r} is not a year, a date "
                             "(YYYY-MM-DD) or NOW")
    relation = write_atom(node.relation, "relation", "TimeConstraint")
    return f"(TC {write_set(node.input)} {relation} {node.time})"


def write_name(name: str, after_relation: bool) -> str:
    """An entity name as written; several words only where JOIN's argument is read as a name."""
    problem = None
    if not name or name != name.strip() or "  " in name or _OTHER_WHITESPACE.search(name):
        problem = "is empty or has spaces other than single ones between words"
    elif any(char in name for char in '()"') or "^^" in name:
        problem = "contains parentheses, quotes or '^^'"
    elif is_mid(name) or is_class(name) or name in KEYWORDS:
        problem = "reads back as a mid, a class or a keyword"
    elif not after_relation and " " in name:
        problem = "has several words, which only JOIN's second argument reads as one name"
    if problem:
        raise cannot_express("Find", f"the name {name!r} {problem}")
    return name


def write_atom(text: str, what: str, op_name: str) -> str:
    """A relation, attribute or class name, which must be one plain atom."""
    if not is_plain_atom(text):
        raise cannot_express(op_name, f"the {what} {text!r} is not one atom (empty, or has "
                             "spaces, parentheses, quotes or '^^')")
    return text


def write_relation(text: str, op_name: str) -> str:
    """A relation or attribute after JOIN, where a trailing `_inv` would mean a reversal."""
    if text.endswith(INVERSE_SUFFIX):
        raise cannot_express(op_name, f"the relation {text!r} ends in {INVERSE_SUFFIX!r}, "
                             "which reads back as a reversed relation")
    return write_atom(text, "relation", op_name)


_VISITORS: dict[str, Callable[..., str]] = {
    "Entity": visit_Entity, "Find": visit_Find, "FilterConcept": visit_FilterConcept,
    **dict.fromkeys(["FilterStr", "FilterNum", "FilterYear", "FilterDate"], visit_filter),
    "Relate": visit_Relate, "And": visit_And, "Count": visit_Count,
    "ArgMax": visit_extreme, "ArgMin": visit_extreme, "TimeConstraint": visit_TimeConstraint,
}
SUPPORTED = frozenset(_VISITORS)
