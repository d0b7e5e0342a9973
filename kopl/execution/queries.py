"""Query operations of the executor: names, counts, attribute and qualifier values, relation
labels, Select* and Verify*, with the engine's semantics (majority unit, first-seen unit on a
tie, yes / no / not sure)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from koplc.kopl.ir import Node
from koplc.kopl.kb.model import KB
from koplc.kopl.types import AmongOp, BetweenOp
from koplc.kopl.values import QUANTITY, Value

_EMPTY: tuple = ()
K = TypeVar("K")  # what a quantity belongs to: a node id (executor), a name (SPARQL rows)
# Enum members read once: attribute access on an Enum class is slow in Python 3.11.
LESS, SMALLEST = BetweenOp.LESS, AmongOp.SMALLEST


class QueryOps:
    """The visitors (`OpInfo.visitor`) of the ops that answer (mixed into `Executor`)."""

    __slots__ = ()
    # Read from `Executor`, which mixes this class in.
    kb: KB
    convert: Callable[[Value, Value], Value | None] | None
    error: Callable[[Node, str], Exception]
    test: Callable[[Node, str, str, str], Callable[[Value], bool]]

    def visit_QueryName(self, node):
        ids, _ = self._entities(node.input)
        names = self.kb.names
        return [names[n] for n in ids]

    def visit_Count(self, node):
        ids, _ = self._entities(node.input)
        return len(ids)

    def visit_QueryAttr(self, node):
        ids, _ = self._entities(node.input)
        index = self.kb.attr_index.get(node.key)
        if not index:
            return []
        get = index.get
        return [fact[1] for n in ids for fact in get(n, _EMPTY)]

    def key_test(self, node, key: str, text: str, what: str):
        """The `=` test of a literal read with the type the KB gives `key` (the engine's
        key_type lookup, which raises for a key the KB lacks)."""
        kind = self.kb.key_type.get(key)
        if kind is None:
            raise self.error(node, f"{what} {key!r} is not in the KB, so {text!r} has no "
                             "type (the engine raises KeyError)")
        return self.test(node, text, kind, "=")

    def visit_QueryAttrUnderCondition(self, node):
        ids, _ = self._entities(node.input)
        test = self.key_test(node, node.qkey, node.qvalue, "qualifier key")
        index = self.kb.attr_index.get(node.key)
        if not index:
            return []
        qkey, out = node.qkey, []
        for n in ids:
            for fact in index.get(n, _EMPTY):
                for q in fact[2].get(qkey, _EMPTY):
                    if test(q):
                        out.append(fact[1])
                        break
        return out

    def visit_QueryAttrQualifier(self, node):
        ids, _ = self._entities(node.input)
        test = self.key_test(node, node.key, node.value, "attribute key")
        index = self.kb.attr_index.get(node.key)
        if not index:
            return []
        qkey, out = node.qkey, []
        for n in ids:
            for fact in index.get(n, _EMPTY):
                if test(fact[1]):
                    out += fact[2].get(qkey, _EMPTY)
        return out

    def forward_facts(self, left, right):
        """Forward facts from each left id to each right id, in the engine's pair order."""
        pairs = self.kb.forward_pairs
        positions = None
        for a in left:
            by_object = pairs.get(a)
            if not by_object:
                continue
            if len(right) <= 4 * len(by_object):
                for b in right:
                    facts = by_object.get(b)
                    if facts:
                        yield from facts
                continue
            if positions is None:
                positions = {}
                for i, b in enumerate(right):
                    positions.setdefault(b, []).append(i)
            hits = sorted((i, o) for o in by_object for i in positions.get(o, _EMPTY))
            for _, o in hits:
                yield from by_object[o]

    def visit_QueryRelation(self, node):
        left, _ = self._entities(node.left)
        right, _ = self._entities(node.right)
        return [fact[1] for fact in self.forward_facts(left, right)]

    def visit_QueryRelationQualifier(self, node):
        left, _ = self._entities(node.left)
        right, _ = self._entities(node.right)
        relation, qkey, out = node.relation, node.qkey, []
        for fact in self.forward_facts(left, right):
            if fact[1] == relation:
                out += fact[-1].get(qkey, _EMPTY)
        return out

    def quantities(self, node, ids, key: str) -> list[tuple[int, float]]:
        """(id, number) of the key's quantities in the majority unit; raises when there are
        none, as the engine does."""
        index = self.kb.attr_index.get(key)
        found: list[tuple[int, Value]] = []
        if index:
            get = index.get
            for n in ids:  # plain loops: this runs for every Select*
                for fact in get(n, _EMPTY):
                    if fact[1].type == QUANTITY:
                        found.append((n, fact[1]))
        if not found:
            raise self.error(node, f"no quantity values of {key!r} to compare (the engine "
                             "raises IndexError)")
        return self.in_majority_unit(found)

    def in_majority_unit(self, values: list[tuple[int, Value]]) -> list[tuple[int, float]]:
        return in_majority_unit(values, self.convert)

    def visit_SelectBetween(self, node):
        left, _ = self._entities(node.left)
        right, _ = self._entities(node.right)
        op = node.comparator
        candidates = self.quantities(node, [*left, *right], node.key)
        best, best_number = candidates[0]
        for n, number in candidates:
            # the engine sorts stably: less takes the first minimum, greater the last maximum
            if (number < best_number) if op == LESS else (number >= best_number):
                best, best_number = n, number
        return self.kb.names[best]

    def visit_SelectAmong(self, node):
        ids, _ = self._entities(node.input)
        op = node.comparator
        candidates = self.quantities(node, dict.fromkeys(ids), node.key)
        extreme = candidates[0][1]
        for _, number in candidates:
            if (number < extreme) if op == SMALLEST else (number > extreme):
                extreme = number
        names, picked = self.kb.names, {}
        for n, number in candidates:
            if number == extreme:
                picked[names[n]] = None
        return list(picked)

    def visit_verify(self, node):
        """VerifyStr/Num/Year/Date: yes when every input value passes the literal test, no
        when none does, not sure otherwise."""
        values = self._values(node.input)
        test = self.literal_test(node, node.value)
        matched = 0
        for v in values:  # every value is compared, as in the engine (which may raise)
            if test(v):
                matched += 1
        if matched == 0:
            return "no"
        return "yes" if matched == len(values) else "not sure"


def in_majority_unit(values: list[tuple[K, Value]],
                     convert: Callable[[Value, Value], Value | None] | None = None
                     ) -> list[tuple[K, float]]:
    """(key, number) of the quantities in the most frequent unit (the first seen wins a tie);
    the others are dropped, or converted to it with `convert` (unit conversion)."""
    counts: dict[str | None, int] = {}
    numbers = []
    for n, v in values:
        if v.type == QUANTITY:
            counts[v.unit] = counts.get(v.unit, 0) + 1
            numbers.append((n, v.value))
    if len(counts) <= 1:
        return numbers
    unit = max(counts, key=counts.__getitem__)
    if convert is None:
        return [(n, v.value) for n, v in values if v.type == QUANTITY and v.unit == unit]
    target = Value(QUANTITY, 0.0, unit)
    converted = [(n, convert(v, target)) for n, v in values if v.type == QUANTITY]
    return [(n, c.value) for n, c in converted if c is not None]
