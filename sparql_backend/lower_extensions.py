"""Lowering of the extensions: Entity, ArgMax, ArgMin, TimeConstraint and Exists (mixed into
`Lowering`), with the semantics of `koplc.kopl.execution.extensions`.

ArgMax/ArgMin keep ties with a MAX/MIN subquery, as GrailQA's gold SPARQL does. The candidate
values are those of the key on the nodes the path reaches from each input entity; quantities
rank in the majority unit (a tie between units goes to the unit that sorts first, where the
executor takes the first one it meets), and without quantities times rank by date when all are
dates, else by year. TimeConstraint keeps the input entities with a fact of the relation that
holds at the time, read from its point-in-time / start / end qualifiers. Exists counts the
distinct input entities and answers "yes" when there is one.
"""

from __future__ import annotations

from koplc.kopl.execution.extensions import END, POINT, START
from koplc.kopl.types import Direction
from koplc.kopl.values import DATE, TIME, Value
from koplc.sparql_backend.patterns import NEVER, Shape, Sub, block, indent, join, select_distinct
from koplc.sparql_backend.terms import date_literal, integer, iri, string
from koplc.sparql_backend.value_patterns import choose

EXISTS_ANSWER = 'BIND(IF(?count > 0, "yes", "no") AS ?answer)'  # Exists's last line


class ExtensionLowering:
    """The visitors (`OpInfo.visitor`) of the extension ops: `(node, var) -> Sub` for those
    giving entities, `(node) -> (SELECT text, Shape)` for Exists."""

    __slots__ = ()

    def visit_Entity(self, node, x):
        node_iri = iri(self.e.node(node.id))
        return Sub(f"VALUES {x} {{ {node_iri} }}\n{x} {self.v.name} {self.fresh('n')} .", x,
                   (x,))

    def visit_Exists(self, node):
        inner = self.set_of(node.input, self.fresh("x")).distinct()
        return (f"SELECT ?answer WHERE {{\n{indent(_counted(inner, '?count'))}\n"
                f"  {EXISTS_ANSWER}\n}}", Shape("answer"))

    def visit_ArgMax(self, node, x):
        return self._arg_extreme(node, x, "MAX")

    def visit_ArgMin(self, node, x):
        return self._arg_extreme(node, x, "MIN")

    def _arg_extreme(self, node, x, aggregate):
        if self.set_of(node.input, x).empty:  # also registers the input's guards, once
            return Sub(NEVER, x, (x,), empty=True)
        self.quiet += 1
        try:
            branches = [self._by_quantity(node, x, aggregate),
                        self._by_time(node, x, aggregate, dates=True),
                        self._by_time(node, x, aggregate, dates=False)]
        finally:
            self.quiet -= 1
        return Sub("\nUNION\n".join(block(b) for b in branches), x, (x,), None, False)

    def _rows(self, node, e: str, kind: str) -> tuple[str, tuple[str, ...]]:
        """(subquery, parts): each value of the key on each node the path reaches from each
        distinct input entity `e`, once per (entity, node, fact), if it is a quantity (parts:
        number, unit) or a time (parts: year, is-a-date, date)."""
        inner = self.set_of(node.input, e).entities(1)
        reached, hops = e, []
        for hop in node.path:
            step = self.fresh("x")
            hops.append(self._hop(reached, hop, step))
            reached = step
        h = self.fresh("v")
        fact_pattern, _, fact_id = self.attribute_fact(reached, node.key, h)
        pattern, *parts = self.vp.quantity(h) if kind == "quantity" else self.vp.time(h)
        if self.vp.nodes:
            # The value node's parts as a left join, read once the fact is found: as a plain
            # join, Oxigraph's server may first join every value node with every fact (a
            # product of two whole-KB sets; over 20 GB for two entities of a small KB).
            pattern = f"OPTIONAL {{ {pattern} }}\nFILTER(BOUND({parts[0]}))"
        variables = [p for p in parts if p.startswith("?") and " " not in p]
        where = join(inner.where, *hops, fact_pattern, pattern)
        return select_distinct(" ".join(dict.fromkeys((e, reached, fact_id, *variables))),
                               where), tuple(parts)

    def _hop(self, here: str, hop, there: str) -> str:
        relation = iri(self.e.relation(hop.relation))
        forward = hop.direction == Direction.FORWARD
        if not self.e.reified:
            return f"{here} {relation} {there} ." if forward else f"{there} {relation} {here} ."
        return self.record(self.fresh("f"), here, relation, str(hop.direction), there)

    def _quantities(self, node, e: str, unit: bool) -> tuple[str, str]:
        """(pattern, number) of the candidate quantities, in the majority unit if `unit`; with
        unit conversion, those whose unit converts to it, each ranked by its number in the SI
        base units (the same order as in the majority unit)."""
        rows, (n, u) = self._rows(node, e, "quantity")
        if not (unit and self.e.value_nodes):
            return rows, n
        inner_rows, (_, u2) = self._rows(node, self.fresh("e"), "quantity")
        majority = self.fresh("unit")
        pick = (f"{{ SELECT ({u2} AS {majority}) WHERE {{\n{indent(inner_rows)}\n}}"
                f"\nGROUP BY {u2} ORDER BY DESC(COUNT(*)) {u2} LIMIT 1 }}")
        if self.vp.units is None:
            return join(rows, pick, f"FILTER({u} = {majority})"), n
        table, d, f = self.vp.dimensions(u)
        majority_table, d2, _ = self.vp.dimensions(majority)
        return join(rows, table, pick, majority_table, f"FILTER({d} = {d2})"), f"({n} * {f})"

    def _by_quantity(self, node, x, aggregate):
        rows, n = self._quantities(node, x, unit=True)
        best_rows, n2 = self._quantities(node, self.fresh("e"), unit=True)
        best = self.fresh("best")
        return join(rows, f"{{ SELECT ({aggregate}({n2}) AS {best}) WHERE {{\n"
                    f"{indent(best_rows)}\n}} }}", f"FILTER({n} = {best})")

    def _by_time(self, node, x, aggregate, dates: bool):
        """Candidates ranked by date (all times are dates) or by year (some are years)."""
        no_quantity = self._rows(node, self.fresh("e"), "quantity")[0]
        year_rows, (_, is_date, _) = self._rows(node, self.fresh("e"), "time")
        a_year = join(year_rows, f"FILTER(!({is_date}))")
        # Whether there are quantities, and years, as counts taken once: a FILTER (NOT) EXISTS
        # of these uncorrelated patterns took Oxigraph's server 25 s on two entities.
        quantities, years = self.fresh("count"), self.fresh("count")
        rows, (y, _, d) = self._rows(node, x, "time")
        best_rows, (y2, _, d2) = self._rows(node, self.fresh("e"), "time")
        best = self.fresh("best")
        rank, rank2 = (d, d2) if dates else (y, y2)
        return join(_counted(no_quantity, quantities), f"FILTER({quantities} = 0)",
                    _counted(a_year, years), f"FILTER({years} {'=' if dates else '>'} 0)", rows,
                    f"{{ SELECT ({aggregate}({rank2}) AS {best}) WHERE {{\n"
                    f"{indent(best_rows)}\n}} }}", f"FILTER({rank} = {best})")

    def visit_TimeConstraint(self, node, x):
        moment = self.literal(node.time, TIME)
        inner = self.set_of(node.input, x)
        relation = iri(self.e.relation(node.relation))
        if not self.e.reified:  # no qualifiers: every fact holds
            held = f"EXISTS {{ {x} {relation} [] }} || EXISTS {{ [] {relation} {x} }}"
        else:
            held = " || ".join(
                f"EXISTS {{ {self.record(f, x, relation, way, '[]')} FILTER({self.holds(f, moment)}) }}"
                for f, way in ((self.fresh("f"), "forward"), (self.fresh("f"), "backward")))
        if inner.empty:
            return inner.nothing()._replace(fact=None)
        return inner._replace(where=join(inner.where, f"FILTER({held})"), fact=None)

    def holds(self, f: str, moment: Value) -> str:
        """Whether fact `f` holds at `moment` (`execution.extensions.holds` as an expression)."""
        year = integer(moment.year)
        day = date_literal(moment.value) if moment.type == DATE else None

        def some(key: str, op: str | None = None, flip: bool = False) -> str:
            """EXISTS a time value of qualifier `key` (that compares by `op` with the moment,
            or the moment with it when `flip`)."""
            q = self.fresh("q")
            pattern, y, is_date, d = self.vp.time(q)
            found = f"{f} {self.e.qualifier(key)} {q} . {pattern}"
            if op is None:
                return f"EXISTS {{ {found} }}"
            by_year = f"{year} {op} {y}" if flip else f"{y} {op} {year}"
            if day is None:
                check = by_year
            else:
                on_day = f"{day} {op} {d}" if flip else f"{d} {op} {day}"
                if op == "=":  # by text, as `value_patterns` does for Virtuoso
                    on_day = f"STR({d}) = {string(moment.value.isoformat())}"
                check = choose(is_date, on_day, by_year)
            return f"EXISTS {{ {found} FILTER({check}) }}"

        none = f"!{some(POINT)} && !{some(START)} && !{some(END)}"
        started = f"(!{some(START)} || {some(START, '<=')})"
        ended = f"(!{some(END)} || {some(END, '<=', flip=True)})"
        return (f"({none}) || {some(POINT, '=')} || "
                f"(({some(START)} || {some(END)}) && {started} && {ended})")


def _counted(rows: str, var: str) -> str:
    """A subquery binding `var` to how many solutions `rows` has."""
    return f"{{ SELECT (COUNT(*) AS {var}) WHERE {{\n{indent(rows)}\n}} }}"
