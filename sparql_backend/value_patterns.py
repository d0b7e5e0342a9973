"""SPARQL patterns over a value handle: the engine's comparisons, and reading values back.

A *handle* is the variable a fact's value is bound to: a value node (with ``<pred:value>``,
``<pred:unit>``, ``<pred:year>``, ``<pred:date>``) or a typed literal, as the encoding says; in
the Wikidata encoding a string is a literal and a quantity or time a ``wikibase:`` value node. Every
pattern here must follow the pattern that binds the handle in the same group (or sit inside
``EXISTS``), and matches at most once per handle, so joins keep the engine's multiplicities.

The tests mirror `koplc.kopl.values.matcher`: quantities compare only in the same unit, or, when
the KB's units are given (unit conversion), in any unit that converts to the target's (a
``VALUES`` table of the KB's units with their factors, so the test stays one pattern); a year
target compares any time by its year (so ``=`` is containment); a date target compares dates by
day and years by year, with ``!=`` true for every year; ``<=``/``>=`` (inclusive) are "same
kind and not the strict opposite". Where the engine raises instead of comparing, `test` gives
None and `comparable` says when that happens.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from koplc.kopl.values import DATE, QUANTITY, STRING, YEAR, Value
from koplc.sparql_backend.encodings import Encoding, unit_name
from koplc.sparql_backend.terms import XSD, Term, date_literal, double, integer, iri, string

_NUMERIC = {f"{XSD}{t}" for t in ("double", "float", "decimal", "integer", "int", "long",
                                  "short", "byte", "nonNegativeInteger", "positiveInteger",
                                  "negativeInteger", "nonPositiveInteger", "unsignedInt",
                                  "unsignedLong", "unsignedShort", "unsignedByte")}
_STRICT = ("=", "!=", "<", ">")


class ValuePatterns:
    """Patterns over value handles for one encoding; `fresh` names new variables."""

    def __init__(self, encoding: Encoding, fresh: Callable[[str], str],
                 units: tuple[str, ...] | None = None):
        self.e, self.fresh = encoding, fresh
        self.nodes = encoding.value_nodes
        self.units = units if self.nodes else None  # the KB's units: conversion is on
        self.value, self.unit = iri(encoding.value), iri(encoding.unit)
        self.year, self.date = iri(encoding.year), iri(encoding.date)
        self.time_term = iri(encoding.time)
        self.literal_strings = encoding.statements

    # What kind of value a handle is, and its parts as expressions.

    def quantity(self, v: str) -> tuple[str, str, str]:
        """(pattern, number, unit) for a quantity handle."""
        if not self.nodes:
            return f"FILTER(isNumeric({v}))", v, '"1"'
        n, u = self.fresh("n"), self.fresh("u")
        return f"{v} {self.unit} {u} . {v} {self.value} {n} .", n, u

    def time(self, v: str) -> tuple[str, str, str, str]:
        """(pattern, year, is-a-date, date) for a year or date handle; the date term means
        something only when is-a-date holds. A value node is read through its one typed time
        literal, so no EXISTS or OPTIONAL is needed."""
        if self.nodes:
            y, t = self.fresh("y"), self.fresh("t")
            return f"{v} {self.year} {y} . {v} {self.time_term} {t} .", y, \
                f"datatype({t}) = xsd:date", t
        is_date = f"datatype({v}) = xsd:date"
        return (f"FILTER({is_date} || datatype({v}) = xsd:gYear)",
                f"IF({is_date}, YEAR({v}), xsd:integer(STR({v})))", is_date, v)

    def string_is(self, v: str, text: str) -> str:
        if not self.nodes or self.literal_strings:
            return f"FILTER({v} = {string(text)})"
        return f"{v} {self.value} {string(text)} ."

    # The engine's comparisons.

    def test(self, v: str, target: Value, op: str, inclusive: bool = False) -> str | None:
        """A pattern matching when `matcher(target, op, inclusive)` accepts the value; None
        when the engine raises on a comparable value instead (see `comparable`)."""
        strict = op in _STRICT
        if not strict and not (inclusive and op in ("<=", ">=")):
            return None
        if target.type == STRING:
            if op == "=":
                return self.string_is(v, target.value)
            return None
        if target.type == QUANTITY:
            pattern, n, u = self.quantity(v)
            number = double(target.value)
            check = f"{n} {op} {number}" if strict else f"!({n} {_opposite(op)} {number})"
            same_unit = f"{u} = {self.e.unit_term(target.unit)}"
            scales = self.scales(target.unit)
            if not scales:
                return f"{pattern} FILTER({same_unit} && {check})"
            s = self.fresh("s")
            converted = _converted(f"({n} * {s})", number, op) if strict else \
                f"!({_converted(f'({n} * {s})', number, _opposite(op))})"
            return (f"{pattern} VALUES ({u} {s}) {{ {scales} }} "
                    f"FILTER({choose(same_unit, check, converted)})")
        pattern, y, is_date, d = self.time(v)
        return f"{pattern} FILTER({_time_check(target, op, y, is_date, d)})"

    def comparable(self, v: str, target: Value) -> str:
        """A pattern matching the values the engine compares with `target` (where it raises)."""
        if target.type == STRING:
            if self.literal_strings:
                return f"FILTER(isLiteral({v}) && datatype({v}) = xsd:string)"
            if not self.nodes:
                return f"FILTER(datatype({v}) = xsd:string)"
            s = self.fresh("s")
            return f"{v} {self.value} {s} . FILTER(datatype({s}) = xsd:string)"
        if target.type == QUANTITY:
            pattern, _, u = self.quantity(v)
            scales = self.scales(target.unit)
            if scales:
                return f"{pattern} VALUES ({u} {self.fresh('s')}) {{ {scales} }}"
            return f"{pattern} FILTER({u} = {self.e.unit_term(target.unit)})"
        return self.time(v)[0]

    def scales(self, unit: str) -> str:
        """The rows ``(unit factor)`` of a VALUES table: each of the KB's units that converts
        to `unit` with the factor that does it (`koplc.kopl.units.factor`, as the executor
        converts), `unit` itself first; empty without conversion or when none converts."""
        if self.units is None:
            return ""
        from koplc.kopl.units import factor

        kin = [(u, factor(u, unit)) for u in self.units if u != unit]
        kin = [(u, f) for u, f in kin if f is not None]
        if not kin:
            return ""
        return " ".join(f"({self.e.unit_term(u)} {double(f)})" for u, f in [(unit, 1.0), *kin])

    def dimensions(self, u: str) -> tuple[str, str, str]:
        """(table, dimension, factor) for unit handle `u`: a VALUES table of every unit of the
        KB with its dimension and its factor to the SI base units (`koplc.kopl.units.in_base`;
        a unit that converts to no other is a dimension of its own, factor 1)."""
        from koplc.kopl.units import in_base

        d, f = self.fresh("dim"), self.fresh("f")
        rows = []
        for unit in self.units or ():
            dimension, number = in_base(unit) or ("=" + unit, 1.0)
            rows.append(f"({self.e.unit_term(unit)} {string(dimension)} {double(number)})")
        return f"VALUES ({u} {d} {f}) {{ {' '.join(rows)} }}", d, f

    # Reading values back.

    def describe(self, v: str, prefix: str) -> tuple[str, list[str], list[str]]:
        """(pattern, variables, columns) that bring back the value of handle `v`: the pattern
        binds the variables (at most once), the columns project them under names `decode_value`
        reads."""
        if not self.nodes:
            return "", [v], [f"({v} AS ?{prefix})", f"(STR({v}) AS ?{prefix}_text)"]
        a, b, c, d = (f"?{prefix}_{part}" for part in ("value", "unit", "year", "date"))
        if self.literal_strings:
            pattern = (f"OPTIONAL {{ {v} {self.value} {a}0 }} OPTIONAL {{ {v} {self.unit} {b} }} "
                       f"OPTIONAL {{ {v} {self.year} {c} }} OPTIONAL {{ {v} {self.time_term} {d} "
                       f"FILTER(datatype({d}) = xsd:date) }}")
            return pattern, [v, f"{a}0", b, c, d], \
                [f"(IF(isLiteral({v}), STR({v}), STR({a}0)) AS {a})", b, c, d]
        pattern = (f"OPTIONAL {{ {v} {self.value} {a}0 }} OPTIONAL {{ {v} {self.unit} {b} }} "
                   f"OPTIONAL {{ {v} {self.year} {c} }} OPTIONAL {{ {v} {self.date} {d} }}")
        return pattern, [f"{a}0", b, c, d], [f"(STR({a}0) AS {a})", b, c, d]


def decode_value(row: dict[str, Term], prefix: str, value_nodes: bool) -> Value | None:
    """The value in the columns `describe` projected, or None when they hold nothing."""
    if not value_nodes:
        term = row.get(prefix)
        if term is None:
            return None
        text = row[f"{prefix}_text"].value if f"{prefix}_text" in row else term.value
        return literal_value(term, text)
    day, year = row.get(f"{prefix}_date"), row.get(f"{prefix}_year")
    unit, value = row.get(f"{prefix}_unit"), row.get(f"{prefix}_value")
    if day is not None:
        return Value(DATE, read_date(day.value))
    if unit is not None and value is not None:
        return Value(QUANTITY, float(value.value),
                     unit_name(unit.value) if unit.kind == "iri" else unit.value)
    if year is not None:
        return Value(YEAR, int(year.value))
    return None if value is None else Value(STRING, value.value)


def literal_value(term: Term, text: str) -> Value:
    """A typed literal as a value: numbers are unitless quantities."""
    if term.datatype in _NUMERIC:
        return Value(QUANTITY, float(text), "1")
    if term.datatype == f"{XSD}gYear":
        return Value(YEAR, int(text))
    if term.datatype == f"{XSD}date":
        return Value(DATE, read_date(text))
    return Value(STRING, term.value)


def read_date(text: str) -> date:
    """A date as stores print it (``1990-05-02``, maybe with a zone or a time after it)."""
    return date.fromisoformat(text.strip()[:10])


def _opposite(op: str) -> str:
    return ">" if op == "<=" else "<"


def _converted(n: str, number: str, op: str) -> str:
    """The executor's test of a converted number: within 1e-9 of the target counts as equal."""
    near = f"ABS({n} - {number}) <= 1e-9 * IF(ABS({n}) > ABS({number}), ABS({n}), ABS({number}))"
    if op == "=":
        return near
    if op == "!=":
        return f"!({near})"
    return f"!({near}) && {n} {op} {number}"


def _time_check(target: Value, op: str, y: str, is_date: str, d: str) -> str:
    """The engine's time comparison (`values._time_test`) as an expression."""
    if op in ("<=", ">="):
        return f"!({_time_check(target, _opposite(op), y, is_date, d)})"
    if target.type == YEAR:
        return f"{y} {op} {integer(target.value)}"
    day, year = date_literal(target.value), integer(target.value.year)
    # Dates are tested equal by their text: Virtuoso rewrites `?d = "1970-01-01"^^xsd:date`
    # into a lookup that also finds the year 1970.
    if op == "=":
        return f"{is_date} && STR({d}) = {string(target.value.isoformat())}"
    if op == "!=":
        return f"!({is_date}) || STR({d}) != {string(target.value.isoformat())}"
    return choose(is_date, f"{d} {op} {day}", f"{y} {op} {year}")


def choose(condition: str, then: str, otherwise: str) -> str:
    """IF(condition, then, otherwise) for booleans, without IF: Virtuoso cannot put EXISTS
    inside IF."""
    return f"(({condition}) && ({then})) || (!({condition}) && ({otherwise}))"
