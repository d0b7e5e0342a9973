"""Function repair by answer type: a "how many" question wants a number, so a program that ends
by listing names (copied from a "which" demonstration) counts them instead. A program that
already ends in a number (Count, or an attribute with a unit) is left alone."""

from __future__ import annotations

from koplc.kopl.answering.repairs.context import RepairContext, change
from koplc.kopl.ir import Count, Node
from koplc.kopl.lexicon import asks_how_many


def count_names(program: Node, ctx: RepairContext) -> tuple[Node, list[dict]]:
    """The program with its final QueryName replaced by Count when the question asks how
    many."""
    if not ctx.answered or program.op != "QueryName" or not asks_how_many(ctx.linked.question):
        return program, []
    return Count(input=program.children[0]), [change(
        "answer-type", "QueryName", "QueryName", "Count", "the question asks how many")]
