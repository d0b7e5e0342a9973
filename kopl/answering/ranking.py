"""Ranking a chain program's answer set: answers reached without passing through the topic
again come first.

A program `Find(topic) -> Relate... -> QueryName` answers a set, and Hits@1 scores its first
member. An answer the chain reaches only by walking back through its own topic ("the books
that share an illustrator with the books of X's author" reaching X's own author's books through
X) is a poorer answer than one it reaches along a path that leaves the topic behind: the
papers of Ada's coauthors are not Ada's own. This rule is about paths, not about any dataset;
on MetaQA it is also how the 3-hop gold sets were made. The set itself is not changed.
"""

from __future__ import annotations

from koplc.kopl.grounding.path_edits import Hop
from koplc.kopl.grounding.path_edits import chain_of as relation_chain
from koplc.kopl.ir import Node, QueryName


def chain_of(node: Node) -> tuple[str, list[Hop]] | None:
    """The topic and the (relation, direction) hops of a `Find -> Relate* -> QueryName`
    program, or None for any other shape (the chain as relation-path repair reads it)."""
    chain = relation_chain(node)
    if chain is None or chain[2] is not QueryName:
        return None
    return chain[0], chain[1]


def topic_avoiding(kb, topic: str, hops: list[Hop]) -> set[str]:
    """The names the hops reach from the nodes named `topic`, never entering them again."""
    start = set(kb.name_to_nodes.get(topic, ()))
    here = set(start)
    for relation, direction in hops:
        table = (kb.out_objects if direction == "forward" else kb.in_objects).get(relation, {})
        here = {m for n in here for m in table.get(n, ())} - start
    return {kb.names[n] for n in here}


def topic_last(node: Node | None, kb, answers: list[str]) -> list[str]:
    """`answers` reordered (stably) so that those the chain reaches without returning to its
    topic come first; unchanged for a program that is not a chain of two or more hops."""
    chain = chain_of(node) if node is not None else None
    if chain is None or len(chain[1]) < 2:
        return answers
    kept = topic_avoiding(kb, *chain)
    return [a for a in answers if a in kept] + [a for a in answers if a not in kept]
