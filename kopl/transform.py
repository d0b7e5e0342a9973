"""One post-order traversal that rebuilds a program from rewritten nodes, and the numbering of
the changes it records against the program it returns."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from koplc.kopl.grounding.context import Change, Scored
from koplc.kopl.ir import Node
from koplc.kopl.step_names import step_numbers
from koplc.kopl.types import Type


@dataclass(frozen=True)
class Edit:
    """A change not yet numbered: it names the node of the new program that it landed on."""

    node: Node
    field: str
    original: str | None
    replacement: str
    reason: str
    candidates: tuple[Scored, ...] = ()


Visit = Callable[[Node, "Type | None"], tuple[Node, list[Edit]]]


def rebuild(program: Node, visit: Visit) -> tuple[Node, list[Edit]]:
    """Rewrite every node bottom-up: children first, then `visit(node, expected)`, where
    `expected` is the type the parent wants from this node (None at the root)."""
    edits: list[Edit] = []
    return _rebuild(program, None, visit, edits), edits


def _rebuild(node: Node, expected: Type | None, visit: Visit, edits: list[Edit]) -> Node:
    updates = {}
    for name, wanted in type(node).child_types():
        child = getattr(node, name)
        new = _rebuild(child, wanted, visit, edits)
        if new is not child:
            updates[name] = new
    if updates:
        node = node.model_copy(update=updates)
    new, found = visit(node, expected)
    edits += found
    return new


def numbered(program: Node, pass_name: str, edits: list[Edit]) -> list[Change]:
    """The edits as Changes numbered by their node's step in `program` (post-order, from 1)."""
    steps = step_numbers(program)
    return [Change(pass_name, steps.get(id(e.node), 0), type(e.node).__name__, e.field,
                   e.original, e.replacement, e.reason, e.candidates) for e in edits]


def op_text(value: object) -> str | None:
    """An enum or raw-text argument as text (None stays None)."""
    return None if value is None else str(getattr(value, "value", value))
