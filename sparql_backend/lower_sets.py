"""Lowering of the entity-set operations: find, filter by concept, attribute and qualifier,
relate, intersect and unite (mixed into `Lowering`).

Relate and the attribute filters read the distinct input and give one element per stored fact,
as the engine does, so their key is the fact (the fact node, or the triple of plain encodings);
FilterConcept, And and Or give sets, keyed by the entity; QFilter* keeps the (entity, fact)
pairs with a matching qualifier, so it keeps its input's key (a pair with two matching
qualifier values joins twice and is counted once).
"""

from __future__ import annotations

from koplc.sparql_backend.patterns import Sub, block, join
from koplc.sparql_backend.terms import iri


class SetLowering:
    """The visitors (`OpInfo.visitor`), `(node, var) -> Sub`, of the ops that give entity sets."""

    __slots__ = ()

    def visit_FindAll(self, node, x):
        where = f"{x} {self.v.name} {self.fresh('n')}{self.v.node} ."
        if not self.options.findall_concepts:
            where += f"\nFILTER NOT EXISTS {{ {x} {self.v.marker} {self.v.concept} }}"
        return Sub(where, x, (x,), fan=1)

    def visit_Find(self, node, x):
        return Sub(f"{x} {self.v.name} {self.e.name_literal(node.name)}{self.v.node} .", x, (x,))

    def visit_FilterConcept(self, node, x):
        inner = self.set_of(node.input, x).entities()
        if self.e.concepts_by_name:
            test = f"{x} {self.v.type} {iri(self.e.concept(node.concept))} ."
        else:
            c, name = self.fresh("c"), self.e.name_literal(node.concept)
            test = f"{self.in_concept(x, c)}\n{c} {self.v.name} {name} ."
        result = Sub(join(inner.where, test), x, (x,), fan=inner.fan)
        return result.nothing() if inner.empty else result

    def in_concept(self, x: str, c: str) -> str:
        """The pattern of node `x` in concept `c`, directly or by the concepts above: where
        the encoding names a concept's parents, a union of paths of one step or more, each of
        one predicate. Virtuoso 7 answers a path that may be empty (``(link|parent)/parent*``)
        or alternates predicates by listing the concept's every member first (0.45 s at 10^8
        triples, where the union takes a millisecond)."""
        v = self.v
        if not v.concept_parent:
            return f"{x} {v.concept_link or v.type} {c} ."
        link, parent = v.concept_link, v.concept_parent
        return (f"{{ {x} {link} {c} . }} UNION {{ {x} {link}/{parent}+ {c} . }} UNION "
                f"{{ {x} {parent}+ {c} . }}")

    def visit_Relate(self, node, x):
        direction = str(node.direction)
        a = self.fresh("x")
        inner = self.set_of(node.input, a).entities()
        relation = iri(self.e.relation(node.relation))
        if not self.e.reified:
            triple = f"{a} {relation} {x} ." if direction == "forward" else \
                f"{x} {relation} {a} ."
            result = Sub(join(inner.where, triple), x, (a, x),
                         ("relation", node.relation, direction), fan=inner.fan + 1)
        else:
            f = self.fresh("f")
            result = Sub(join(inner.where, self.record(f, a, relation, direction, x)), x,
                         (f, x), ("node", f), fan=inner.fan + 1)
        return result.nothing() if inner.empty else result

    def record(self, f: str, here: str, relation: str, direction: str, there: str) -> str:
        """The reified record `f` of `relation` stored on `here` in `direction`, to `there`."""
        v = self.v
        if self.e.statements:
            head, tail = (here, there) if direction == "forward" else (there, here)
            return self.e.statement(f, head, relation, tail, getattr(v, direction))
        if direction == "forward":
            return (f"{f} {v.fact_h} {here} ; {v.fact_r} {relation} ; {v.record} {v.forward} ; "
                    f"{v.fact_t} {there} .")
        return (f"{f} {v.fact_t} {here} ; {v.fact_r} {relation} ; {v.record} {v.backward} ; "
                f"{v.fact_h} {there} .")

    def attribute_fact(self, x: str, key: str, value: str) -> tuple[str, tuple, str]:
        """(pattern, fact, id) binding `value` to the value handle of each `key` fact of `x`;
        `id` is the variable that tells the facts apart."""
        k = iri(self.e.key(key))
        if not self.e.reified:
            return f"{x} {k} {value} .", ("attribute", key, value), value
        f, v = self.fresh("f"), self.v
        if self.e.statements:
            return self.e.statement(f, x, k, value, v.attribute, value=True), ("node", f), f
        return (f"{f} {v.fact_h} {x} ; {v.fact_r} {k} ; {v.record} {v.attribute} ; "
                f"{v.fact_t} {value} ."), ("node", f), f

    def visit_filter(self, node, x):
        """FilterStr/Num/Year/Date: a fact of the key whose value passes the literal test (the
        comparison, `Lowering.comparison`, is the one part that depends on the value kind)."""
        inner = self.set_of(node.input, x).entities()
        base = inner.where
        op, target = self.comparison(node, node.value)
        h = self.fresh("v")
        fact_pattern, fact, fact_id = self.attribute_fact(x, node.key, h)
        test = self.vp.test(h, target, op, self.options.inclusive_comparators)
        result = Sub(join(base, fact_pattern, test or ""), x, (fact_id, x), fact, fan=inner.fan)
        if inner.empty:
            return result.nothing()
        if test is None:
            self.raise_when_compared(node, join(base, fact_pattern), h, target, op)
            return result.nothing()
        return result

    def raise_when_compared(self, node, where: str, handle: str, target, op: str) -> None:
        """The engine raises once `op` meets a value it can compare: guard for it."""
        self.guard(node, join(where, self.vp.comparable(handle, target)),
                   f"unsupported comparator {op!r}: the engine supports =, !=, <, >")

    def visit_qfilter(self, node, x):
        """QFilterStr/Num/Year/Date: the input's (entity, fact) pairs whose fact has a
        qualifier value of the key that passes the literal test."""
        inner = self.set_of(node.input, x)
        op, target = self.comparison(node, node.qvalue)
        if inner.fact[0] != "node" or inner.empty:  # plain triples carry no qualifiers
            return inner.nothing()
        f, q = inner.fact[1], self.fresh("q")
        has = f"{f} {self.e.qualifier(node.qkey)} {q} ."
        test = self.vp.test(q, target, op, self.options.inclusive_comparators)
        if test is None:
            self.raise_when_compared(node, join(inner.where, has), q, target, op)
            return inner.nothing()
        # A join, not FILTER EXISTS: the key (which holds the fact) keeps each pair once, and
        # Virtuoso drops FILTER EXISTS inside a UNION branch of a subquery.
        return inner._replace(where=join(inner.where, has, test))

    def visit_And(self, node, x):
        left, right = self.set_of(node.left, x), self.set_of(node.right, x)
        if left.empty or right.empty:
            return Sub("", x, (x,)).nothing()
        if left.fan + right.fan >= 2:
            left, right = left.entities(1), right.entities(1)
        left, right = left.entities(), right.entities()
        return Sub(join(left.where, right.where), x, (x,), fan=left.fan + right.fan)

    def visit_Or(self, node, x):
        left, right = self.set_of(node.left, x), self.set_of(node.right, x)
        if left.empty or right.empty:
            kept = right if left.empty else left
            return Sub(kept.where, x, (x,), None, kept.flat, kept.fan, kept.empty)
        return Sub(f"{block(left.where)}\nUNION\n{block(right.where)}", x, (x,), None, False)
