"""Drawing one random program, typed and grounded in a KB.

A draw starts from a random entity (`Find`), concept (`FilterConcept(FindAll)`) or attribute
value (`Filter*(FindAll)`), extends the entity set with ops whose input it fits (`EXTENDERS`:
Relate, the filters, joins, the S-expression ArgMax/ArgMin/TimeConstraint), then asks a question
of it (`ASKERS`: QueryName, Count, the attribute, qualifier and relation queries, Select*,
Verify*, and Exists among the extension ops). Every name and value comes from the facts of the
entities the partial program reaches, which the native executor computes after each step, so
each step is grounded where it is taken.
Choices lean towards the ops, relations, keys and concepts the pool has least of (`Usage`).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

from koplc.kopl import ir
from koplc.kopl.errors import KoplcError
from koplc.kopl.execution.executor import Executor, StepFailure
from koplc.kopl.exploration.kinds import KINDS, ORDERED, TIME_QUALIFIERS, kind_fits, literal
from koplc.kopl.exploration.questions import ASKERS
from koplc.kopl.exploration.set_steps import EXTENDERS
from koplc.kopl.kb.model import KB
from koplc.kopl.registry import OPS, op_for, ops_of, value_kind_of
from koplc.kopl.types import Comparator
from koplc.kopl.values import DATE, QUANTITY, STRING, YEAR

SAMPLE = 12  # members of a set looked at to ground a step
_T = TypeVar("_T")

# Ops are picked in two stages: a family by its weight (relations are the backbone of a program,
# joins and extensions the seasoning), then an op of the family, the pool's rarest first. The
# families are the registry's, except that qualifier filters are drawn as filters and the
# extension ops as one family.
_WEIGHTS = {"relate": 6.0, "concept": 1.0, "filter": 2.0, "set": 1.5, "extension": 1.0,
            "name": 4.0, "count": 1.5, "attribute": 2.0, "relation": 1.0, "select": 1.5,
            "verify": 1.5}


def _drawn_family(name: str) -> str:
    """The family an op is drawn in."""
    info = OPS[name]
    if info.extension:
        return "extension"
    return "filter" if info.family == "qfilter" else info.family

class Usage:
    """How often the pool uses each op and schema item; picks lean towards the rare ones."""

    def __init__(self) -> None:
        self.counts: dict[str, Counter] = {"op": Counter(), "relation": Counter(),
                                           "key": Counter(), "concept": Counter()}

    def weight(self, kind: str, item: str, base: float = 1.0) -> float:
        return base / (1.0 + self.counts[kind][item])

    def pick(self, rng: random.Random, kind: str, items: Sequence, name=lambda x: x):
        """One of `items`, each weighted by how rarely the pool has used its name."""
        weights = [self.weight(kind, name(item)) for item in items]
        return rng.choices(items, weights)[0]

    def add(self, program: ir.Node) -> None:
        """Count the ops and schema items of a program kept for the pool."""
        for _, node in program.walk():
            self.counts["op"][type(node).__name__] += 1
            for field, kind in (("relation", "relation"), ("key", "key"), ("qkey", "key"),
                                ("concept", "concept")):
                value = getattr(node, field, None)
                if isinstance(value, str):
                    self.counts[kind][value] += 1


@dataclass(frozen=True)
class Draft:
    """A partial program, the distinct entities it gives and the entities its Finds name."""

    node: ir.Node
    ids: tuple[int, ...]
    topic: frozenset[int]
    start: str


@dataclass(frozen=True)
class Drawn:
    """A finished program and the entity set it asks about."""

    program: ir.Node
    asked: Draft

class _Remembering(Executor):
    """The native executor, remembering the entity set of each node of the current draw: a
    draft grows by one node at a time, so each step runs only its own op."""

    __slots__ = ("memo",)

    def __init__(self, kb: KB):
        super().__init__(kb)
        self.memo: dict[int, tuple] = {}

    def _entities(self, node: ir.Node) -> tuple:
        hit = self.memo.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        out = super()._entities(node)
        self.memo[id(node)] = (node, out)  # holding the node keeps its id from being reused
        return out


class Sampler:
    """Draws grounded programs over one KB."""

    def __init__(self, kb: KB, rng: random.Random, usage: Usage, extension_ops: bool = False,
                 max_answers: int = 100):
        self.kb, self.rng, self.usage = kb, rng, usage
        self.max_answers = max_answers
        self.executor = _Remembering(kb)
        self.extension_ops = extension_ops
        self.relations = sorted({(r, "forward") for r in kb.out_objects}
                                | {(r, "backward") for r in kb.in_objects})
        self.keys = sorted(kb.attr_index)
        self.concepts = [c for c in range(kb.n_concepts)
                         if any(n >= kb.n_concepts for n in kb.concept_members.get(c, ()))]
        self._holders: dict[tuple[str, str], tuple[int, ...]] = {}
        self._ancestors: dict[int, frozenset[int]] = {}
        self._options: dict[int, tuple[tuple[str, str], ...]] = {}
        present = _present(kb)
        self.extenders = {name: fn for name, fn in EXTENDERS.items()
                          if (extension_ops or not getattr(ir, name).extension)
                          and _NEEDS.get(name, "") in present}
        self.askers = {name: fn for name, fn in ASKERS.items()
                       if (extension_ops or not getattr(ir, name).extension)
                       and _NEEDS.get(name, "") in present}

    # Running partial programs.

    def entities(self, node: ir.Node) -> tuple[int, ...] | None:
        """The distinct entities a partial program gives, or None when it fails."""
        try:
            ids, _ = self.executor._entities(node)
        except (StepFailure, KoplcError):
            return None
        # Sorted: a set's order can differ between a KB just built and one read from its cache.
        return tuple(sorted(set(ids)))

    def facts(self, node: ir.Node) -> list[tuple]:
        try:
            return list(self.executor.with_facts(node)[1])
        except (StepFailure, KoplcError):
            return []

    def sample(self, ids: Sequence[_T]) -> Sequence[_T]:
        """A few members (drawn with replacement: cheaper on large sets)."""
        if len(ids) <= SAMPLE:
            return ids
        pick, size = self.rng.randrange, len(ids)
        return [ids[pick(size)] for _ in range(SAMPLE)]

    def run(self, program: ir.Node):
        """The program's answer, reusing what its draw already computed."""
        return self.executor.run(program)

    def holders(self, item: tuple[str, str]) -> tuple[int, ...]:
        """The nodes that have a relation (r, direction), or an attribute ('key', k)."""
        found = self._holders.get(item)
        if found is None:
            name, where = item
            table = {"forward": self.kb.out_objects, "backward": self.kb.in_objects,
                     "key": self.kb.attr_index}[where].get(name, {})
            found = self._holders[item] = tuple(table)
        return found

    # A draw.

    def draw(self, steps: int) -> Drawn | None:
        """A program that takes up to `steps` steps from its start before asking, or None."""
        self.executor.memo.clear()
        draft = self.start()
        if draft is None:
            return None
        for _ in range(steps):
            draft = self.extend(draft) or draft
        return self.ask(draft)

    def basis(self) -> Iterator[Drawn]:
        """The simplest question of each relation (both directions present) and attribute key,
        about one random holder: `Find -> Relate -> QueryName` and `Find -> QueryAttr`. They
        come first, so that every relation and key of even a small KB is in the pool the way
        people ask most ("How tall is LeBron James?"), whatever the random draws reach."""
        for item in [*self.relations, *((k, "key") for k in self.keys)]:
            self.executor.memo.clear()
            n = self.rng.choice(self.holders(item))
            find = ir.Find(name=self.kb.names[n])
            found = self.entities(find)
            if not found:
                continue
            topic = Draft(find, found, frozenset(found), "entity")
            name, where = item
            if where == "key":
                yield Drawn(ir.QueryAttr(input=find, key=name), topic)
                continue
            relate = ir.Relate(input=find, relation=name, direction=where)
            ids = self.entities(relate)
            if ids:
                yield Drawn(ir.QueryName(input=relate), Draft(relate, ids, topic.topic, "entity"))

    def start(self) -> Draft | None:
        kinds = [k for k, ok in (("entity", self.relations or self.keys),
                                 ("concept", self.concepts), ("value", self.keys)) if ok]
        if not kinds:
            return None
        kind = self.rng.choices(kinds, [{"entity": 4, "concept": 1, "value": 1}[k]
                                        for k in kinds])[0]
        if kind == "entity":
            items = [*self.relations, *((k, "key") for k in self.keys)]
            weights = [self.usage.weight("key" if d == "key" else "relation", r)
                       for r, d in items]
            item = self.rng.choices(items, weights)[0]
            n = self.rng.choice(self.holders(item))
            node: ir.Node = ir.Find(name=self.kb.names[n])
        elif kind == "concept":
            c = self.usage.pick(self.rng, "concept", self.concepts, lambda c: self.kb.names[c])
            node = ir.FilterConcept(input=ir.FindAll(), concept=self.kb.names[c])
        else:
            key = self.usage.pick(self.rng, "key", self.keys)
            n = self.rng.choice(self.holders((key, "key")))
            found = self._attribute_filter(ir.FindAll(), [n], key)
            if found is None:
                return None
            node = found
        ids = self.entities(node)
        if not ids:
            return None
        return Draft(node, ids, frozenset(ids) if kind == "entity" else frozenset(), kind)

    def _choose_op(self, table: dict[str, Callable]) -> list[str]:
        """The op names of `table` in a random order (Efraimidis and Spirakis' weighted
        sampling without replacement): a family's weight shared among its ops present, each
        op's share leaning towards the rarer ones in the pool."""
        counts = self.usage.counts["op"]
        families: dict[str, list[str]] = {}
        for name in table:
            families.setdefault(_drawn_family(name), []).append(name)
        weights = {}
        for family, ops in families.items():
            base = _WEIGHTS[family]
            mean = sum(counts[op] for op in ops) / len(ops)
            for op in ops:
                weights[op] = base / len(ops) * (1.0 + mean) / (1.0 + counts[op])
        rand = self.rng.random
        return sorted(table, key=lambda n: -rand() ** (1.0 / weights[n]))

    def extend(self, draft: Draft) -> Draft | None:
        """The draft with one more entity-set op; None when no op grounds or changes the set."""
        for name in self._choose_op(self.extenders):
            node = self.extenders[name](self, draft)
            if node is None:
                continue
            ids = self.entities(node)
            if ids and (len(ids) != len(draft.ids) or set(ids) != set(draft.ids)):
                return Draft(node, ids, draft.topic | self._found(node), draft.start)
        return None

    def _found(self, node: ir.Node) -> frozenset[int]:
        """The entities named by the Finds of a join's new branch."""
        if not isinstance(node, (ir.And, ir.Or)):
            return frozenset()
        return frozenset(m for _, n in node.right.walk() if isinstance(n, ir.Find)
                         for m in self.kb.name_to_nodes.get(n.name, ()))

    def ancestors(self, node: int) -> frozenset[int]:
        found = self._ancestors.get(node)
        if found is None:
            found = self._ancestors[node] = frozenset(self.kb.ancestors(node))
        return found

    def ask(self, draft: Draft) -> Drawn | None:
        """A question about the draft's entities."""
        for name in self._choose_op(self.askers):
            program = self.askers[name](self, draft)
            if program is not None:
                return Drawn(program, draft)
        return None

    # Grounded pieces.

    def member_facts(self, ids: Sequence[int], kinds: Sequence[str] = KINDS):
        """(member, key, value, qualifiers) of sampled members' attribute facts of `kinds`."""
        return [(n, k, v, q) for n in self.sample(ids) for k, v, q in self.kb.attributes[n]
                if any(kind_fits(v, kind) for kind in kinds)]

    def pick_fact(self, facts: list[tuple]) -> tuple | None:
        if not facts:
            return None
        key = self.usage.pick(self.rng, "key", sorted({f[1] for f in facts}))
        return self.rng.choice([f for f in facts if f[1] == key])

    def comparator(self) -> Comparator:
        return self.rng.choice(ORDERED)

    def _attribute_filter(self, node: ir.Node, ids: Sequence[int], key: str | None = None,
                          kind: str | None = None) -> ir.Node | None:
        facts = [f for f in self.member_facts(ids, [kind] if kind else (STRING, QUANTITY, YEAR,
                                                                        DATE))
                 if key is None or f[1] == key]
        fact = self.pick_fact(facts)
        if fact is None:
            return None
        _, key, value, _ = fact
        kind = kind or value.type
        extra = {} if kind == STRING else {"comparator": self.comparator()}
        return op_for("filter", kind)(input=node, key=key, value=literal(value, kind), **extra)

    def relation_options(self, n: int) -> tuple[tuple[str, str], ...]:
        """The (relation, direction) pairs of a node's relation facts."""
        found = self._options.get(n)
        if found is None:
            found = self._options[n] = tuple(sorted({(f[1], f[2]) for f in self.kb.relations[n]}))
        return found

    def relation_fact(self, ids: Sequence[int], forward_only: bool = False,
                      qualified: bool = False) -> tuple | None:
        """A relation fact of a sampled member, its relation picked by rarity."""
        if qualified:
            facts = [f for n in self.sample(ids) for f in self.kb.relations[n]
                     if f[-1] and (not forward_only or f[2] == "forward")]
            if not facts:
                return None
            relation = self.usage.pick(self.rng, "relation", sorted({f[1] for f in facts}))
            return self.rng.choice([f for f in facts if f[1] == relation])
        members = self.sample(ids)
        options = sorted({o for n in members for o in self.relation_options(n)
                          if not forward_only or o[1] == "forward"})
        if not options:
            return None
        relation, direction = self.usage.pick(self.rng, "relation", options, lambda o: o[0])
        table = (self.kb.out_facts if direction == "forward" else self.kb.in_facts)[relation]
        n = self.rng.choice([n for n in members if n in table])
        return self.rng.choice(table[n])

    def branch(self, ids: Sequence[int]) -> ir.Node | None:
        """A one-step set that shares a member with `ids`: from a neighbour back, or a filter."""
        fact = self.relation_fact(ids)
        if fact is not None and (not self.keys or self.rng.random() < 0.7):
            _, relation, direction, obj, _ = fact
            back = "backward" if direction == "forward" else "forward"
            return ir.Relate(input=ir.Find(name=self.kb.names[obj]), relation=relation,
                             direction=back)
        return self._attribute_filter(ir.FindAll(), ids)

    def name_of(self, n: int) -> ir.Find:
        return ir.Find(name=self.kb.names[n])

# What the KB must have for an op to be drawn: a value type among its attributes ("string",
# "quantity", "year", "date"), qualifiers of a type ("q:year"), qualified attribute or relation
# facts, relations, or attributes at all. Ops not named need nothing.
_NEEDS = {
    "Relate": "relations", "And": "facts", "Or": "facts", "TimeConstraint": "timed relations",
    "QueryRelation": "relations", "QueryRelationQualifier": "qualified relations",
    "QueryAttr": "attributes", "QueryAttrUnderCondition": "qualified attributes",
    "QueryAttrQualifier": "qualified attributes", "ArgMax": QUANTITY, "ArgMin": QUANTITY,
    "SelectAmong": QUANTITY, "SelectBetween": QUANTITY,
    **{op.__name__: value_kind_of(op) for op in ops_of("filter", "verify")},
    **{op.__name__: f"q:{value_kind_of(op)}" for op in ops_of("qfilter")},
}


def _present(kb: KB) -> set[str]:
    """What the KB has, in the terms of `_NEEDS` ("" always)."""
    have = {""}
    for n in kb.all_nodes:
        for _, value, qualifiers in kb.attributes[n]:
            have |= {"attributes", "facts", value.type}
            if value.type == DATE:
                have.add(YEAR)
            if qualifiers:
                have.add("qualified attributes")
                have |= {f"q:{v.type}" for vs in qualifiers.values() for v in vs}
        for fact in kb.relations[n]:
            have |= {"relations", "facts"}
            if fact[-1]:
                have.add("qualified relations")
                have |= {f"q:{v.type}" for vs in fact[-1].values() for v in vs}
                if any(q in fact[-1] for q in TIME_QUALIFIERS):
                    have.add("timed relations")
    have |= {"q:year" for h in list(have) if h == "q:date"}
    return have


# Ops no draw builds by itself, and why; a test checks this and the tables cover the registry.
NOT_DRAWN = {
    "FindAll": "only as the input of a start's FilterConcept or Filter*",
    "Find": "only as a start or a join's branch",
    "Entity": "Find names the same node by its name",
}
