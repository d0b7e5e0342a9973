"""Questions a draw ends with: each takes the draft and returns a finished program asking
something of its entities, or None when the question cannot be grounded in them."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from koplc.kopl import ir
from koplc.kopl.exploration.kinds import VERIFIERS, literal
from koplc.kopl.types import AmongOp, BetweenOp, ValueKind
from koplc.kopl.values import QUANTITY, STRING

if TYPE_CHECKING:
    from koplc.kopl.exploration.sampler import Draft, Sampler


def _query_name(s: Sampler, d: Draft):
    return None if len(d.ids) > s.max_answers else ir.QueryName(input=d.node)


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


def _verify(kind: ValueKind):
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
        return VERIFIERS[kind](input=ir.QueryAttr(input=d.node, key=key),
                                value=literal(value, kind), **extra)
    return build


def _exists(s: Sampler, d: Draft):
    """Whether the draft holds a named entity: one of its members, or half the time another
    entity of a member's concepts (so that answers are not all yes)."""
    if d.node.op == "Find" or not d.ids:
        return None
    member = s.rng.choice(sorted(set(d.ids)))
    if s.rng.random() < 0.5:
        kin = sorted({n for c in s.ancestors(member) for n in s.kb.concept_members.get(c, ())}
                     - set(d.ids))
        member = s.rng.choice(kin) if kin else member
    return ir.Exists(input=ir.And(left=d.node, right=s.name_of(member)))


ASKERS: dict[str, Callable[[Sampler, Draft], ir.Node | None]] = {
    "QueryName": _query_name, "Count": _count, "QueryAttr": _query_attr,
    "QueryAttrUnderCondition": _query_attr_under_condition,
    "QueryAttrQualifier": _query_attr_qualifier, "QueryRelation": _query_relation,
    "QueryRelationQualifier": _query_relation_qualifier, "SelectAmong": _select_among,
    "SelectBetween": _select_between,
    **{cls.__name__: _verify(kind) for kind, cls in VERIFIERS.items()},
    "Exists": _exists,
}
