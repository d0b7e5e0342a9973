"""Entity-set operations of the executor: find, filter, relate, intersect, unite.

An entity set is ``(ids, facts)``: node ids with duplicates kept (Relate and the filters give
one entry per fact, as the engine does) and the parallel facts, or None. The engine
deduplicates the input of Relate and Filter* through a Python set, so the order of their
output follows string hashing there; ours follows the node numbers.
"""

from __future__ import annotations

from collections.abc import Callable

from koplc.kopl.ir import Node, Relate
from koplc.kopl.kb.model import KB

_EMPTY: tuple = ()


class SetOps:
    """The visitors (`OpInfo.visitor`) of the ops that produce entity sets (mixed into
    `Executor`)."""

    __slots__ = ()
    # Read from `Executor`, which mixes this class in.
    kb: KB
    _entities: Callable[[Node], tuple]

    def visit_FindAll(self, node):
        kb = self.kb
        return (kb.all_nodes if self.options.findall_concepts else kb.entity_nodes), None

    def visit_Find(self, node):
        return self.kb.name_to_nodes.get(node.name, _EMPTY), None

    def visit_FilterConcept(self, node):
        ids, _ = self._entities(node.input)
        kb = self.kb
        named = kb.name_to_nodes.get(node.concept, _EMPTY)
        if len(named) == 1:
            members = kb.concept_members.get(named[0], frozenset())
        else:
            members = frozenset().union(*(kb.concept_members.get(c, ()) for c in named))
        if ids is kb.all_nodes:
            return list(members), None
        if ids is kb.entity_nodes:
            return [n for n in members if n >= kb.n_concepts], None
        return list(members.intersection(ids)), None

    def distinct_in(self, ids, index: dict):
        """The distinct ids that are keys of `index`, as the engine's `set(ids) & set(keys)`."""
        kb = self.kb
        if ids is kb.all_nodes:
            return index
        if ids is kb.entity_nodes:
            first = kb.n_concepts
            return [n for n in index if n >= first]
        if len(ids) == 1:
            return ids if ids[0] in index else _EMPTY
        unique = set(ids)
        if len(unique) <= len(index):
            return [n for n in unique if n in index]
        return [n for n in index if n in unique]

    def visit_filter(self, node):
        """FilterStr/Num/Year/Date: one entry per fact of the key whose value passes the
        literal test (`literal_test`, the one part that depends on the value kind)."""
        ids, _ = self._entities(node.input)
        test = self.literal_test(node, node.value)
        index = self.kb.attr_index.get(node.key)
        out, facts = [], []
        if index:
            for n in self.distinct_in(ids, index):
                for fact in index[n]:
                    if test(fact[1]):
                        out.append(n)
                        facts.append(fact)
        return out, facts

    def visit_qfilter(self, node):
        """QFilterStr/Num/Year/Date: the (entity, fact) pairs with a qualifier value of the key
        that passes the literal test."""
        ids, facts = self.with_facts(node.input)
        test = self.literal_test(node, node.qvalue)
        key = node.qkey
        out, kept = [], []
        for n, fact in zip(ids, facts, strict=True):
            for value in fact[-1].get(key, _EMPTY):
                if test(value):
                    out.append(n)
                    kept.append(fact)
                    break
        return out, kept

    def with_facts(self, node):
        """An entity set with its facts, as QFilter* needs; Relate computes them on request."""
        if node.__class__ is Relate:
            return self.visit_Relate(node, True)
        return self._entities(node)

    def visit_Relate(self, node, with_facts: bool = False):
        """Relate; the facts are computed only when asked (only QFilter* reads them)."""
        kb = self.kb
        if node.direction == "forward":
            objects, fact_table = kb.out_objects, kb.out_facts
        else:  # backward: the pre-check refused any other direction
            objects, fact_table = kb.in_objects, kb.in_facts
        ids, _ = self._entities(node.input)
        table = objects.get(node.relation)
        if table is None:
            return [], ([] if with_facts else None)
        facts = fact_table[node.relation] if with_facts else None
        if len(ids) == 1:
            n = ids[0]
            return table.get(n, _EMPTY), (facts.get(n, _EMPTY) if facts is not None else None)
        out: list[int] = []
        if facts is None:
            for n in self.distinct_in(ids, table):
                out += table[n]
            return out, None
        kept: list[tuple] = []
        for n in self.distinct_in(ids, table):
            out += table[n]
            kept += facts[n]
        return out, kept

    def visit_And(self, node):
        left, _ = self._entities(node.left)
        right, _ = self._entities(node.right)
        return list(set(left).intersection(right)), None

    def visit_Or(self, node):
        left, _ = self._entities(node.left)
        right, _ = self._entities(node.right)
        return list(set(left).union(right)), None
