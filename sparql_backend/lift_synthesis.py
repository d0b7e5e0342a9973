"""Lifting by synthesis, for the lowerings the pattern reader cannot read back: ArgMax/ArgMin
(a unit-majority GROUP BY and a MAX/MIN subquery per value kind), TimeConstraint (a nested
EXISTS per time qualifier) and SelectBetween/SelectAmong (their pick is a SPARQL comment, since
the rows are picked from after the query runs).

The input set is lifted with the pattern reader from the query's first entity-set block; the
op's other arguments are drawn from the IRIs and literals the query names; a candidate is
accepted only when its lowering is the query itself, variable names aside. So a lifted program
always lowers back to the same query.
"""

from __future__ import annotations

import re
from itertools import product

from koplc.kopl import ir
from koplc.kopl.errors import KoplcError
from koplc.sparql_backend.encodings import BACKWARD, FORWARD, Encoding

PICK = re.compile(r"^# koplc pick: (SelectBetween|SelectAmong) (\w+)$", re.MULTILINE)
_VAR = re.compile(r"[?$]\w+")
_IRI = re.compile(r"<([^<>\s]*)>")
_TIME = re.compile(r'"([^"]*)"\^\^xsd:(?:integer|date)')


def lift_by_synthesis(query: str, e: Encoding, lift) -> ir.Node | None:
    """The program whose lowering is `query`, for the ops above; None when none is.
    `lift` is the pattern reader (for the input sets)."""
    pick = PICK.search(query)
    if pick:
        return _select(query, e, lift, pick.group(1), pick.group(2))
    if "GROUP BY" in query and ("(MAX(" in query or "(MIN(" in query):
        return _extreme(query, e, lift)
    if "FILTER(EXISTS {" in query:
        return _time_constraint(query, e, lift)
    return None


def _extreme(query: str, e: Encoding, lift) -> ir.Node | None:
    head = query.splitlines()
    block = _first_set_block(head)
    if block is None:
        return None
    source = _lift_set(block, lift, e)
    if source is None:
        return None
    keys = _keys(query, e)
    hops = [()] + [(ir.Hop(relation=r, direction=d),) for r, d in _relations(query, e)]
    ops = [ir.ArgMax] if "(MAX(" in query else [ir.ArgMin]
    return _matching(query, e, (op(input=source, key=k, path=p)
                                for op, k, p in product(ops, keys, hops)))


def _time_constraint(query: str, e: Encoding, lift) -> ir.Node | None:
    lines = query.splitlines()
    kept = [line for line in lines if not line.strip().startswith("FILTER(EXISTS {")]
    if len(kept) != len(lines) - 1:
        return None
    source = _lift(lift, "\n".join(kept), e)
    if source is None:
        return None
    times = list(dict.fromkeys(_TIME.findall(query)))
    relations = list(dict.fromkeys(r for r, _ in _relations(query, e)))
    return _matching(query, e, (ir.TimeConstraint(input=source, relation=r, time=t)
                                for r, t in product(relations, times)))


def _select(query: str, e: Encoding, lift, op: str, comparator: str) -> ir.Node | None:
    lines = [line.strip() for line in query.splitlines()]
    order = re.search(r"STR\(([?$]\w+)\)\s*$", query)
    if order is None:
        return None
    x, keys = order.group(1), _keys(query, e)
    if op == "SelectAmong":
        # The input's patterns come before the attribute's fact record.
        first = next((at for at, line in enumerate(lines) if "<urn:koplc:attribute>" in line), 0)
        opened = next((at for at, line in enumerate(lines) if line.startswith("{ SELECT")), 0)
        source = _lift_patterns(lines[opened + 1:first], x, lift, e)
        return None if source is None else _matching(query, e, (
            ir.SelectAmong(input=source, key=k, comparator=comparator) for k in keys))
    sides = [_lift_patterns(_group_before(lines, at), x, lift, e)
             for at, line in enumerate(lines) if re.match(r"BIND\([01] AS \?side\)", line)]
    if len(sides) != 2 or None in sides:
        return None
    return _matching(query, e, (ir.SelectBetween(left=sides[0], right=sides[1], key=k,
                                                 comparator=comparator) for k in keys))


def _group_before(lines: list[str], at: int) -> list[str]:
    """The lines inside the `{` … `}` group that ends on the line before `at`."""
    depth = 0
    for start in range(at - 1, -1, -1):
        depth += lines[start].count("}") - lines[start].count("{")
        if depth == 0:
            return lines[start + 1:at - 1]
    return []


def _lift_patterns(patterns: list[str], x: str, lift, e: Encoding) -> ir.Node | None:
    """The entity set `x` that `patterns` define, lifted by the pattern reader."""
    block = [f"{{ SELECT DISTINCT {x} WHERE {{", *patterns, "} }"]
    return _lift(lift, "\n".join([f"SELECT ({x} AS ?entity) WHERE {{", *block, "}"]), e)


def _matching(query: str, e: Encoding, candidates) -> ir.Node | None:
    """The first candidate whose lowering is `query`, variable names aside."""
    from koplc.sparql_backend.lower import lower

    wanted = _shape(query)
    for node in candidates:
        try:
            if _shape(lower(node, e).query) == wanted:
                return node
        except KoplcError:
            continue
    return None


def _shape(query: str) -> str:
    """`query` with its variables renamed in order of first use."""
    names: dict[str, str] = {}
    return _VAR.sub(lambda m: names.setdefault(m.group(0), f"?v{len(names)}"), query.strip())


def _set_blocks(lines: list[str]) -> list[list[str]]:
    """Each `{ SELECT DISTINCT ?x WHERE {` … `} }` block of one variable, in order."""
    blocks = []
    for at, line in enumerate(lines):
        words = line.split()
        if line.strip().startswith("{ SELECT DISTINCT") and len(words) == 6:
            depth = 0
            for end in range(at, len(lines)):
                depth += lines[end].count("{") - lines[end].count("}")
                if depth == 0:
                    blocks.append(lines[at:end + 1])
                    break
    return blocks


def _first_set_block(lines: list[str]) -> list[str] | None:
    """The first entity-set block with none of the constructs lifted here inside."""
    for block in _set_blocks(lines):
        text = "\n".join(block)
        if "GROUP BY" not in text and "FILTER(EXISTS {" not in text:
            return block
    return None


def _lift_set(block: list[str], lift, e: Encoding) -> ir.Node | None:
    variable = block[0].split()[3]
    return _lift(lift, "\n".join([f"SELECT ({variable} AS ?entity) WHERE {{", *block, "}"]), e)


def _lift(lift, query: str, e: Encoding) -> ir.Node | None:
    try:
        return lift(query, e)
    except KoplcError:
        return None


def _keys(query: str, e: Encoding) -> list[str]:
    return list(dict.fromkeys(k for iri in _IRI.findall(query) if (k := e.key_name(iri))))


def _relations(query: str, e: Encoding) -> list[tuple[str, str]]:
    """(relation, direction) of each fact record the query names."""
    found = []
    for line in query.splitlines():
        iris = _IRI.findall(line)
        for at, iri in enumerate(iris):
            kind = iris[at + 3] if at + 3 < len(iris) else None
            if iri == e.fact_r and kind in (FORWARD, BACKWARD):
                direction = "forward" if kind == FORWARD else "backward"
                found.append((e.relation_name(iris[at + 1]), direction))
    return list(dict.fromkeys(found))
