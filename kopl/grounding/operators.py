"""The normalise-operators pass: comparator, direction and select words become the IR's values.

``"greater than"`` → ``>``, ``"at least"`` → ``>=``, ``"before"`` → ``<``, ``"Forwards"`` →
``forward``, ``"biggest"`` → ``largest``. Words whose meaning depends on the attribute
(``"older"`` is ``<`` on a birth date and ``>`` on an age) are left alone, as is anything not in
the tables; values that are already the IR's are never touched. The English words come from
`koplc.kopl.lexicon`; the tables here add the notations a program's arguments use.
"""

from __future__ import annotations

import re

from koplc.kopl.grounding.context import GroundingContext
from koplc.kopl.grounding.edits import Edit, numbered
from koplc.kopl.ir import Hop, Node
from koplc.kopl.lexicon import (
    BY_ATTRIBUTE,
    COMPARATIVE_ADJECTIVES,
    COMPARATOR_PHRASES,
    SUPERLATIVES,
)
from koplc.kopl.transform import rebuild
from koplc.kopl.types import AmongOp, ArgKind, BetweenOp, Comparator, Direction

PASS = "operators"

# Symbols, abbreviations and the IR's own values, besides the lexicon's English.
_COMPARATOR_NOTATION = {
    Comparator.GT: "> gt", Comparator.LT: "< lt", Comparator.GE: ">= => ≥ ge gte",
    Comparator.LE: "<= =< ≤ le lte", Comparator.EQ: "= == eq", Comparator.NE: "!= ≠ <> ne",
}
_BETWEEN_NOTATION = {BetweenOp.GREATER: "> max", BetweenOp.LESS: "< min"}
_AMONG_NOTATION = {AmongOp.LARGEST: "max top", AmongOp.SMALLEST: "min bottom"}
_BETWEEN_WORDS = {BetweenOp.GREATER: COMPARATIVE_ADJECTIVES[Comparator.GT],
                  BetweenOp.LESS: COMPARATIVE_ADJECTIVES[Comparator.LT]}
_DIRECTION_WORDS = {
    Direction.FORWARD: "forwards fwd f out outgoing outward -> → subject|from subject",
    Direction.BACKWARD: "backwards bwd b in incoming inward reverse reversed inverse <- ← "
                        "object|from object",
}


def _table(words: dict, english: dict | None = None) -> dict[str, object]:
    """Each value's notations (`words`: single words, then phrases after "|") and English
    phrases (less those whose meaning depends on the attribute), folded, to the value."""
    out = {}
    for value, text in words.items():
        singles, *multi = text.split("|")
        said = [w for w in (english or {}).get(value, ()) if w not in BY_ATTRIBUTE]
        for phrase in [*singles.split(), *multi, *said]:
            out[_fold(phrase)] = value
        out[_fold(str(value.value))] = value
    return out


def _fold(text: str) -> str:
    text = text.casefold().strip().strip(".:;'\"`")
    return re.sub(r"[\s_]+", " ", text)


TABLES = {ArgKind.COMPARATOR: _table(_COMPARATOR_NOTATION, COMPARATOR_PHRASES),
          ArgKind.BETWEEN: _table(_BETWEEN_NOTATION, _BETWEEN_WORDS),
          ArgKind.AMONG: _table(_AMONG_NOTATION, SUPERLATIVES),
          ArgKind.DIRECTION: _table(_DIRECTION_WORDS)}
_ENUMS = {ArgKind.COMPARATOR: Comparator, ArgKind.BETWEEN: BetweenOp, ArgKind.AMONG: AmongOp,
          ArgKind.DIRECTION: Direction}


def read_operator(kind: ArgKind, text: str):
    """The enum value a word means for `kind`, or None.

    >>> read_operator(ArgKind.COMPARATOR, "Greater Than"), read_operator(ArgKind.AMONG, "max")
    (<Comparator.GT: '>'>, <AmongOp.LARGEST: 'largest'>)
    """
    return TABLES[kind].get(_fold(text))


def normalise_operators(program: Node, ctx: GroundingContext | None = None):
    """Rewrite comparator, direction and select words; returns (program, changes)."""
    new, edits = rebuild(program, lambda node, expected: _visit(node))
    return new, numbered(new, PASS, edits)


def _visit(node: Node) -> tuple[Node, list[Edit]]:
    updates: dict[str, object] = {}
    found: list[tuple] = []  # (field, word, meaning)
    for field, kind in type(node).arg_fields():
        value = getattr(node, field)
        if kind is ArgKind.PATH:
            hops = tuple(_hop(hop, found) for hop in value)
            if hops != value:
                updates[field] = hops
        elif kind in TABLES and isinstance(value, str) and not isinstance(value, _ENUMS[kind]):
            meaning = read_operator(kind, value)
            if meaning is not None:
                updates[field] = meaning
                found.append((field, value, meaning))
    if not updates:
        return node, []
    new = node.model_copy(update=updates)
    return new, [Edit(new, field, old, str(meaning.value), f"the {field} word {old!r} means "
                      f"{meaning.value!r}") for field, old, meaning in found]


def _hop(hop: Hop, found: list) -> Hop:
    if isinstance(hop.direction, Direction):
        return hop
    meaning = read_operator(ArgKind.DIRECTION, hop.direction)
    if meaning is None:
        return hop
    found.append((f"path {hop.relation} direction", hop.direction, meaning))
    return hop.model_copy(update={"direction": meaning})


_SYMBOL = re.compile(r"^(>=|<=|!=|=>|=<|<>|==|>|<|=|≥|≤|≠)\s*(.+)$")


def split_comparison(text: str) -> tuple[str, Comparator | None]:
    """A literal written together with a comparison, taken apart.

    >>> split_comparison("200 centimetre, greater than")
    ('200 centimetre', <Comparator.GT: '>'>)
    >>> split_comparison("at least 1990"), split_comparison("male")
    (('1990', <Comparator.GE: '>='>), ('male', None))
    """
    text = text.strip()
    head, comma, tail = text.rpartition(",")
    if comma and (meaning := read_operator(ArgKind.COMPARATOR, tail)) is not None:
        return head.strip(), meaning
    match = _SYMBOL.match(text)
    if match:
        return match.group(2).strip(), read_operator(ArgKind.COMPARATOR, match.group(1))
    words = text.split()
    for n in range(min(6, len(words) - 1), 0, -1):
        if (meaning := read_operator(ArgKind.COMPARATOR, " ".join(words[:n]))) is not None \
                and _starts_with_number(words[n]):
            return " ".join(words[n:]), meaning
        if (meaning := read_operator(ArgKind.COMPARATOR, " ".join(words[-n:]))) is not None \
                and _starts_with_number(words[0]):
            return " ".join(words[:-n]), meaning
    return text, None


def _starts_with_number(word: str) -> bool:
    return bool(re.match(r"^[-+]?\d", word))
