"""Function repair by answer type: a program's last function must give what the question asks.

A question that asks "how many" wants a number. When the chosen program ends by listing names
("How many films did Sofia Coppola direct?" written as Find -> Relate -> QueryName, copied from
a "which films" demonstration), the same entity set counted is the program the question asks
for. A program that already ends in a number (Count, or QueryAttr of a quantity: "how many
kilograms does it weigh") is left alone. The rule reads English question words, not any
dataset's templates.
"""

from __future__ import annotations

import re

from koplc.kopl.ir import Count, Node

_HOW_MANY = re.compile(r"\bhow\s+many\b", re.IGNORECASE)


def asks_how_many(question: str) -> bool:
    """Whether the question asks for a count: it says "how many" anywhere.

    >>> asks_how_many("How many films did Sofia Coppola direct?")
    True
    >>> asks_how_many("Tell me how many films Sofia Coppola directed")
    True
    >>> asks_how_many("which films did Sofia Coppola direct")
    False
    """
    return _HOW_MANY.search(question) is not None


def counted(node: Node, question: str) -> Node | None:
    """The program with its final QueryName replaced by Count when the question asks how many;
    None when nothing is to be changed."""
    if not asks_how_many(question) or node.op != "QueryName":
        return None
    return Count(input=node.children[0])
