"""Lowering of the answering operations: names, counts, attribute and qualifier values,
relation labels, Select* and Verify* (mixed into `Lowering`).

Value-giving ops (QueryAttr, QueryAttrUnderCondition, QueryAttrQualifier,
QueryRelationQualifier) bind a value handle, so Verify* can test them; the others write the
whole SELECT. Verify* counts matching values in SPARQL and says yes / no / not sure there too.
Select* bring back each candidate quantity; `results` takes the majority unit and the extreme.
"""

from __future__ import annotations

from koplc.kopl.values import parse_literal, unreadable
from koplc.sparql_backend.encodings import PS
from koplc.sparql_backend.patterns import NEVER, Shape, Sub, block, indent, join, select_distinct
from koplc.sparql_backend.terms import iri, string

KEY_KINDS = ("string", "quantity", "date")  # the engine's key_type values


class QueryLowering:
    """The visitors (`OpInfo.visitor`) of ops that answer: (SELECT text, Shape), or a value Sub
    for value ops."""

    __slots__ = ()

    def visit_QueryName(self, node):
        x = self.fresh("x")
        inner = self.set_of(node.input, x).joinable().distinct(f"{x} {self.v.name} ?name0 .",
                                                               "?name0")
        return select("(STR(?name0) AS ?name)", inner), Shape("names")

    def visit_Count(self, node):
        inner = self.set_of(node.input, self.fresh("x")).distinct()
        return select("(COUNT(*) AS ?count)", inner), Shape("count")

    def visit_QueryAttr(self, node, h):
        x = self.fresh("x")
        inner = self.set_of(node.input, x).joinable()
        fact_pattern, _, fact_id = self.attribute_fact(x, node.key, h)
        result = Sub(join(inner.where, fact_pattern), h, (*inner.key, fact_id))
        return result.nothing() if inner.empty else result

    def keyed_test(self, node, key: str, handle: str, text: str, what: str) -> str | None:
        """An expression: the handle equals `text` read with the type the KB gives `key` (the
        engine's key_type). Guards raise where the engine does: an unknown key, or a literal
        that does not read as the key's type. None when the literal reads as no type."""
        k, key_type = iri(self.e.key(key)), self.v.key_type
        self.guard(node, f"{k} {key_type} ?kind .",
                   f"{what} {key!r} is not in the KB, so {text!r} has no type (the engine "
                   "raises KeyError)", raises=False)
        tests = []
        for kind in KEY_KINDS:
            try:
                target = parse_literal(text, kind)
            except (ValueError, IndexError, OverflowError) as err:
                self.guard(node, f"{k} {key_type} {string(kind)} .", unreadable(text, kind, err))
                continue
            test = self.vp.test(handle, target, "=")
            tests.append(f"EXISTS {{ {k} {key_type} {string(kind)} . {test} }}")
        return " || ".join(tests) or None

    def visit_QueryAttrUnderCondition(self, node, h):
        x, q = self.fresh("x"), self.fresh("q")
        inner = self.set_of(node.input, x).joinable()
        condition = self.keyed_test(node, node.qkey, q, node.qvalue, "qualifier key")
        fact_pattern, fact, fact_id = self.attribute_fact(x, node.key, h)
        key = (*inner.key, fact_id)
        if fact[0] != "node" or inner.empty or condition is None:
            return Sub(NEVER, h, key, empty=True)
        qualifier = f"{fact[1]} {self.e.qualifier(node.qkey)} {q} ."
        return Sub(join(inner.where, fact_pattern,
                        f"FILTER EXISTS {{ {qualifier} FILTER({condition}) }}"), h, key)

    def visit_QueryAttrQualifier(self, node, h):
        x, w = self.fresh("x"), self.fresh("w")
        inner = self.set_of(node.input, x).joinable()
        condition = self.keyed_test(node, node.key, w, node.value, "attribute key")
        fact_pattern, fact, fact_id = self.attribute_fact(x, node.key, w)
        key = (*inner.key, fact_id, h)
        if fact[0] != "node" or inner.empty or condition is None:
            return Sub(NEVER, h, key, empty=True)
        return Sub(join(inner.where, fact_pattern, f"FILTER({condition})",
                        f"{fact[1]} {self.e.qualifier(node.qkey)} {h} ."), h, key)

    def forward_pairs(self, node, relation: str | None) -> tuple[str, tuple, str | None]:
        """(pattern, key, fact var) of each forward fact from a left to a right element, with
        `relation` (or any, bound to ?relation0); the fact var is None for plain triples; the
        pattern is NEVER when a side is known to be empty."""
        a, b = self.fresh("x"), self.fresh("x")
        left = self.set_of(node.left, a).joinable()
        right = self.set_of(node.right, b).joinable()
        sets, key = join(left.where, right.where), (*left.key, *right.key)
        if left.empty or right.empty:
            sets = NEVER
        r = "?relation0" if relation is None else iri(self.e.relation(relation))
        if not self.e.reified:
            prefix = string(self.e.base + self.e.relation_prefix)
            check = f"FILTER(STRSTARTS(STR(?relation0), {prefix}))" if relation is None else ""
            return join(sets, f"{a} {r} {b} .", check), key, None
        f, v = self.fresh("f"), self.v
        if self.e.statements:
            return join(sets, self.statement_pair(f, a, r, b)), (*key, f), f
        return join(sets, f"{f} {v.fact_h} {a} ; {v.record} {v.forward} ; {v.fact_t} {b} ; "
                    f"{v.fact_r} {r} ."), (*key, f), f

    def statement_pair(self, f: str, a: str, r: str, b: str) -> str:
        """A forward statement `f` from `a` to `b` of property `r` (a ``p:`` IRI, or a
        variable for any property)."""
        if not r.startswith("?"):
            return self.e.statement(f, a, r, b, self.v.forward)
        ps = self.fresh("p")
        return (f"{a} {r} {f} .\n{f} {self.v.record} {self.v.forward} ; {ps} {b} .\n"
                f"FILTER(STRSTARTS(STR({ps}), {string(PS)}))")

    def visit_QueryRelation(self, node):
        where, key, _ = self.forward_pairs(node, None)
        inner = select_distinct(" ".join(dict.fromkeys((*key, "?relation0"))), where)
        return select("(?relation0 AS ?relation)", inner), Shape("labels")

    def visit_QueryRelationQualifier(self, node, h):
        where, key, f = self.forward_pairs(node, node.relation)
        if f is None or where.startswith(NEVER):
            return Sub(NEVER, h, (*key, h), empty=True)
        return Sub(join(where, f"{f} {self.e.qualifier(node.qkey)} {h} ."), h, (*key, h))

    def candidates(self, x: str, key: str) -> tuple[str, str, list[str]]:
        """(pattern, fact id, columns) of each quantity of `key` on `x`, with `x`'s name."""
        h = self.fresh("v")
        fact_pattern, _, fact_id = self.attribute_fact(x, key, h)
        quantity, n, u = self.vp.quantity(h)
        where = join(fact_pattern, quantity, f"{x} {self.v.name} ?name0 .")
        return where, fact_id, [f"(STR({n}) AS ?number)", f"({u} AS ?unit)",
                                "(STR(?name0) AS ?name)"]

    def no_quantities(self, node) -> str:
        return (f"{self.step(node)}: no quantity values of {node.key!r} to compare (the engine "
                "raises IndexError)")

    def visit_SelectBetween(self, node):
        x = self.fresh("x")
        left, right = self.set_of(node.left, x), self.set_of(node.right, x)
        where, fact_id, columns = self.candidates(x, node.key)
        # BIND after a nested group: a BIND beside FILTERs in one group trips Virtuoso.
        sides = [block(join(block(side.where), f"BIND({number} AS ?side)"))
                 for number, side in enumerate((left, right)) if not side.empty]
        sides = "\nUNION\n".join(sides) or NEVER
        both = dict.fromkeys(("?side", *left.key, *right.key, x))
        sides = select_distinct(" ".join(both), sides)
        inner = select_distinct(" ".join([*both, fact_id, *columns]), join(sides, where))
        body = (f"# koplc pick: SelectBetween {node.comparator}\n"  # the rows are picked from
                f"{select('?side ?number ?unit ?name', inner)}\nORDER BY ?side STR({x})")
        return body, Shape("between", (str(node.comparator), self.no_quantities(node),
                                   self.vp.units is not None))

    def visit_SelectAmong(self, node):
        x = self.fresh("x")
        inner = self.set_of(node.input, x).entities()
        where, fact_id, columns = self.candidates(x, node.key)
        rows = select_distinct(" ".join([x, fact_id, *columns]),
                               NEVER if inner.empty else join(inner.where, where))
        body = (f"# koplc pick: SelectAmong {node.comparator}\n"  # after the query (lift)
                f"{select('?number ?unit ?name', rows)}\nORDER BY STR({x})")
        return body, Shape("among", (str(node.comparator), self.no_quantities(node),
                                   self.vp.units is not None))

    def visit_verify(self, node):
        """VerifyStr/Num/Year/Date: count the distinct input values and those passing the
        literal test, and answer yes, no or not sure from the two counts."""
        h = self.fresh("v")
        values = self.values_of(node.input, h)
        op, target = self.comparison(node, node.value)
        test = self.vp.test(h, target, op, self.options.inclusive_comparators)
        if test is None:
            self.raise_when_compared(node, values.where, h, target, op)
            hit = "0"
        elif self.e.statements and test.startswith("FILTER(") and test.count("FILTER") == 1:
            # A literal's test is an expression: Virtuoso answers EXISTS { FILTER(...) } over
            # an outer variable as true whatever the variable holds.
            hit = f"IF({test[len('FILTER('):-1]}, 1, 0)"
        else:
            hit = f"IF(EXISTS {{ {test} }}, 1, 0)"
        counted = (f"{{ SELECT (COUNT(*) AS ?total) (SUM(?hit0) AS ?hits) WHERE {{\n"
                   f"{indent(values.distinct(), '    ')}\n    BIND({hit} AS ?hit0)\n  }} }}")
        answer = ('BIND(IF(COALESCE(?hits, 0) = 0, "no", IF(?hits = ?total, "yes", "not sure"))'
                  " AS ?answer)")
        return f"SELECT ?answer WHERE {{\n  {counted}\n  {answer}\n}}", Shape("answer")


def select(columns: str, inner: str) -> str:
    """`SELECT columns` over one subquery."""
    return f"SELECT {columns} WHERE {{\n{indent(inner)}\n}}"
