"""How errors, diagnostics and grounding changes name a step of a program: its number in the
post-order step list (the KQA Pro format's order, from 1) and its op, ``step 3 (Relate)``."""

from __future__ import annotations

from koplc.kopl.ir import Node


def step_numbers(program: Node) -> dict[int, int]:
    """The step number of each node of `program`, keyed by the node's id.

    >>> from koplc.kopl.ir import Count, Find
    >>> program = Count(input=Find(name="Akron"))
    >>> step_numbers(program)[id(program)]
    2
    """
    return {id(node): number for number, (_, node) in enumerate(program.walk(), start=1)}


def step_label(number: int | None, node: Node) -> str:
    """``step N (Op)``, or only the op's name when the step has no number."""
    name = type(node).__name__
    return f"step {number} ({name})" if number else name


def label_in(program: Node, node: Node) -> str:
    """The label of `node`, found by identity among the steps of `program`."""
    number = next((i for i, (_, n) in enumerate(program.walk(), start=1) if n is node), None)
    return step_label(number, node)
