"""The SPARQL lowering: complete over the op registry, deterministic (snapshot files under
tests/fixtures/sparql/snapshots, one per program and encoding), and refusing what the executor
refuses whatever the data. Set KOPLC_UPDATE_SNAPSHOTS=1 to rewrite the snapshots."""

from __future__ import annotations

import json
import os
from datetime import date
from pathlib import Path

import pytest

from koplc.kopl import ir
from koplc.kopl.errors import LoweringError, UnsupportedConstruct
from koplc.kopl.execution.executor import ExecOptions
from koplc.kopl.registry import OPS
from koplc.kopl.syntax.nested import parse
from koplc.sparql_backend.encodings import ENCODINGS
from koplc.sparql_backend.lower import UNSUPPORTED, Lowering, lower

FIXTURES = Path(__file__).parent / "fixtures" / "sparql"
SNAPSHOTS = FIXTURES / "snapshots"
PROGRAMS = [json.loads(line) for line in
            (FIXTURES / "snapshot_programs.jsonl").read_text().splitlines() if line]
OPTIONS = ExecOptions(today=date(2024, 1, 1))


def test_every_op_has_a_lowering_or_is_declared_unsupported():
    missing = [name for name in OPS
               if not hasattr(Lowering, OPS[name].visitor) and name not in UNSUPPORTED]
    assert not missing, f"ops with neither visit_<Op> nor an UNSUPPORTED entry: {missing}"
    stale = [name for name in UNSUPPORTED if name not in OPS]
    assert not stale


def test_the_snapshot_programs_use_every_op():
    used = {type(node).__name__ for record in PROGRAMS
            for _, node in parse(record["program"]).program.walk()}
    assert used == set(OPS)


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
@pytest.mark.parametrize("record", PROGRAMS, ids=[r["name"] for r in PROGRAMS])
def test_lowered_text_matches_its_snapshot(record, encoding):
    text = lower(parse(record["program"]).program, encoding, OPTIONS).text() + "\n"
    path = SNAPSHOTS / f"{record['name']}.{encoding}.rq"
    if os.environ.get("KOPLC_UPDATE_SNAPSHOTS"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"no snapshot {path.name}; run with KOPLC_UPDATE_SNAPSHOTS=1"
    assert text == path.read_text(encoding="utf-8")


def test_every_snapshot_parses_in_pyoxigraph():
    import pyoxigraph

    store = pyoxigraph.Store()
    for path in sorted(SNAPSHOTS.glob("*.rq")):
        for query in path.read_text(encoding="utf-8").split("\n# guard: "):
            if query.startswith("raise"):
                query = "\n".join(line[4:] for line in query.splitlines()[1:])
            store.query(query)


def test_lowering_is_deterministic():
    for record in PROGRAMS:
        program = parse(record["program"]).program
        first = lower(program, "kqapro", OPTIONS).text()
        assert all(lower(program, "kqapro", OPTIONS).text() == first for _ in range(3))


def program(text: str) -> ir.Node:
    return parse(text).program


@pytest.mark.parametrize("text, message", [
    ('QueryName(FilterNum(FindAll(), "height", "2", "bigger"))',
     r"step 2 \(FilterNum\): unknown comparator 'bigger'"),
    ('QueryName(FilterNum(FindAll(), "height", "two metres", ">"))',
     r"step 2 \(FilterNum\): cannot read 'two metres' as a number"),
    ('QueryName(FilterDate(FindAll(), "born", "1990-13-45", "<"))', r"cannot read '1990-13-45'"),
    ('QueryName(QFilterStr(FindAll(), "point in time", "x"))',
     r"step 1 \(FindAll\): FindAll gives entities without facts"),
    ('SelectAmong(FindAll(), "height", "tallest")', r"unknown comparator 'tallest'"),
    ('SelectBetween(Find("a"), Find("b"), "height", "more")', r"expected less or greater"),
])
def test_what_the_executor_refuses_whatever_the_data_is_a_lowering_error(text, message):
    with pytest.raises(LoweringError, match=message):
        lower(program(text))


def test_a_relate_without_a_direction_is_refused():
    node = ir.QueryName(input=ir.Relate(input=ir.Find(name="a"), relation="r"))
    with pytest.raises(LoweringError, match=r"step 2 \(Relate\): no direction"):
        lower(node)


def test_unit_conversion_without_the_kbs_units_is_refused():
    with pytest.raises(UnsupportedConstruct, match="unit conversion in SPARQL needs the KB's units"):
        lower(program("Count(FindAll())"), options=ExecOptions(unit_conversion=True))


def test_unit_conversion_lowers_a_table_of_the_units_that_convert():
    query = lower(program('Count(FilterNum(FindAll(), "height", "2 metre", ">"))'),
                  options=ExecOptions(unit_conversion=True),
                  units=("centimetre", "kilogram", "metre")).query
    assert ('VALUES (?u6 ?s7) { ("metre" "1.0"^^xsd:double) ("centimetre" "0.01"^^xsd:double) }'
            in query), query
    assert "kilogram" not in query


def test_extension_ops_follow_the_extension_option():
    node = program('Count(Entity("m.01"))')
    lower(node)
    with pytest.raises(LoweringError, match="extension"):
        lower(node, options=ExecOptions(extension_ops=False))


def test_inclusive_comparators_compare_in_the_query_instead_of_a_guard():
    node = program('Count(FilterNum(FindAll(), "height", "200 centimetre", "<="))')
    strict = lower(node)
    assert len(strict.guards) == 1 and "unsupported comparator '<='" in strict.guards[0].message
    inclusive = lower(node, options=ExecOptions(inclusive_comparators=True))
    assert not inclusive.guards and "!(" in inclusive.query


def test_unknown_encodings_are_refused():
    with pytest.raises(LoweringError, match="unknown RDF encoding 'turtle'"):
        lower(program("Count(FindAll())"), "turtle")


def test_guards_print_as_comments_after_the_query():
    text = lower(program('QueryAttrUnderCondition(Find("Akron"), "population", "point in time", '
                         '"2010")')).text()
    query, _, guards = text.partition("\n# guard: ")
    assert query.startswith("PREFIX xsd:") and "SELECT" in query
    assert "is not in the KB" in guards and all(
        line.startswith("#") for line in ("# guard: " + guards).splitlines())
