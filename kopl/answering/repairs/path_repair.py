"""Relation-path repair: a program that ran and found nothing gives way to the chain one edit
away (a relation swapped, a hop dropped or added, a direction flipped) that the KB answers and
that explains the question best (the context's scorer)."""

from __future__ import annotations

from koplc.kopl.answering.repairs.context import RepairContext, change
from koplc.kopl.grounding.path_edits import Neighbour, neighbours
from koplc.kopl.ir import Node


def repair_path(program: Node, ctx: RepairContext) -> tuple[Node, list[dict]]:
    """The best-scored answering neighbour of the unanswered programs (`program` and the
    context's `unanswered`); unchanged when the program answers."""
    if ctx.answered or ctx.score is None:
        return program, []
    found: dict[Node, Neighbour] = {}
    for tried in dict.fromkeys((program, *ctx.unanswered)):
        for n in neighbours(tried, ctx.kb):
            found.setdefault(n.program, n)
    if not found:
        return program, []
    score = ctx.score
    best = max(found.values(), key=lambda n: score(n.program))  # first of equals: edits' order
    return best.program, [change("path-repair", "Relate", None, None, best.edit,
                                 edit=best.edit)]
