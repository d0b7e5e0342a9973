"""Running partial programs while grounding: the native executor, remembering every result.

Grounding tries many candidates for one step on top of the same grounded inputs; remembering
each node's result (by node identity) means a candidate costs one operation, not a re-run of
the whole partial program.
"""

from __future__ import annotations

from typing import Any

from koplc.kopl.answer import ENTITY_TYPES
from koplc.kopl.errors import ExecutionError
from koplc.kopl.execution.executor import ExecOptions, Executor, StepFailure
from koplc.kopl.ir import Node
from koplc.kopl.kb.model import KB
from koplc.kopl.types import Type

_VALUE_TYPES = (Type.VALUES, Type.QUALIFIER_VALUES)


class MemoExecutor(Executor):
    """An executor that remembers the result of every entity- or value-valued node it ran."""

    __slots__ = ("memo",)

    def __init__(self, kb: KB, options: ExecOptions):
        super().__init__(kb, options)
        # The node with its result: what `_entities` or `_values` gave for it.
        self.memo: dict[int, tuple[Node, Any]] = {}

    def _entities(self, node: Node) -> tuple:
        hit = self.memo.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        result = super()._entities(node)
        self.memo[id(node)] = (node, result)
        return result

    def _values(self, node: Node):
        hit = self.memo.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        result = super()._values(node)
        self.memo[id(node)] = (node, result)
        return result

    def gives_something(self, node: Node) -> bool:
        """Whether the node, run on the KB, gives a non-empty result (False when it fails)."""
        try:
            if node.output in ENTITY_TYPES:
                return len(self._entities(node)[0]) > 0
            if node.output in _VALUE_TYPES:
                return len(self._values(node)) > 0
            return bool(self.run(node).items())
        except (StepFailure, ExecutionError):
            return False

    def size(self, node: Node) -> int | None:
        """How many entities an already-run entity node gave, or None."""
        hit = self.memo.get(id(node))
        return len(hit[1][0]) if hit is not None and node.output in ENTITY_TYPES else None
