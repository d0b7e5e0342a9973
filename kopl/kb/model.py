"""The knowledge-base model: nodes, typed facts with qualifiers, and the indexes execution needs.

Concepts and entities are both *nodes*, numbered with small integers in the official engine's
order (concepts first, then entities, each in source order), because the engine treats concept
nodes like entities: `Find` finds them by name and `FindAll` returns them. A relation fact is a
record stored on one node with a direction, as in KoPL KB JSON; a backward record exists only if
the source stores it (or, as the engine does, when the object is a concept). Loaders feed a
`KBBuilder`; `KBBuilder.build` resolves ids, checks them and computes every index once.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TypeVar

from koplc.kopl.errors import KBError
from koplc.kopl.values import QUANTITY, STRING, Value

_K = TypeVar("_K")
_T = TypeVar("_T")

Qualifiers = dict[str, tuple[Value, ...]]
NO_QUALIFIERS: Qualifiers = {}


# Facts are plain tuples, which pickle and unpickle without Python-level constructors (the
# binary cache loads several times faster than with named tuples). The qualifiers are always
# last, so QFilter* reads `fact[-1]` from either kind.
AttrFact = tuple  # (key: str, value: Value, qualifiers: Qualifiers)
RelFact = tuple  # (subject: int, relation: str, direction: str, object: int, qualifiers)
KEY, VALUE = 0, 1
SUBJECT, RELATION, DIRECTION, OBJECT = 0, 1, 2, 3
QUALIFIERS = -1


Adjacency = dict[str, dict[int, tuple]]


@dataclass(eq=False)
class KB:
    """A loaded KB. Node ids are ints; `ids[n]` is the source id and `names[n]` the name."""

    ids: list[str]
    names: list[str]
    n_concepts: int
    parents: list[tuple[int, ...]]
    attributes: list[tuple[AttrFact, ...]]
    relations: list[tuple[RelFact, ...]]
    source: str = ""
    # Where this KB is a fragment of a larger one: that KB's schema (kopl.kb.access.WholeSchema).
    whole: object | None = None
    # ...and the ids of its entities whose own facts it holds (the others reached its edge).
    expanded: frozenset[str] | None = None
    # Indexes, filled by `index()`.
    id_to_node: dict[str, int] = field(default_factory=dict)
    name_to_nodes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    concept_members: dict[int, frozenset[int]] = field(default_factory=dict)
    all_nodes: tuple[int, ...] = ()
    entity_nodes: tuple[int, ...] = ()
    attr_index: dict[str, dict[int, tuple[AttrFact, ...]]] = field(default_factory=dict)
    out_objects: Adjacency = field(default_factory=dict)
    in_objects: Adjacency = field(default_factory=dict)
    out_facts: Adjacency = field(default_factory=dict)
    in_facts: Adjacency = field(default_factory=dict)
    forward_pairs: dict[int, dict[int, tuple[RelFact, ...]]] = field(default_factory=dict)
    key_type: dict[str, str] = field(default_factory=dict)

    def __getstate__(self) -> dict:
        # What `koplc.kopl.kb.memo.per_kb` worked out from it is no part of the KB.
        return {k: v for k, v in vars(self).items() if k != "_per_kb"}

    def __repr__(self) -> str:
        return (f"KB({self.source or '<memory>'!r}: {self.n_concepts} concepts, "
                f"{len(self.ids) - self.n_concepts} entities)")

    def index(self) -> KB:
        """Compute every index from the node tables; returns self."""
        # One int object per node, shared by every index: smaller, and dict probes and
        # comparisons between node ids hit the identity fast path.
        if len(self.all_nodes) != len(self.ids):
            self.all_nodes = tuple(range(len(self.ids)))
        canon = self.all_nodes
        self.id_to_node = {eid: canon[n] for n, eid in enumerate(self.ids)}
        names: dict[str, list[int]] = {}
        for n, name in enumerate(self.names):
            names.setdefault(name, []).append(canon[n])
        self.name_to_nodes = {name: tuple(nodes) for name, nodes in names.items()}
        self.entity_nodes = canon[self.n_concepts:]
        self._index_concepts()
        self._index_facts()
        return self

    def _index_concepts(self) -> None:
        members: dict[int, set[int]] = {}
        for n in self.all_nodes:
            for c in self.ancestors(n):
                members.setdefault(c, set()).add(n)
        self.concept_members = {c: frozenset(ns) for c, ns in members.items()}

    def ancestors(self, node: int) -> set[int]:
        """Every node reachable through one or more isA links (the engine's get_all_concepts)."""
        seen: set[int] = set()
        queue = deque(c for c in self.parents[node] if c != node)
        while queue:
            c = queue.popleft()
            if c not in seen:
                seen.add(c)
                queue.extend(self.parents[c])
        return seen

    def _index_facts(self) -> None:
        attrs: dict[str, dict[int, list]] = {}
        out_objects: dict[str, dict[int, list]] = {}
        in_objects: dict[str, dict[int, list]] = {}
        out_facts: dict[str, dict[int, list]] = {}
        in_facts: dict[str, dict[int, list]] = {}
        pairs: dict[int, dict[int, list]] = {}
        key_type: dict[str, str] = {}
        for n in self.all_nodes:
            for fact in self.attributes[n]:
                key, value, qualifiers = fact
                _append(attrs, key, n, fact)
                key_type[key] = _key_type(value)
                if qualifiers:
                    _note_qualifiers(qualifiers, key_type)
            for fact in self.relations[n]:
                _, relation, direction, obj, qualifiers = fact
                if direction == "forward":
                    _append(out_objects, relation, n, obj)
                    _append(out_facts, relation, n, fact)
                    _append(pairs, n, obj, fact)
                else:
                    _append(in_objects, relation, n, obj)
                    _append(in_facts, relation, n, fact)
                if qualifiers:
                    _note_qualifiers(qualifiers, key_type)
        self.attr_index = _freeze(attrs)
        self.out_objects, self.in_objects = _freeze(out_objects), _freeze(in_objects)
        self.out_facts, self.in_facts = _freeze(out_facts), _freeze(in_facts)
        self.forward_pairs = _freeze(pairs)
        self.key_type = key_type

    # Read-only views for stats, conversion and grounding.

    @property
    def relation_names(self) -> set[str]:
        return set(self.out_objects) | set(self.in_objects)

    @property
    def qualifier_keys(self) -> set[str]:
        return {k for table in (self.attributes, self.relations)
                for facts in table for f in facts for k in f[QUALIFIERS]}

    def concept_names(self) -> list[str]:
        """Sorted, as an endpoint's schema lists them (`WholeSchema`): the order a prompt
        shows, and in which linking meets them, is not the file's."""
        return sorted(self.names[: self.n_concepts])

    def is_concept(self, node: int) -> bool:
        return node < self.n_concepts

    def stats(self) -> dict[str, int]:
        """Counts of nodes and facts, for `koplc kb stats`."""
        qualifiers = sum(len(vs) for facts in (*self.attributes, *self.relations)
                         for f in facts for vs in f[QUALIFIERS].values())
        return {
            "concepts": self.n_concepts,
            "entities": len(self.ids) - self.n_concepts,
            "attribute facts": sum(map(len, self.attributes)),
            "relation records": sum(map(len, self.relations)),
            "relation triples": len({(n, r, o) if d == "forward" else (o, r, n)
                                     for facts in self.relations for n, r, d, o, _ in facts}),
            "qualifier values": qualifiers,
            "attribute keys": len(self.attr_index),
            "relations": len(self.relation_names),
            "qualifier keys": len(self.qualifier_keys),
        }


def _key_type(value: Value) -> str:
    """The engine's key_type: string, quantity, or date (which also covers years)."""
    return value.type if value.type in (STRING, QUANTITY) else "date"


def _note_qualifiers(qualifiers: Qualifiers, key_type: dict[str, str]) -> None:
    for key, values in qualifiers.items():
        for value in values:
            key_type[key] = _key_type(value)


def _append(table: dict, outer, inner, item) -> None:
    per = table.get(outer)
    if per is None:
        table[outer] = {inner: [item]}
        return
    items = per.get(inner)
    if items is None:
        per[inner] = [item]
    else:
        items.append(item)


def _freeze(table: dict[_K, dict[int, list[_T]]]) -> dict[_K, dict[int, tuple[_T, ...]]]:
    return {k: {n: tuple(items) for n, items in per.items()} for k, per in table.items()}


@dataclass
class _Node:
    id: str
    name: str
    parents: list[str]
    attributes: list[tuple[str, Value, Qualifiers]]
    relations: list[tuple[str, str, str, Qualifiers]]
    where: str


class KBBuilder:
    """Collects concepts and entities by source id, then builds a checked, indexed KB."""

    def __init__(self, source: str = ""):
        self.source = source
        self._concepts: dict[str, _Node] = {}
        self._entities: dict[str, _Node] = {}

    def error(self, where: str, message: str) -> KBError:
        """A KBError naming the source file and the offending record."""
        return KBError(f"{self.source or '<kb>'}: {where}: {message}", code="bad-kb")

    def add_concept(self, cid: str, name: str, parents: list[str], where: str = "") -> None:
        self._check_new(cid, where)
        self._concepts[cid] = _Node(cid, name, list(parents), [], [], where or f"concept {cid!r}")

    def add_entity(self, eid: str, name: str, concepts: list[str], where: str = "") -> None:
        self._check_new(eid, where)
        self._entities[eid] = _Node(eid, name, list(concepts), [], [], where or f"entity {eid!r}")

    def has(self, node_id: str) -> bool:
        return node_id in self._concepts or node_id in self._entities

    def add_attribute(self, eid: str, key: str, value: Value,
                      qualifiers: Qualifiers = NO_QUALIFIERS) -> None:
        self._entities[eid].attributes.append((key, value, qualifiers or NO_QUALIFIERS))

    def add_relation(self, eid: str, relation: str, direction: str, obj: str,
                     qualifiers: Qualifiers = NO_QUALIFIERS) -> None:
        self._entities[eid].relations.append((relation, direction, obj,
                                              qualifiers or NO_QUALIFIERS))

    def _check_new(self, node_id: str, where: str) -> None:
        if self.has(node_id):
            raise self.error(where or repr(node_id), f"duplicate id {node_id!r}")

    def build(self) -> KB:
        """Resolve ids (a dangling one raises KBError), add the engine's reverse records on
        concepts, and index."""
        nodes = [*self._concepts.values(), *self._entities.values()]
        canon = tuple(range(len(nodes)))
        number = {node.id: canon[n] for n, node in enumerate(nodes)}
        n_concepts = len(self._concepts)
        parents = [tuple(self._resolve(number, node, p, "parent concept") for p in node.parents)
                   for node in nodes]
        relations: list[list[RelFact]] = [[] for _ in nodes]
        for n, node in zip(canon, nodes, strict=True):
            for relation, direction, obj, qualifiers in node.relations:
                o = self._resolve(number, node, obj, f"object of relation {relation!r}")
                relations[n].append((n, relation, direction, o, qualifiers))
        # The engine mirrors a relation to a concept onto the concept, once per distinct record.
        for n in canon[n_concepts:]:
            for _, relation, direction, obj, qualifiers in relations[n]:
                if obj < n_concepts:
                    flipped = "forward" if direction == "backward" else "backward"
                    mirror = (obj, relation, flipped, n, qualifiers)
                    if mirror not in relations[obj]:
                        relations[obj].append(mirror)
        attributes = [tuple(node.attributes) for node in nodes]
        kb = KB(ids=[node.id for node in nodes], names=[node.name for node in nodes],
                n_concepts=n_concepts, parents=parents, attributes=attributes,
                relations=[tuple(r) for r in relations], source=self.source, all_nodes=canon)
        return kb.index()

    def _resolve(self, number: dict[str, int], node: _Node, target: str, what: str) -> int:
        n = number.get(target)
        if n is None:
            raise self.error(node.where, f"{what} {target!r} is not a concept or entity id")
        return n
