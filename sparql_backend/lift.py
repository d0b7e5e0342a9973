"""Lift SPARQL back into the IR, for the subset the lowering itself writes.

The lowering gives every variable a fresh name and writes one pattern a line, so a query is
read as data flow: each triple pattern defines a variable from another (a name defines an
entity set, a fact record relates two sets, a type test filters one), and the projection says
which variable the answer reads and how (names, a count, attribute values, the entity set).
Supported in the kqapro encoding: Find, FindAll, Entity, FilterConcept, Relate, And, Or (a
UNION of groups), QueryName, Count, QueryAttr, the value filters FilterStr/Num/Year/Date and
QFilterStr/Num/Year/Date (the value tests of value_patterns.py, `!(x > t)` read as `x <= t`),
QueryRelation, QueryAttrQualifier, QueryRelationQualifier, QueryAttrUnderCondition, Verify*
and Exists (the yes/no counts); in the plain encoding, the set operations and their queries.
Anything else (ORDER BY, GROUP BY, a FILTER the lowering does not write, ASK, another
encoding's vocabulary) raises UnsupportedConstruct naming the construct.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from koplc.kopl import ir
from koplc.kopl.errors import UnsupportedConstruct
from koplc.kopl.registry import op_for
from koplc.kopl.values import STRING
from koplc.sparql_backend.encodings import (
    ATTRIBUTE,
    BACKWARD,
    FORWARD,
    RECORD,
    Encoding,
    encoding_named,
)
from koplc.sparql_backend.lift_synthesis import lift_by_synthesis
from koplc.sparql_backend.lift_tests import read_special, read_value_test
from koplc.sparql_backend.lower_extensions import EXISTS_ANSWER

_TOKEN = re.compile(r'\s*(<[^<>\s]*>|"(?:[^"\\]|\\.)*"(?:@[\w-]+|\^\^<[^>]*>)?|[?$]\w+|'
                    r"[{}().;,*]|[A-Za-z_][\w:-]*)")
_STRUCTURE = re.compile(r"^(PREFIX\s|\{ SELECT DISTINCT [?$\w ]+ WHERE \{$|\}+$|\} \}$|"
                        r"SELECT .* WHERE \{$)")
_OPAQUE = re.compile(r'"(?:[^"\\]|\\.)*"|<[^<>\s]*>|#[^\n]*|[?$]\w+')
_OUTSIDE = re.compile(r"\b(ORDER\s+BY|GROUP\s+BY|LIMIT|OFFSET|MINUS|SERVICE|"
                      r"HAVING|ASK|CONSTRUCT|DESCRIBE|INSERT|DELETE)\b", re.IGNORECASE)
_SKIPPED = re.compile(r"^(\{ SELECT \(COUNT\(\*\) AS \?total\) \(SUM\(\?hit0\) AS \?hits\) WHERE \{|"
                      r'BIND\(IF\(COALESCE\(\?hits, 0\) = 0, "no", IF\(\?hits = \?total, "yes", '
                      r'"not sure"\)\) AS \?answer\)|\{ SELECT \(COUNT\(\*\) AS \?count\) WHERE \{)$')
_VALUE_DESCRIPTION = re.compile(r"^(OPTIONAL \{ [?$]\w+ <[^>]+> [?$]\w+ \} ?)+$")


@dataclass
class Facts:
    """What the query's patterns say, per variable."""

    names: dict[str, list[str]] = field(default_factory=dict)  # var -> the names it has
    any_name: set[str] = field(default_factory=set)  # vars with a name, any name
    types: dict[str, list[str]] = field(default_factory=dict)  # var -> concept vars
    records: list[tuple[str, str, str, str]] = field(default_factory=list)  # (in, rel, dir, out)
    attributes: dict[str, tuple[str, str]] = field(default_factory=dict)  # value var -> (x, key)
    name_of: dict[str, str] = field(default_factory=dict)  # name var -> its entity var
    fact_of: dict[tuple, str] = field(default_factory=dict)  # record or (value var,) -> fact var
    tests: dict[str, tuple[str, str, str]] = field(default_factory=dict)  # handle -> kind, v, op
    qualifiers: list[tuple[str, str, str]] = field(default_factory=list)  # (fact, key, handle)
    unions: list[list[Facts]] = field(default_factory=list)  # the branches of each UNION
    ids: dict[str, str] = field(default_factory=dict)  # var -> the entity id VALUES gives it
    conditions: dict[str, tuple[str, str]] = field(default_factory=dict)  # fact -> (qkey, value)
    verify: tuple | None = None  # (handle, (kind, value, op)) of Verify*'s yes/no test
    exists: bool = False  # whether the query ends as Exists's does
    asked_relation: tuple[str, str] | None = None  # QueryRelation's (left var, right var)


def lift(query: str, encoding: str | Encoding = "kqapro") -> ir.Node:
    """The IR program whose lowering `query` is (up to the order of And's inputs).

    >>> from koplc.sparql_backend.lower import lower
    >>> lift(lower(ir.Count(input=ir.Find(name="Akron"))).query)
    Count(op='Count', input=Find(op='Find', name='Akron'))
    """
    e = encoding_named(encoding)
    synthesized = lift_by_synthesis(query, e, lift)
    if synthesized is not None:
        return synthesized
    bare = _OPAQUE.sub("", query)
    found = _OUTSIDE.search(bare)
    if found:
        raise UnsupportedConstruct(f"cannot lift {' '.join(found.group(1).upper().split())}: "
                                   "the lifted subset is triple patterns and subqueries",
                                   code="unsupported-sparql")
    lines = [line.strip() for line in query.strip().splitlines()
             if line.strip() and not line.strip().startswith("#")]
    if not lines or not lines[-1].startswith("}"):
        raise UnsupportedConstruct("cannot lift: the query is not laid out as koplc's lowering "
                                   "writes it (one pattern a line, the body closing last)",
                                   code="unsupported-sparql")
    head = next((line for line in lines if line.startswith(("SELECT", "ASK", "CONSTRUCT",
                                                             "DESCRIBE"))), None)
    if head is None or not head.startswith("SELECT"):
        raise UnsupportedConstruct(f"cannot lift {_first_word(head or lines[0])}: only SELECT "
                                   "queries are lifted", code="unsupported-sparql")
    inner: list[list[str]] = []
    facts = _read_block(lines, e, inner)
    return _Builder(facts, e).answer(head, inner)


def _read_block(lines: list[str], e: Encoding, inner: list[list[str]]) -> Facts:
    """The facts of a group of lines; `{` … `}` `UNION` `{` … `}` groups become unions."""
    facts, at = Facts(), 0
    while at < len(lines):
        line = lines[at]
        at += 1
        if line == "{":
            branches, at = _union(lines, at - 1, e, inner)
            facts.unions.append(branches)
            continue
        if line.startswith("{ SELECT DISTINCT"):
            inner.append(line.split()[3:-2])
        if line == EXISTS_ANSWER:
            facts.exists = True
            continue
        if _STRUCTURE.match(line) or _VALUE_DESCRIPTION.match(line) or _SKIPPED.match(line):
            continue
        if read_special(line, e, facts) or read_value_test(line, e, facts):
            continue
        if not line.startswith(("?", "$", "<")):
            raise UnsupportedConstruct(f"cannot lift {_first_word(line)}: the lifted subset is "
                                       "triple patterns, subqueries, UNION, value tests and "
                                       "the yes/no tests of Verify*", code="unsupported-sparql")
        _read_statement(_tokens(line), e, facts)
    return facts


def _union(lines: list[str], at: int, e: Encoding, inner) -> tuple[list[Facts], int]:
    """The branches of `{ … } UNION { … }` starting at line `at`, and the line after it."""
    branches = []
    while True:
        depth, end = 0, at
        for end in range(at, len(lines)):
            depth += (lines[end] == "{") - (lines[end] == "}")
            if depth == 0:
                break
        if depth:
            raise UnsupportedConstruct("cannot lift: an unclosed group", code="unsupported-sparql")
        branches.append(_read_block(lines[at + 1:end], e, inner))
        at = end + 1
        if at < len(lines) and lines[at] == "UNION":
            at += 1
            continue
        return branches, at


def _first_word(line: str) -> str:
    return line.split()[0] if line.split() else "an empty query"


def _tokens(line: str) -> list[str]:
    tokens, at = [], 0
    while at < len(line):
        match = _TOKEN.match(line, at)
        if match is None:
            if line[at:].strip():
                raise UnsupportedConstruct(f"cannot lift the text {line[at:at + 20]!r}",
                                           code="unsupported-sparql")
            break
        tokens.append(match.group(1))
        at = match.end()
    return tokens


def _read_statement(tokens: list[str], e: Encoding, facts: Facts) -> None:
    """One `s p o ; p o .` statement into `facts`."""
    if not tokens or tokens[-1] != ".":
        raise UnsupportedConstruct(f"cannot lift the pattern {' '.join(tokens)!r}",
                                   code="unsupported-sparql")
    subject, pairs, rest = tokens[0], [], tokens[1:-1]
    while rest:
        if len(rest) < 2 or (len(rest) > 2 and rest[2] != ";"):
            raise UnsupportedConstruct(f"cannot lift the pattern {' '.join(tokens)!r}",
                                       code="unsupported-sparql")
        pairs.append((_iri(rest[0]), rest[1]))
        rest = rest[3:]
    if e.reified and any(p == e.fact_r for p, _ in pairs):
        _read_record(subject, dict(pairs), e, facts)
        return
    for predicate, obj in pairs:
        _read_triple(subject, predicate, obj, e, facts)


def _read_record(f: str, props: dict[str, str], e: Encoding, facts: Facts) -> None:
    kind = _iri(props.get(RECORD, ""))
    head, tail, relation = props.get(e.fact_h), props.get(e.fact_t), _iri(props[e.fact_r])
    if relation.startswith(("?", "$")) and kind == FORWARD:
        facts.asked_relation = (head, tail)
        return
    if kind == ATTRIBUTE:
        facts.attributes[tail] = (head, e.key_name(relation) or relation)
        facts.fact_of[(tail,)] = f
    elif kind in (FORWARD, BACKWARD):
        direction = "forward" if kind == FORWARD else "backward"
        here, there = (head, tail) if kind == FORWARD else (tail, head)
        record = (here, e.relation_name(relation), direction, there)
        facts.records.append(record)
        facts.fact_of[record] = f
    else:
        raise UnsupportedConstruct(f"cannot lift a fact record of kind {kind!r}",
                                   code="unsupported-sparql")


def _read_triple(s: str, p: str, o: str, e: Encoding, facts: Facts) -> None:
    if p == e.name_predicate:
        if o.startswith(("?", "$")):
            facts.any_name.add(s)
            facts.name_of[o] = s
        else:
            facts.names.setdefault(s, []).append(_literal(o))
    elif p == e.type_predicate and o.startswith("?"):
        facts.types.setdefault(s, []).append(o)
    elif not e.reified and p.startswith(e.base + e.relation_prefix):
        facts.records.append((s, e.relation_name(p), "plain", o))
    elif p == e.value and o.startswith('"') and e.value_nodes:
        facts.tests[s] = (STRING, _literal(o), "=")
    elif e.reified and s in facts.fact_of.values() and e.key_name(p) and o.startswith("?"):
        facts.qualifiers.append((s, e.key_name(p), o))
    else:
        raise UnsupportedConstruct(f"cannot lift the predicate <{p}>", code="unsupported-sparql")


def _iri(token: str) -> str:
    return token[1:-1] if token.startswith("<") else token


def _literal(token: str) -> str:
    if not token.startswith('"'):
        raise UnsupportedConstruct(f"cannot lift the name {token!r}", code="unsupported-sparql")
    body = token[1:token.rindex('"')]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "r": "\r"}.get(m[1], m[1]), body)


def _value_filter(family: str, node: ir.Node, key: str, test: tuple[str, str, str]
                  ) -> ir.Node:
    """The Filter* (or, for family "qfilter", QFilter*) op of a value test on `node`'s facts."""
    kind, value, op = test
    fields = ("key", "value") if family == "filter" else ("qkey", "qvalue")
    extra = {} if kind == STRING else {"comparator": op}
    return op_for(family, kind)(input=node, **dict(zip(fields, (key, value), strict=True)),
                                **extra)


class _Builder:
    """Builds the program of each variable from its definitions."""

    def __init__(self, facts: Facts, e: Encoding):
        self.f, self.e, self.built = facts, e, {}
        concept_vars = {c for cs in facts.types.values() for c in cs}
        self.concepts = {c: facts.names.get(c, []) for c in concept_vars}

    def answer(self, head: str, inner: list[list[str]]) -> ir.Node:
        if "(COUNT(*) AS ?count)" in head:
            return ir.Count(input=self.set_of(inner[0][-1] if inner else ""))
        if "AS ?name)" in head:
            name_var = re.search(r"STR\(([?$]\w+)\)", head).group(1)
            return ir.QueryName(input=self.set_of(self.f.name_of[name_var]))
        if "AS ?entity)" in head:
            return self.set_of(re.search(r"\(([?$]\w+) AS \?entity\)", head).group(1))
        if "?value_value" in head:
            return self.value_query()
        if head == "SELECT ?answer WHERE {" and self.f.exists:
            return ir.Exists(input=self.set_of(inner[0][-1] if inner else ""))
        if head == "SELECT ?answer WHERE {" and self.f.verify is not None:
            handle, (kind, value, op) = self.f.verify
            extra = {} if kind == STRING else {"comparator": op}
            return op_for("verify", kind)(input=self.attribute(handle), value=value, **extra)
        if "AS ?relation)" in head and self.f.asked_relation:
            left, right = self.f.asked_relation
            return ir.QueryRelation(left=self.set_of(left), right=self.set_of(right))
        raise UnsupportedConstruct(f"cannot lift the projection {head!r}",
                                   code="unsupported-sparql")

    def attribute(self, handle: str) -> ir.Node:
        """QueryAttr of the value `handle`, or QueryAttrUnderCondition where the query tests a
        qualifier of its fact."""
        x, key = self.f.attributes[handle]
        fact = self.f.fact_of.get((handle,))
        if fact in self.f.conditions:
            qkey, qvalue = self.f.conditions[fact]
            return ir.QueryAttrUnderCondition(input=self.set_of(x), key=key, qkey=qkey,
                                              qvalue=qvalue)
        return ir.QueryAttr(input=self.set_of(x), key=key)

    def value_query(self) -> ir.Node:
        """QueryAttr, or the qualifier queries, whose value handle the query projects."""
        f = self.f
        untested = [v for v in f.attributes if v not in f.tests]
        if untested:
            return self.attribute(untested[0])
        for fact, qkey, handle in f.qualifiers:
            if handle in f.tests:
                continue
            for handle_of, (x, key) in f.attributes.items():
                if f.fact_of.get((handle_of,)) == fact and f.tests[handle_of][0] == "any":
                    return ir.QueryAttrQualifier(input=self.set_of(x), key=key,
                                                 value=f.tests[handle_of][1], qkey=qkey)
            for record, record_fact in f.fact_of.items():
                if record_fact == fact and len(record) == 4:
                    here, relation, _, there = record
                    return ir.QueryRelationQualifier(left=self.set_of(here),
                                                     right=self.set_of(there),
                                                     relation=relation, qkey=qkey)
        raise UnsupportedConstruct("cannot lift: the query projects a value no pattern binds",
                                   code="unsupported-sparql")

    def set_of(self, var: str, seen: frozenset = frozenset()) -> ir.Node:
        if var in seen:
            raise UnsupportedConstruct(f"cannot lift a cycle through {var}",
                                       code="unsupported-sparql")
        if var in self.built:
            return self.built[var]
        parts: list[ir.Node] = [ir.Find(name=n) for n in self.f.names.get(var, [])]
        if var in self.f.ids:
            parts.insert(0, ir.Entity(id=self.f.ids[var]))
        for branches in self.f.unions:
            built = [_Builder(b, self.e).defined(var) for b in branches]
            if all(built):
                node = built[0]
                for other in built[1:]:
                    node = ir.Or(left=node, right=other)
                parts.append(node)
        for here, relation, direction, there in self.f.records:
            if direction == "plain":
                if there == var and here not in seen and self._defined(here, seen | {var}):
                    parts.append(ir.Relate(input=self.set_of(here, seen | {var}),
                                           relation=relation, direction="forward"))
                elif here == var and self._defined(there, seen | {var}):
                    parts.append(ir.Relate(input=self.set_of(there, seen | {var}),
                                           relation=relation, direction="backward"))
            elif there == var:
                relate = ir.Relate(input=self.set_of(here, seen | {var}), relation=relation,
                                   direction=direction)
                fact = self.f.fact_of.get((here, relation, direction, there))
                parts.append(self.qualified(relate, fact))
        if not parts:
            if var not in self.f.any_name:
                raise UnsupportedConstruct(f"cannot lift: nothing defines {var}",
                                           code="unsupported-sparql")
            parts = [ir.FindAll()]
        node = parts[0]
        for part in parts[1:]:
            node = ir.And(left=node, right=part)
        for concept_var in self.f.types.get(var, []):
            for concept in self.concepts.get(concept_var) or ["?"]:
                node = ir.FilterConcept(input=node, concept=concept)
        for handle, (x, key) in self.f.attributes.items():
            if x == var and handle in self.f.tests and self.f.tests[handle][0] != "any":
                node = self.qualified(_value_filter("filter", node, key, self.f.tests[handle]),
                                      self.f.fact_of.get((handle,)))
        self.built[var] = node
        return node

    def qualified(self, node: ir.Node, fact: str | None) -> ir.Node:
        """`node` under the qualifier tests the query puts on its fact variable."""
        for f, key, handle in self.f.qualifiers:
            if f == fact and handle in self.f.tests:
                node = _value_filter("qfilter", node, key, self.f.tests[handle])
        return node

    def defined(self, var: str) -> ir.Node | None:
        """The program of `var`, or None when nothing here defines it."""
        try:
            return self.set_of(var)
        except UnsupportedConstruct:
            return None

    def _defined(self, var: str, seen: frozenset) -> bool:
        try:
            self.set_of(var, seen)
        except UnsupportedConstruct:
            return False
        self.built.pop(var, None)
        return True
