"""The changes a grounding pass records while it rebuilds a program (`Edit`, naming the node it
landed on) and their numbering against the program the pass returns (`Change`)."""

from __future__ import annotations

from dataclasses import dataclass

from koplc.kopl.grounding.context import Change, Scored
from koplc.kopl.ir import Node
from koplc.kopl.step_names import step_numbers


@dataclass(frozen=True)
class Edit:
    """A change not yet numbered: it names the node of the new program that it landed on."""

    node: Node
    field: str
    original: str | None
    replacement: str
    reason: str
    candidates: tuple[Scored, ...] = ()


def numbered(program: Node, pass_name: str, edits: list[Edit]) -> list[Change]:
    """The edits as Changes numbered by their node's step in `program` (post-order, from 1)."""
    steps = step_numbers(program)
    return [Change(pass_name, steps.get(id(e.node), 0), type(e.node).__name__, e.field,
                   e.original, e.replacement, e.reason, e.candidates) for e in edits]


def op_text(value: object) -> str | None:
    """An enum or raw-text argument as text (None stays None)."""
    return None if value is None else str(getattr(value, "value", value))
