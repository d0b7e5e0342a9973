"""Function repair by answer type: a program's last function must give what the question asks.

A question that asks how many (`koplc.kopl.lexicon.asks_how_many`) wants a number. When the
chosen program ends by listing names ("How many rivers flow through Paris?" written as Find ->
Relate -> QueryName, copied from a "which rivers" demonstration), the same entity set counted
is the program the question asks for. A program that already ends in a number (Count, or
QueryAttr of a quantity: "how many kilograms does it weigh") is left alone. The rule reads
English question words, not any dataset's templates.
"""

from __future__ import annotations

from koplc.kopl.ir import Count, Node
from koplc.kopl.lexicon import asks_how_many


def counted(node: Node, question: str) -> Node | None:
    """The program with its final QueryName replaced by Count when the question asks how many;
    None when nothing is to be changed."""
    if not asks_how_many(question) or node.op != "QueryName":
        return None
    return Count(input=node.children[0])
