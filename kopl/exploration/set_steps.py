"""Entity-set steps of a draw: each takes the draft and returns it grown by one op, or None
when the op cannot be grounded in the draft's entities."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from koplc.kopl import ir
from koplc.kopl.exploration.kinds import FILTERS, QFILTERS, TIME_QUALIFIERS, kind_fits, literal
from koplc.kopl.types import Type, ValueKind
from koplc.kopl.values import QUANTITY, STRING

if TYPE_CHECKING:
    from koplc.kopl.exploration.sampler import Draft, Sampler


def _relate(s: Sampler, d: Draft):
    options = sorted({o for n in s.sample(d.ids) for o in s.relation_options(n)})
    if not options:
        return None
    relation, direction = s.usage.pick(s.rng, "relation", options, lambda o: o[0])
    return ir.Relate(input=d.node, relation=relation, direction=direction)


def _filter_concept(s: Sampler, d: Draft):
    """A concept of some members that not every member has."""
    empty: frozenset[int] = frozenset()
    concepts = sorted({c for n in s.sample(d.ids) for c in s.ancestors(n)
                       if not s.kb.concept_members.get(c, empty).issuperset(d.ids)})
    if not concepts:
        return None
    c = s.usage.pick(s.rng, "concept", concepts, lambda c: s.kb.names[c])
    return ir.FilterConcept(input=d.node, concept=s.kb.names[c])


def _filter(kind: str):
    def build(s: Sampler, d: Draft):
        return s._attribute_filter(d.node, d.ids, kind=kind)
    return build


def _qualifier_filter(kind: ValueKind):
    def build(s: Sampler, d: Draft):
        if d.node.output is not Type.ENTITIES_WITH_FACTS:
            return None
        facts = s.facts(d.node)
        found = [(qk, qv) for f in s.sample(facts)
                 for qk, qvs in f[-1].items() for qv in qvs if kind_fits(qv, kind)]
        if not found:
            return None
        qkey = s.usage.pick(s.rng, "key", sorted({qk for qk, _ in found}))
        qvalue = s.rng.choice([qv for qk, qv in found if qk == qkey])
        extra = {} if kind == STRING else {"comparator": s.comparator()}
        return QFILTERS[kind](input=d.node, qkey=qkey, qvalue=literal(qvalue, kind), **extra)
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
             if any(q in f[-1] for q in TIME_QUALIFIERS)]
    if not facts:
        return None
    fact = s.rng.choice(facts)
    times = [v for q in TIME_QUALIFIERS for v in fact[-1].get(q, ())]
    return ir.TimeConstraint(input=d.node, relation=fact[1], time=str(s.rng.choice(times)))


EXTENDERS: dict[str, Callable[[Sampler, Draft], ir.Node | None]] = {
    "Relate": _relate, "FilterConcept": _filter_concept,
    **{cls.__name__: _filter(kind) for kind, cls in FILTERS.items()},
    **{cls.__name__: _qualifier_filter(kind) for kind, cls in QFILTERS.items()},
    "And": _and, "Or": _or, "ArgMax": _arg_extreme(ir.ArgMax), "ArgMin": _arg_extreme(ir.ArgMin),
    "TimeConstraint": _time_constraint,
}
