"""Relation-path repair: the programs one edit away from a relation chain that the KB answers.

A chain is ``Find(e) -> Relate(r1, d1) -> ... -> Relate(rn, dn) -> QueryName | Count``. The
edits are the mistakes a small model makes on a question phrased unlike its demonstrations: a
hop dropped (insert one; mid-chain, maybe flipping the next hop's direction), a hop added
(delete one, maybe replacing another too), a wrong relation or direction (substitute one),
hops in the wrong order (swap two neighbours, or read them from the other end). Every neighbour
is run on the KB; only those that answer something besides the question's own entities are
kept. Which of them the question means is the caller's to decide (a scorer: the LM's
likelihood, inverse consistency).
"""

from __future__ import annotations

from dataclasses import dataclass

from koplc.kopl.errors import KoplcError
from koplc.kopl.execution.executor import DEFAULT, execute
from koplc.kopl.ir import Count, Find, Node, QueryName, Relate
from koplc.kopl.types import Direction, Type

Hop = tuple[str, Direction]


@dataclass(frozen=True)
class Neighbour:
    """A repaired program, the edit that made it, and what it answers."""

    program: Node
    edit: str
    answer: tuple[str, ...]


def chain_of(program: Node) -> tuple[str, list[Hop], type] | None:
    """(topic, hops, final op) when `program` is a relation chain, else None."""
    if not isinstance(program, QueryName | Count):
        return None
    hops: list[Hop] = []
    node = program.input
    while isinstance(node, Relate):
        if node.direction is None or not isinstance(node.direction, Direction):
            return None
        hops.append((node.relation, node.direction))
        node = node.input
    if not isinstance(node, Find):
        return None
    return node.name, hops[::-1], type(program)


def build(topic: str, hops: list[Hop], final: type) -> Node:
    """The chain program for a topic, hops and final op."""
    node: Node = Find(name=topic)
    for relation, direction in hops:
        node = Relate(input=node, relation=relation, direction=direction)
    return final(input=node)


def edits(hops: list[Hop], relations: list[str]) -> list[tuple[str, list[Hop]]]:
    """Every hop list one edit away, and those with one hop deleted and another replaced (a
    hop added is the commonest slip, often with the wrong relation beside it), each with a
    description of the edit."""
    options = [(r, d) for r in relations for d in (Direction.FORWARD, Direction.BACKWARD)]
    out: list[tuple[str, list[Hop]]] = []
    for i in range(len(hops) + 1):
        out += [(f"insert {_text(h)} at {i + 1}", hops[:i] + [h] + hops[i:]) for h in options]
        if 0 < i < len(hops):
            # A hop dropped mid-chain leaves the next hop standing at the wrong end (a person
            # where a book should be), so the model wrote it the other way round.
            after = _flipped(hops[i])
            out += [(f"insert {_text(h)} at {i + 1}, flip {_text(hops[i])}",
                     hops[:i] + [h, after] + hops[i + 1:]) for h in options]
    for i, old in enumerate(hops):
        if len(hops) > 1:
            shorter = hops[:i] + hops[i + 1:]
            out.append((f"delete {_text(old)}", shorter))
            out += [(f"delete {_text(old)}, replace {_text(kept)} by {_text(h)}",
                     shorter[:j] + [h] + shorter[j + 1:])
                    for j, kept in enumerate(shorter) for h in options if h != kept]
        out += [(f"replace {_text(old)} by {_text(h)}", hops[:i] + [h] + hops[i + 1:])
                for h in options if h != old]
        if i + 1 < len(hops) and hops[i + 1] != old:
            pair = f"{_text(old)} and {_text(hops[i + 1])}"
            out.append((f"swap {pair}", hops[:i] + [hops[i + 1], old] + hops[i + 2:]))
            # the pair read from its other end: reversed, each direction flipped
            turned = [_flipped(hops[i + 1]), _flipped(old)]
            out.append((f"turn {pair} around", hops[:i] + turned + hops[i + 2:]))
    return out


def spine(program: Node) -> Node:
    """`program` without the joins of a branch and a bare Find of the entity that branch
    starts from, and named when it then ends in entities.

    A model that repeats its Find line writes such joins: under the grammar, the extra Finds
    must be used, so an And or a QueryRelation takes them (X And Find(e) is at most {e}), around
    the chain the question means.

    >>> from koplc.kopl.syntax import steps as steps_syntax
    >>> steps = "Step 1: Find(A)\\nStep 2: Find(A)\\nStep 3: Relate(r, forward)\\nStep 4: And()\\nDone"
    >>> print(steps_syntax.print_program(spine(steps_syntax.parse(steps).program)))
    Step 1: Find(A)
    Step 2: Relate(r, forward)
    Step 3: QueryName()
    Done
    """
    def visit(node: Node) -> Node:
        children = {name: visit(getattr(node, name)) for name in node.child_fields()}
        if len(children) == 2 and node.child_types()[0][1] == Type.ENTITIES:
            left, right = children.values()
            if isinstance(right, Find) and right.name in _finds(left):
                return left
            if isinstance(left, Find) and left.name in _finds(right):
                return right
        return node.model_copy(update=children) if children else node

    simpler = visit(program)
    if simpler.output in (Type.ENTITIES, Type.ENTITIES_WITH_FACTS) and simpler != program:
        simpler = QueryName(input=simpler)
    return simpler


def _finds(node: Node) -> set[str]:
    return {n.name for _, n in node.walk() if isinstance(n, Find)}


def neighbours(program: Node, kb) -> list[Neighbour]:
    """The chain programs one edit from `program` (or from its spine, and the spine itself)
    whose answers are not only its topic."""
    simpler = spine(program)
    chain = chain_of(simpler)
    if chain is None:
        return []
    topic, hops, final = chain
    found: list[Neighbour] = []
    # The spine itself is a candidate when it differs from the program; else it is no edit.
    own = [("drop the joins of a bare Find", hops)] if simpler != program else []
    seen: set[tuple[Hop, ...]] = set() if own else {tuple(hops)}
    for edit, new in own + edits(hops, sorted(kb.relation_names)):
        if tuple(new) in seen:
            continue
        seen.add(tuple(new))
        candidate = build(topic, new, final)
        try:
            answer = tuple(str(v) for v in execute(candidate, kb, DEFAULT).items())
        except KoplcError:
            continue
        if answer and set(answer) - {topic} and answer != ("0",):
            found.append(Neighbour(candidate, edit, answer))
    return found


def _flipped(hop: Hop) -> Hop:
    other = Direction.BACKWARD if hop[1] == Direction.FORWARD else Direction.FORWARD
    return hop[0], other


def _text(hop: Hop) -> str:
    return f"{hop[0]} {hop[1].value}"
