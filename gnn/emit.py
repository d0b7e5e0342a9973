"""IR emission: the relation (and direction) each step follows along the most probable path.

The path is the most probable walk from the topic to the most probable final entity: Viterbi
over the step distributions, each edge weighted by how much probability its type moved at that
step. Self-loops (staying put) emit nothing, so a 3-step model can
answer a 1-hop question with Find(topic) -> Relate -> What.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from koplc.kopl.errors import KoplcError
from koplc.kopl.execute import execute
from koplc.kopl.ir import Find, Node, QueryName, Relate
from koplc.kopl.types import Direction

CUMULATIVE = 0.95
FLOOR = 0.01


@dataclass
class Prediction:
    """What the GNN and its emitted program answer for one question."""

    topic: str
    top: str | None
    gnn_answers: frozenset[str]
    program: Node
    program_answers: frozenset[str] | None

    @property
    def faithful(self) -> bool:
        return self.program_answers == self.gnn_answers

    @property
    def answers(self) -> frozenset[str]:
        """The program's answers when they agree with the GNN's, else the GNN's."""
        if self.program_answers and self.top in self.program_answers:
            return self.program_answers
        return self.gnn_answers


def thresholded(probs: np.ndarray) -> list[int]:
    """Nodes (not the topic, node 0) taken best first until CUMULATIVE mass, each > FLOOR."""
    order = [int(i) for i in np.argsort(-probs, kind="stable") if i != 0]
    chosen, total = [], 0.0
    for i in order:
        if chosen and (total >= CUMULATIVE * (1 - probs[0]) or probs[i] < FLOOR):
            break
        chosen.append(i)
        total += probs[i]
    return chosen


def decode_path(steps: list[np.ndarray], edges: np.ndarray, end: int) -> list[int]:
    """Edge types along the most probable path from the topic (node 0) to `end` (Viterbi over
    the step distributions, each edge weighted by the mass its type moved at that step);
    steps[0] is the start distribution."""
    src, kinds, dst = edges
    n = len(steps[0])
    score = np.full(n, -np.inf)
    score[0] = 0.0
    back = []
    for k in range(1, len(steps)):
        before, after = steps[k - 1], steps[k]
        mass = np.bincount(kinds, weights=before[src] * after[dst], minlength=kinds.max() + 1)
        candidate = score[src] + np.log(mass[kinds] + 1e-12)
        order = np.argsort(candidate, kind="stable")
        best = np.full(n, -1)
        best[dst[order]] = order  # the last write per node is its best incoming edge
        reached = best >= 0
        score = np.full(n, -np.inf)
        score[reached] = candidate[best[reached]] + np.log(after[reached] + 1e-12)
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


def predict(example, steps: list[np.ndarray], relations: list[str], names: list[str],
            kb) -> Prediction:
    """The GNN's answers and the emitted program's, for one example (steps: start + each)."""
    final = steps[-1]
    chosen = thresholded(final)
    top = chosen[0] if chosen else None
    gnn = frozenset(names[example.nodes[i]] for i in chosen)
    types = decode_path(steps, example.edges, top) if top is not None else []
    program = program_of(example.topic, types, relations)
    try:
        result = execute(program, kb)
        answers = frozenset(result.value) - {example.topic}
    except KoplcError:
        answers = None
    top_name = names[example.nodes[top]] if top is not None else None
    return Prediction(example.topic, top_name, gnn, program, answers)
