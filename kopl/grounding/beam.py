"""Beam search over the groundings of a program, step by step in post-order.

A state is a partial grounding: the rebuilt node of every step so far, the sum of the chosen
candidates' scores, and how many steps gave nothing when run. States rank by (empty steps,
-score): a grounding that keeps the partial program non-empty beats any that does not. Options
are expanded best-first and run lazily: running can only add empty steps, so once `width`
states rank at or above the next option's optimistic key, the rest are not run at all.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field

from koplc.kopl.ir import Node

Path = tuple[int, ...]


@dataclass(frozen=True)
class Pick:
    """What one option chose for one field, with what it passed over, for provenance."""

    field: str
    written: str | None
    chosen: str
    score: float
    reason: str
    alternatives: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class Option:
    """One way to ground a step: the rebuilt node, its score and its picks."""

    node: Node
    score: float
    picks: tuple[Pick, ...] = ()
    edits: tuple = ()


@dataclass
class State:
    """A partial grounding of the program."""

    score: float = 0.0
    empties: int = 0
    built: dict[Path, Node] = field(default_factory=dict)
    choices: list[tuple[Path, Option]] = field(default_factory=list)
    passed_over: list[tuple[Path, Option]] = field(default_factory=list)

    def key(self) -> tuple[int, float]:
        """The rank of the state: fewer empty steps first, then the higher score."""
        return self.empties, -self.score


Expand = Callable[[State, Path, Node], list[Option]]
Run = Callable[[Node], bool]


def search(program: Node, expand: Expand, run: Run | None, width: int) -> State:
    """The best full grounding; `run` (None: no execution guidance) says whether a rebuilt
    node gives anything on the KB. The input of an Exists may give nothing: that answers
    "no" ("is Han Solo from Tatooine": his homeworlds and Tatooine do not meet)."""
    states = [State()]
    asked = {(*path, 0) for path, node in program.walk() if node.op == "Exists"}
    for path, node in program.walk():
        states = _step(states, path, node, expand, None if path in asked else run, width)
    return states[0]


def _step(states: list[State], path: Path, node: Node, expand: Expand, run: Run | None,
          width: int) -> list[State]:
    queue = []
    for s_index, state in enumerate(states):
        rebuilt = _with_children(node, path, state)
        for o_index, option in enumerate(expand(state, path, rebuilt)):
            key = (state.empties, -(state.score + option.score), s_index, o_index)
            queue.append((key, state, option))
    heapq.heapify(queue)
    done: list[tuple[tuple, State]] = []
    failed: list[tuple[Path, Option]] = []
    while queue:
        if len(done) >= width and done[width - 1][0] <= queue[0][0][:2]:
            break
        (empties, negative, *_), state, option = heapq.heappop(queue)
        empty = run is not None and not run(option.node)
        if empty:
            failed.append((path, option))
        new = State(-negative, empties + empty, {**state.built, path: option.node},
                    [*state.choices, (path, option)], state.passed_over)
        done.append((new.key(), new))
        done.sort(key=lambda pair: pair[0])
    for _, state in done:
        state.passed_over = [*state.passed_over, *failed]
    return [state for _, state in done[:width]]


def _with_children(node: Node, path: Path, state: State) -> Node:
    updates = {name: state.built[(*path, i)] for i, name in enumerate(type(node).child_fields())}
    if all(updates[name] is getattr(node, name) for name in updates):
        return node
    return node.model_copy(update=updates)
