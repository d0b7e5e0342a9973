"""IR emission: the relation (and direction) each step follows along the most probable path.

Each reasoning step weights every edge type (the self-loop included); a node's score is the
weighted mass its incoming edges carry, capped at 1. The GNN's answers are the nodes scoring
at least RATIO of the best node's score (mass lost to edge types a node lacks scales all of a
question's scores alike). The path is the most probable walk from the topic to the best answer (Viterbi,
each step's edge weighted by that step's weight for its type), so when every step's weighting
is peaked the emitted program computes exactly the GNN's answer set. Self-loops (staying put)
emit nothing, so a 3-step model answers a 1-hop question with Find(topic) -> Relate -> What.

A chain never passes through its topic again (the network's `no_return`; MetaQA's 3-hop gold sets
follow this rule exactly): the path decoded here enters the topic only by its self-loop, and the
front end's answer is the chain walked under the same rule on the whole KB (`chain_answers`).
KoPL has no set difference, so the emitted program itself computes the plain chain; its answers
(`program_answers`) are reported as they are, and `chain_answers` are a subset of them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from koplc.kopl.answering.ranking import chain_of, topic_avoiding
from koplc.kopl.errors import KoplcError
from koplc.kopl.execution.executor import execute
from koplc.kopl.ir import Find, Node, QueryName, Relate
from koplc.kopl.types import Direction

RATIO = 0.5


@dataclass
class Prediction:
    """What the GNN and its emitted program answer for one question."""

    topic: str
    top: str | None
    gnn_answers: frozenset[str]
    program: Node
    program_answers: frozenset[str] | None
    ranked: tuple[str, ...] = ()  # the GNN's answers, highest score first
    chain_answers: frozenset[str] | None = None  # the program's chain, never back via the topic

    @property
    def faithful(self) -> bool:
        return self.program_answers == self.gnn_answers

    @property
    def answers(self) -> frozenset[str]:
        """The program's chain (walked without returning to the topic) when it holds the GNN's
        best answer, else the GNN's answers."""
        chain = self.program_answers if self.chain_answers is None else self.chain_answers
        if chain and self.top in chain:
            return chain
        return self.gnn_answers


def thresholded(scores: np.ndarray) -> list[int]:
    """Nodes (not the topic, node 0) scoring at least RATIO of the best one, best first (just
    the first when no node scores above zero)."""
    order = [int(i) for i in np.argsort(-scores, kind="stable") if i != 0]
    if not order or scores[order[0]] <= 0:
        return order[:1]
    return [i for i in order if scores[i] >= RATIO * scores[order[0]]]


def decode_path(weights: list[np.ndarray], edges: np.ndarray, end: int) -> list[int]:
    """Edge types along the most probable path from the topic (node 0) to `end`: Viterbi over
    the steps, an edge of type t scoring weights[k][t] at step k; no edge but the topic's
    self-loop enters the topic."""
    src, kinds, dst = edges
    open_edge = (dst != 0) | (src == 0)
    src, kinds, dst = src[open_edge], kinds[open_edge], dst[open_edge]
    n = int(max(edges[0].max(), edges[2].max(), end)) + 1
    score = np.full(n, -np.inf)
    score[0] = 0.0
    back = []
    for step in weights:
        candidate = score[src] + np.log(step[kinds] + 1e-12)
        order = np.argsort(candidate, kind="stable")
        best = np.full(n, -1)
        best[dst[order]] = order  # the last write per node is its best incoming edge
        reached = best >= 0
        score = np.full(n, -np.inf)
        score[reached] = candidate[best[reached]]
        back.append(best)
    current = end if np.isfinite(score[end]) else int(np.argmax(score))
    types: list[int] = []
    for best in reversed(back):
        edge = best[current]
        types.append(int(kinds[edge]))
        current = int(src[edge])
    return types[::-1]


def program_of(topic: str, types: list[int], relations: list[str]) -> Node:
    """Find(topic) -> Relate per non-loop edge type -> QueryName."""
    node: Node = Find(name=topic)
    n_rel = len(relations)
    for kind in types:
        if kind < n_rel:
            node = Relate(input=node, relation=relations[kind], direction=Direction.FORWARD)
        elif kind < 2 * n_rel:
            node = Relate(input=node, relation=relations[kind - n_rel],
                          direction=Direction.BACKWARD)
    return QueryName(input=node)


def walk(kb, program: Node, topic: str) -> frozenset[str]:
    """The names the program's chain reaches from `topic` on the whole KB, never entering the
    topic again (the ranking rule every front end shares)."""
    chain = chain_of(program)
    if chain is None:
        return frozenset()
    return frozenset(topic_avoiding(kb, *chain)) - {topic}


def predict(example, steps: list[np.ndarray], weights: list[np.ndarray],
            relations: list[str], names: list[str], kb, graph=None) -> Prediction:
    """The GNN's answers and the emitted program's, for one example (steps: the node scores
    at the start and after each step; weights: each step's edge-type weights); with the KB's
    `graph`, also the program's chain walked without returning to the topic."""
    chosen = thresholded(steps[-1])
    top = chosen[0] if chosen else None
    ranked = tuple(names[example.nodes[i]] for i in chosen)
    types = decode_path(weights, example.edges, top) if top is not None else []
    program = program_of(example.topic, types, relations)
    try:
        result = execute(program, kb)
        answers = frozenset(result.value) - {example.topic}
    except KoplcError:
        answers = None
    top_name = names[example.nodes[top]] if top is not None else None
    chain = walk(kb, program, example.topic) if graph is not None else None
    return Prediction(example.topic, top_name, frozenset(ranked), program, answers, ranked, chain)
