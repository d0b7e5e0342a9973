"""What a repair pass may read: the linked question, the KB, and the scorers a front end lends
(the LM's, the search's). Passes never import a front end; they call what they are given."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from koplc.kopl.grounding.mentions import Linked
from koplc.kopl.ir import Node


@dataclass(frozen=True)
class SearchBest:
    """The BYOKG search's best program for the question and how well it fits it."""

    program: Node
    fit: float


@dataclass(frozen=True)
class RepairContext:
    """`linked`: the question and its entities; `grounding`: the grounding changes of the
    program (JSON records); `answered`: whether the program answers; `unanswered`: every program
proposed for the question that ran and found nothing (path repair edits them all); `score`: how well a
    program explains the question (higher is better; path repair picks by it); `fit`: the
    search's fit of a program to the question; `search`: the search's best program; `margin`:
    how much worse than the search's best a program may fit; `switches`: the enabled groups
    ("quack": the question-side grounding repairs, "repair": the others)."""

    linked: Linked
    kb: object
    grounding: tuple[dict, ...] = ()
    answered: bool = True
    unanswered: tuple[Node, ...] = ()
    score: Callable[[Node], float] | None = None
    fit: Callable[[Node], float] | None = None
    search: SearchBest | None = None
    margin: float = 0.05
    switches: frozenset[str] = field(default_factory=lambda: frozenset({"quack", "repair"}))


def change(pass_name: str, op: str, original, replacement, reason: str, **more) -> dict:
    """One change record, in the grounding passes' JSON shape."""
    return {"pass": pass_name, "op": op, "original": original, "replacement": replacement,
            "reason": reason, **more}
