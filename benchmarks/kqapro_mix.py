"""A KQA-Pro-style program mix over a KB: the question shapes of KQA Pro (count, attribute,
verify, compare, relation, qualifier questions), with names and values drawn from the KB."""

from __future__ import annotations

import random

from koplc.kopl import ir
from koplc.kopl.kb.model import KB
from koplc.kopl.types import AmongOp, BetweenOp, Comparator, Direction

OPS = [Comparator.EQ, Comparator.NE, Comparator.LT, Comparator.GT]


class Mix:
    """Draws KQA-Pro-shaped programs from one KB's names, facts and qualifiers."""

    def __init__(self, kb: KB, seed: int = 0):
        self.rng = random.Random(seed)
        self.kb = kb
        self.entities = [kb.names[n] for n in kb.entity_nodes]
        self.concepts = kb.concept_names() or ["thing"]
        self.attrs = [(k, v) for facts in kb.attributes for k, v, _ in facts]
        self.holders: dict[str, list[str]] = {}
        for n in kb.entity_nodes:
            for key, _, _ in kb.attributes[n]:
                self.holders.setdefault(key, []).append(kb.names[n])
        self.rel_facts = [f for n in kb.entity_nodes for f in kb.relations[n]]
        self.quals = [(k, qk, qv) for facts in kb.attributes for k, _, q in facts
                      for qk, qvs in q.items() for qv in qvs]

    def pick(self, items):
        return self.rng.choice(items)

    def concept_set(self) -> ir.Node:
        return ir.FilterConcept(input=ir.FindAll(), concept=self.pick(self.concepts))

    def find(self, key: str | None = None) -> ir.Node:
        """An entity, one that has `key` when a key is given (questions ask about facts)."""
        return ir.Find(name=self.pick(self.holders.get(key) or self.entities))

    def holder_set(self, key: str) -> ir.Node:
        """A concept whose members have `key`."""
        kb = self.kb
        concepts = [kb.names[c] for name in self.holders.get(key, ())
                    for n in kb.name_to_nodes[name] for c in kb.ancestors(n)]
        return ir.FilterConcept(input=ir.FindAll(), concept=self.pick(concepts or self.concepts))

    def attr(self, kinds=("quantity", "year", "date", "string")):
        key, value = self.pick([a for a in self.attrs if a[1].type in kinds] or self.attrs)
        return key, value

    def filtered(self) -> ir.Node:
        key, value = self.attr()
        base = self.concept_set() if self.rng.random() < 0.7 else ir.FindAll()
        if value.type == "string":
            return ir.FilterStr(input=base, key=key, value=str(value))
        cls = {"quantity": ir.FilterNum, "year": ir.FilterYear, "date": ir.FilterDate}[value.type]
        return cls(input=base, key=key, value=str(value), comparator=self.pick(OPS))

    def related(self) -> ir.Node:
        subject, relation, direction, _, _ = self.pick(self.rel_facts)
        return ir.Relate(input=ir.Find(name=self.kb.names[subject]), relation=relation,
                         direction=Direction(direction))

    def program(self) -> ir.Node:
        shape = self.rng.randrange(12)
        if shape == 0:
            return ir.Count(input=self.pick([self.concept_set, self.filtered])())
        if shape == 1:
            return ir.QueryName(input=self.filtered())
        if shape == 2:
            key = self.attr()[0]
            return ir.QueryAttr(input=self.find(key), key=key)
        if shape == 3:
            key, value = self.attr(("quantity",))
            return ir.VerifyNum(input=ir.QueryAttr(input=self.find(key), key=key),
                                value=str(value), comparator=self.pick(OPS))
        if shape == 4:
            key, value = self.attr(("year", "date"))
            return ir.VerifyYear(input=ir.QueryAttr(input=self.find(key), key=key),
                                 value=str(value.year), comparator=self.pick(OPS))
        if shape == 5:
            key = self.attr(("quantity",))[0]
            return ir.SelectBetween(left=self.find(key), right=self.find(key), key=key,
                                    comparator=self.pick(list(BetweenOp)))
        if shape == 6:
            key = self.attr(("quantity",))[0]
            return ir.SelectAmong(input=self.holder_set(key), key=key,
                                  comparator=self.pick(list(AmongOp)))
        if shape == 7:
            subject, _, _, obj, _ = self.pick(self.rel_facts)
            return ir.QueryRelation(left=ir.Find(name=self.kb.names[subject]),
                                    right=ir.Find(name=self.kb.names[obj]))
        if shape == 8:
            fact = self.pick([f for f in self.rel_facts if f[-1]] or self.rel_facts)
            qkey = self.pick(list(fact[-1]) or ["point in time"])
            return ir.QueryRelationQualifier(left=ir.Find(name=self.kb.names[fact[0]]),
                                             right=ir.Find(name=self.kb.names[fact[3]]),
                                             relation=fact[1], qkey=qkey)
        if shape == 9 and self.quals:
            key, qkey, qvalue = self.pick(self.quals)
            return ir.QueryAttrUnderCondition(input=self.find(key), key=key, qkey=qkey,
                                              qvalue=str(qvalue))
        if shape == 10:
            return ir.QueryName(input=ir.And(left=self.related(), right=self.concept_set()))
        return ir.Count(input=ir.Or(left=self.find(), right=self.related()))


def kqapro_mix(kb: KB, count: int, seed: int = 0) -> list[ir.Node]:
    """`count` KQA-Pro-style programs over `kb`."""
    mix = Mix(kb, seed)
    return [mix.program() for _ in range(count)]
