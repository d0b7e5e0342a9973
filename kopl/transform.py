"""One post-order traversal that rebuilds a program from rewritten nodes, collecting what the
rewrites report (the grounding passes report `koplc.kopl.grounding.edits.Edit`s)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from koplc.kopl.ir import Node
from koplc.kopl.types import Type

Report = TypeVar("Report")
Visit = Callable[[Node, "Type | None"], tuple[Node, list[Report]]]


def rebuild(program: Node, visit: Visit[Report]) -> tuple[Node, list[Report]]:
    """Rewrite every node bottom-up: children first, then `visit(node, expected)`, where
    `expected` is the type the parent wants from this node (None at the root)."""
    reports: list[Report] = []
    return _rebuild(program, None, visit, reports), reports


def _rebuild(node: Node, expected: Type | None, visit: Visit[Report],
             reports: list[Report]) -> Node:
    updates = {}
    for name, wanted in type(node).child_types():
        child = getattr(node, name)
        new = _rebuild(child, wanted, visit, reports)
        if new is not child:
            updates[name] = new
    if updates:
        node = node.model_copy(update=updates)
    new, found = visit(node, expected)
    reports += found
    return new
