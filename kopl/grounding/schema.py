"""Schema facts a KB implies, for grounding without executing: which concepts sit at each end of
a relation, what type each key's values have, and which unit a quantity key is stated in."""

from __future__ import annotations

from collections import Counter

from koplc.kopl import ir
from koplc.kopl.ir import And, FilterConcept, Find, Node, Or, Relate
from koplc.kopl.kb.memo import per_kb
from koplc.kopl.kb.model import KB, QUALIFIERS
from koplc.kopl.types import Direction
from koplc.kopl.values import QUANTITY

Concepts = frozenset[int]
SHARE = 0.05  # a concept of fewer of a relation end's nodes is noise (titles that are names)
_KEEPS_CONCEPTS = (ir.FilterStr, ir.FilterNum, ir.FilterYear, ir.FilterDate, ir.QFilterStr,
                   ir.QFilterNum, ir.QFilterYear, ir.QFilterDate, ir.ArgMax, ir.ArgMin,
                   ir.TimeConstraint)


@per_kb()
def profile_of(kb: KB) -> KBProfile:
    """The profile of `kb`, computed once per KB object."""
    return KBProfile(kb)


class KBProfile:
    """Relation ends, key types and key units of one KB, each computed on first use."""

    def __init__(self, kb: KB):
        self.kb = kb
        self._ends: dict[tuple[str, str], tuple[Concepts, Concepts]] = {}
        self._units: dict[tuple[str, bool], str | None] = {}
        self._spans: dict[tuple[str, bool], tuple[float, float] | None] = {}

    def concepts(self, nodes) -> Concepts:
        """The concepts the nodes are direct instances of."""
        parents = self.kb.parents
        return frozenset(c for n in nodes for c in parents[n])

    def common_concepts(self, nodes) -> Concepts:
        """The concepts of at least `SHARE` of the nodes: what the nodes mostly are."""
        parents = self.kb.parents
        counts = Counter(c for n in nodes for c in parents[n])
        least = SHARE * len(nodes)
        return frozenset(c for c, count in counts.items() if count >= least)

    def ends(self, relation: str, direction: str) -> tuple[Concepts, Concepts]:
        """(concepts of the input side, concepts of the output side) of following `relation`
        in `direction`; empty sets when the KB has no such records."""
        key = (relation, str(direction))
        if key not in self._ends:
            kb = self.kb
            table = (kb.out_objects if key[1] == "forward" else kb.in_objects).get(relation, {})
            outputs = {o for objects in table.values() for o in objects}
            self._ends[key] = (self.common_concepts(table), self.common_concepts(outputs))
        return self._ends[key]

    def static_concepts(self, node: Node) -> Concepts | None:
        """The concepts of what an entity-set node returns, read from the schema without
        running it; None when unknown."""
        if isinstance(node, Find):
            named = self.kb.name_to_nodes.get(node.name, ())
            return self.concepts(named) or None
        if isinstance(node, FilterConcept):
            return frozenset(self.kb.name_to_nodes.get(node.concept, ())) or None
        if isinstance(node, Relate):
            if node.direction not in (Direction.FORWARD, Direction.BACKWARD):
                return None
            return self.ends(node.relation, node.direction)[1] or None
        if isinstance(node, And | Or):
            left, right = self.static_concepts(node.left), self.static_concepts(node.right)
            if left is None or right is None:
                return left or right
            return left & right if isinstance(node, And) else left | right
        if isinstance(node, _KEEPS_CONCEPTS):
            return self.static_concepts(node.children[0])
        return None

    def key_type(self, key: str) -> str | None:
        """string, quantity or date (dates and years) for a key the KB has, else None."""
        return self.kb.key_type.get(key)

    def unit(self, key: str, qualifier: bool = False) -> str | None:
        """The unit most of the key's quantity values are stated in (None: no quantities)."""
        cache_key = (key, qualifier)
        if cache_key not in self._units:
            counts = Counter(v.unit for v in self._values(key, qualifier) if v.type == QUANTITY)
            self._units[cache_key] = counts.most_common(1)[0][0] if counts else None
        return self._units[cache_key]

    def span(self, key: str, qualifier: bool = False) -> tuple[float, float] | None:
        """The least and greatest of the key's bare-number quantities (no unit), or None."""
        cache_key = (key, qualifier)
        if cache_key not in self._spans:
            numbers = [float(v.value) for v in self._values(key, qualifier)
                       if v.type == QUANTITY and v.unit in ("", "1")]
            self._spans[cache_key] = (min(numbers), max(numbers)) if numbers else None
        return self._spans[cache_key]

    def _values(self, key: str, qualifier: bool):
        kb = self.kb
        if not qualifier:
            for facts in kb.attr_index.get(key, {}).values():
                for fact in facts:
                    yield fact[1]
            return
        for table in (kb.attributes, kb.relations):
            for facts in table:
                for fact in facts:
                    yield from fact[QUALIFIERS].get(key, ())
