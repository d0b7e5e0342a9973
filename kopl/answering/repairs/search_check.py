"""The search's check on a proposed program: when no program answers, or the proposed one fits
the question more than `margin` worse than the BYOKG search's best, the search's best runs
instead (a small model adds a hop to a program it was shown, or stops at a relation)."""

from __future__ import annotations

from koplc.kopl.answering.repairs.context import RepairContext, change
from koplc.kopl.ir import Node


def defer_to_search(program: Node, ctx: RepairContext) -> tuple[Node, list[dict]]:
    """The search's best program in place of a worse-fitting or unanswered one."""
    best = ctx.search
    if best is None:
        return program, []
    if ctx.answered and ctx.fit is not None and ctx.fit(program) >= best.fit - ctx.margin:
        return program, []
    return best.program, [change("search", "program", None, None,
                                 "the search's best program fits the question better")]
