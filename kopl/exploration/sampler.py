"""Drawing one random program, typed and grounded in a KB.

A draw starts from a random entity (`Find`), concept (`FilterConcept(FindAll)`) or attribute
value (`Filter*(FindAll)`), extends the entity set with ops whose input it fits (`EXTENDERS`:
Relate, the filters, joins, the S-expression ArgMax/ArgMin/TimeConstraint), then asks a question
of it (`ASKERS`: QueryName, Count, the attribute, qualifier and relation queries, Select*,
Verify*). Every name and value comes from the facts of the entities the partial program reaches,
which the native executor computes after each step, so each step is grounded where it is taken.
Choices lean towards the ops, relations, keys and concepts the pool has least of (`Usage`).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from koplc.kopl import ir
from koplc.kopl.errors import KoplcError
from koplc.kopl.execute import Executor, StepFailure
from koplc.kopl.kb import KB
from koplc.kopl.types import AmongOp, BetweenOp, Comparator, Type
from koplc.kopl.values import DATE, QUANTITY, STRING, YEAR, Value

SAMPLE = 12  # members of a set looked at to ground a step
_ORDERED = (Comparator.EQ, Comparator.NE, Comparator.LT, Comparator.GT)
_TIME_QUALIFIERS = ("point in time", "start time")
_FILTERS = {STRING: ir.FilterStr, QUANTITY: ir.FilterNum, YEAR: ir.FilterYear,
            DATE: ir.FilterDate}
_QFILTERS = {STRING: ir.QFilterStr, QUANTITY: ir.QFilterNum, YEAR: ir.QFilterYear,
             DATE: ir.QFilterDate}
_VERIFIERS = {STRING: ir.VerifyStr, QUANTITY: ir.VerifyNum, YEAR: ir.VerifyYear,
              DATE: ir.VerifyDate}
# Ops are picked in two stages: a family by its weight (relations are the backbone of a program,
# joins and extensions the seasoning), then an op of the family, the pool's rarest first.
_FAMILIES = {
    "relate": (6.0, ("Relate",)), "concept": (1.0, ("FilterConcept",)),
    "filter": (2.0, ("FilterStr", "FilterNum", "FilterYear", "FilterDate", "QFilterStr",
                     "QFilterNum", "QFilterYear", "QFilterDate")),
    "join": (1.5, ("And", "Or")), "extension": (1.0, ("ArgMax", "ArgMin", "TimeConstraint")),
    "name": (4.0, ("QueryName",)), "count": (1.5, ("Count",)),
    "attribute": (2.0, ("QueryAttr", "QueryAttrUnderCondition", "QueryAttrQualifier")),
    "relation": (1.0, ("QueryRelation", "QueryRelationQualifier")),
    "select": (1.5, ("SelectAmong", "SelectBetween")),
    "verify": (1.5, ("VerifyStr", "VerifyNum", "VerifyYear", "VerifyDate")),
}
_FAMILY_OF = {op: family for family, (_, ops) in _FAMILIES.items() for op in ops}


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


def literal(value: Value, kind: str) -> str:
    """The text of a KB value as a literal of `kind` (a date read as a year for FilterYear).

    >>> literal(Value("quantity", 1811.0, "kelvin"), "quantity"), literal(Value("quantity", 3.0, "1"), "quantity")
    ('1811 kelvin', '3')
    """
    if kind == YEAR:
        return str(value.year)
    return str(value)


def _kind_fits(value: Value, kind: str) -> bool:
    return value.type == kind or (kind == YEAR and value.type == DATE)


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

    def __init__(self, kb: KB, rng: random.Random, usage: Usage, extension_ops: bool = False):
        self.kb, self.rng, self.usage = kb, rng, usage
        self.executor = _Remembering(kb)
        self.extension_ops = extension_ops
        self.relations = sorted({(r, "forward") for r in kb.out_objects}
                                | {(r, "backward") for r in kb.in_objects})
        self.keys = sorted(kb.attr_index)
        self.concepts = [c for c in range(kb.n_concepts)
                         if any(n >= kb.n_concepts for n in kb.concept_members.get(c, ()))]
        self._holders: dict[tuple[str, str], tuple[int, ...]] = {}
        self._ancestors: dict[int, frozenset[int]] = {}
        present = _present(kb)
        self.extenders = {name: fn for name, fn in EXTENDERS.items()
                          if (extension_ops or not getattr(ir, name).extension)
                          and _NEEDS.get(name, "") in present}
        self.askers = {name: fn for name, fn in ASKERS.items()
                       if _NEEDS.get(name, "") in present}

    # Running partial programs.

    def entities(self, node: ir.Node) -> tuple[int, ...] | None:
        """The distinct entities a partial program gives, or None when it fails."""
        try:
            ids, _ = self.executor._entities(node)
        except (StepFailure, KoplcError):
            return None
        return tuple(dict.fromkeys(ids))

    def facts(self, node: ir.Node) -> list[tuple]:
        try:
            return list(self.executor.with_facts(node)[1])
        except (StepFailure, KoplcError):
            return []

    def sample(self, ids: Sequence[int]) -> Sequence[int]:
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
            node = self._attribute_filter(ir.FindAll(), [n], key)
            if node is None:
                return None
        ids = self.entities(node)
        if not ids:
            return None
        return Draft(node, ids, frozenset(ids) if kind == "entity" else frozenset(), kind)

    def _choose_op(self, table: dict[str, Callable]) -> list[str]:
        """The op names of `table` in a random order (Efraimidis and Spirakis' weighted
        sampling without replacement): a family's weight shared among its ops present, each
        op's share leaning towards the rarer ones in the pool."""
        counts = self.usage.counts["op"]
        weights = {}
        for family in {_FAMILY_OF[name] for name in table}:
            base, ops = _FAMILIES[family]
            ops = [op for op in ops if op in table]
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

    def member_facts(self, ids: Sequence[int], kinds: Sequence[str] = (STRING, QUANTITY, YEAR,
                                                                         DATE)):
        """(member, key, value, qualifiers) of sampled members' attribute facts of `kinds`."""
        return [(n, k, v, q) for n in self.sample(ids) for k, v, q in self.kb.attributes[n]
                if any(_kind_fits(v, kind) for kind in kinds)]

    def pick_fact(self, facts: list[tuple]) -> tuple | None:
        if not facts:
            return None
        key = self.usage.pick(self.rng, "key", sorted({f[1] for f in facts}))
        return self.rng.choice([f for f in facts if f[1] == key])

    def comparator(self) -> Comparator:
        return self.rng.choice(_ORDERED)

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
        return _FILTERS[kind](input=node, key=key, value=literal(value, kind), **extra)

    def relation_fact(self, ids: Sequence[int], forward_only: bool = False,
                      qualified: bool = False) -> tuple | None:
        """A relation fact of a sampled member, its relation picked by rarity."""
        facts = [f for n in self.sample(ids) for f in self.kb.relations[n]
                 if (not forward_only or f[2] == "forward") and (not qualified or f[-1])]
        if not facts:
            return None
        relation = self.usage.pick(self.rng, "relation", sorted({f[1] for f in facts}))
        return self.rng.choice([f for f in facts if f[1] == relation])

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


# Entity-set ops: each takes a draft and returns the extended node, or None.

def _relate(s: Sampler, d: Draft):
    options = sorted({(f[1], f[2]) for n in s.sample(d.ids) for f in s.kb.relations[n]})
    if not options:
        return None
    relation, direction = s.usage.pick(s.rng, "relation", options, lambda o: o[0])
    return ir.Relate(input=d.node, relation=relation, direction=direction)


def _filter_concept(s: Sampler, d: Draft):
    """A concept of some members that not every member has."""
    empty: frozenset[int] = frozenset()
    concepts = sorted({c for n in s.sample(d.ids) for c in s.ancestors(n)
                       if not all(m in s.kb.concept_members.get(c, empty) for m in d.ids)})
    if not concepts:
        return None
    c = s.usage.pick(s.rng, "concept", concepts, lambda c: s.kb.names[c])
    return ir.FilterConcept(input=d.node, concept=s.kb.names[c])


def _filter(kind: str):
    def build(s: Sampler, d: Draft):
        return s._attribute_filter(d.node, d.ids, kind=kind)
    return build


def _qualifier_filter(kind: str):
    def build(s: Sampler, d: Draft):
        if d.node.output is not Type.ENTITIES_WITH_FACTS:
            return None
        facts = s.facts(d.node)
        found = [(qk, qv) for f in (facts if len(facts) <= SAMPLE else s.rng.sample(facts, SAMPLE))
                 for qk, qvs in f[-1].items() for qv in qvs if _kind_fits(qv, kind)]
        if not found:
            return None
        qkey = s.usage.pick(s.rng, "key", sorted({qk for qk, _ in found}))
        qvalue = s.rng.choice([qv for qk, qv in found if qk == qkey])
        extra = {} if kind == STRING else {"comparator": s.comparator()}
        return _QFILTERS[kind](input=d.node, qkey=qkey, qvalue=literal(qvalue, kind), **extra)
    return build


def _and(s: Sampler, d: Draft):
    other = s.branch(d.ids)
    return None if other is None else ir.And(left=d.node, right=other)


def _or(s: Sampler, d: Draft):
    """The union with the same kind of set grown from another entity."""
    other = s.branch(s.sample(d.ids))
    if isinstance(other, ir.Relate):
        holders = s.holders((other.relation, str(other.direction)))
        if holders:
            other = other.model_copy(update={"input": s.name_of(s.rng.choice(holders))})
    return None if other is None else ir.Or(left=d.node, right=other)


def _arg_extreme(cls: type[ir.Node]):
    def build(s: Sampler, d: Draft):
        if len(d.ids) < 2:
            return None
        fact = s.pick_fact(s.member_facts(d.ids, (QUANTITY,)))
        return None if fact is None else cls(input=d.node, key=fact[1])
    return build


def _time_constraint(s: Sampler, d: Draft):
    facts = [f for n in s.sample(d.ids) for f in s.kb.relations[n]
             if any(q in f[-1] for q in _TIME_QUALIFIERS)]
    if not facts:
        return None
    fact = s.rng.choice(facts)
    times = [v for q in _TIME_QUALIFIERS for v in fact[-1].get(q, ())]
    return ir.TimeConstraint(input=d.node, relation=fact[1], time=str(s.rng.choice(times)))


EXTENDERS: dict[str, Callable[[Sampler, Draft], ir.Node | None]] = {
    "Relate": _relate, "FilterConcept": _filter_concept,
    **{cls.__name__: _filter(kind) for kind, cls in _FILTERS.items()},
    **{cls.__name__: _qualifier_filter(kind) for kind, cls in _QFILTERS.items()},
    "And": _and, "Or": _or, "ArgMax": _arg_extreme(ir.ArgMax), "ArgMin": _arg_extreme(ir.ArgMin),
    "TimeConstraint": _time_constraint,
}


# Questions: each takes a draft and returns a finished program, or None.

def _query_name(s: Sampler, d: Draft):
    return ir.QueryName(input=d.node)


def _count(s: Sampler, d: Draft):
    return ir.Count(input=d.node)


def _query_attr(s: Sampler, d: Draft):
    fact = s.pick_fact(s.member_facts(d.ids))
    return None if fact is None else ir.QueryAttr(input=d.node, key=fact[1])


def _qualified_facts(s: Sampler, d: Draft):
    return [f for f in s.member_facts(d.ids) if f[3]]


def _query_attr_under_condition(s: Sampler, d: Draft):
    fact = s.pick_fact(_qualified_facts(s, d))
    if fact is None:
        return None
    qkey = s.rng.choice(sorted(fact[3]))
    qvalue = s.rng.choice(fact[3][qkey])
    return ir.QueryAttrUnderCondition(input=d.node, key=fact[1], qkey=qkey,
                                      qvalue=literal(qvalue, qvalue.type))


def _query_attr_qualifier(s: Sampler, d: Draft):
    fact = s.pick_fact(_qualified_facts(s, d))
    if fact is None:
        return None
    _, key, value, qualifiers = fact
    return ir.QueryAttrQualifier(input=d.node, key=key, value=literal(value, value.type),
                                 qkey=s.rng.choice(sorted(qualifiers)))


def _pair(s: Sampler, d: Draft, qualified: bool):
    """(left, right, fact): the draft (or one member when it is large) and a forward object."""
    fact = s.relation_fact(d.ids, forward_only=True, qualified=qualified)
    if fact is None:
        return None
    left = d.node if len(d.ids) <= 3 else s.name_of(fact[0])
    return left, s.name_of(fact[3]), fact


def _query_relation(s: Sampler, d: Draft):
    pair = _pair(s, d, qualified=False)
    return None if pair is None else ir.QueryRelation(left=pair[0], right=pair[1])


def _query_relation_qualifier(s: Sampler, d: Draft):
    pair = _pair(s, d, qualified=True)
    if pair is None:
        return None
    left, right, fact = pair
    return ir.QueryRelationQualifier(left=left, right=right, relation=fact[1],
                                     qkey=s.rng.choice(sorted(fact[-1])))


def _select_among(s: Sampler, d: Draft):
    if len(d.ids) < 2:
        return None
    fact = s.pick_fact(s.member_facts(d.ids, (QUANTITY,)))
    if fact is None:
        return None
    return ir.SelectAmong(input=d.node, key=fact[1], comparator=s.rng.choice(list(AmongOp)))


def _select_between(s: Sampler, d: Draft):
    fact = s.pick_fact(s.member_facts(d.ids, (QUANTITY,)))
    if fact is None:
        return None
    member, key, value, _ = fact
    others = [n for n in s.sample(s.holders((key, "key"))) if n != member
              and any(k == key and v.unit == value.unit for k, v, _ in s.kb.attributes[n])]
    if not others:
        return None
    left = d.node if len(d.ids) == 1 else s.name_of(member)
    return ir.SelectBetween(left=left, right=s.name_of(s.rng.choice(others)), key=key,
                            comparator=s.rng.choice(list(BetweenOp)))


def _verify(kind: str):
    def build(s: Sampler, d: Draft):
        fact = s.pick_fact(s.member_facts(d.ids, (kind,)))
        if fact is None:
            return None
        _, key, value, _ = fact
        if s.rng.random() < 0.5:  # another entity's value, so that answers are not all yes
            others = [v for n in s.sample(s.holders((key, "key")))
                      for k, v, _ in s.kb.attributes[n]
                      if k == key and v.type == value.type and v.unit == value.unit]
            value = s.rng.choice(others) if others else value
        extra = {} if kind == STRING else {"comparator": s.comparator()}
        return _VERIFIERS[kind](input=ir.QueryAttr(input=d.node, key=key),
                                value=literal(value, kind), **extra)
    return build


ASKERS: dict[str, Callable[[Sampler, Draft], ir.Node | None]] = {
    "QueryName": _query_name, "Count": _count, "QueryAttr": _query_attr,
    "QueryAttrUnderCondition": _query_attr_under_condition,
    "QueryAttrQualifier": _query_attr_qualifier, "QueryRelation": _query_relation,
    "QueryRelationQualifier": _query_relation_qualifier, "SelectAmong": _select_among,
    "SelectBetween": _select_between,
    **{cls.__name__: _verify(kind) for kind, cls in _VERIFIERS.items()},
}

# What the KB must have for an op to be drawn: a value type among its attributes ("string",
# "quantity", "year", "date"), qualifiers of a type ("q:year"), qualified attribute or relation
# facts, relations, or attributes at all. Ops not named need nothing.
_NEEDS = {
    "Relate": "relations", "And": "facts", "Or": "facts", "TimeConstraint": "timed relations",
    "QueryRelation": "relations", "QueryRelationQualifier": "qualified relations",
    "QueryAttr": "attributes", "QueryAttrUnderCondition": "qualified attributes",
    "QueryAttrQualifier": "qualified attributes", "ArgMax": QUANTITY, "ArgMin": QUANTITY,
    "SelectAmong": QUANTITY, "SelectBetween": QUANTITY,
    **{cls.__name__: kind for kind, cls in (*_FILTERS.items(), *_VERIFIERS.items())},
    **{cls.__name__: f"q:{kind}" for kind, cls in _QFILTERS.items()},
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
                if any(q in fact[-1] for q in _TIME_QUALIFIERS):
                    have.add("timed relations")
    have |= {"q:year" for h in list(have) if h == "q:date"}
    return have


# Ops no draw builds by itself, and why; a test checks this and the tables cover the registry.
NOT_DRAWN = {
    "FindAll": "only as the input of a start's FilterConcept or Filter*",
    "Find": "only as a start or a join's branch",
    "Entity": "Find names the same node by its name",
}
