"""koplc lift: the lowering's SPARQL back to IR. Every snapshot program in the lifted subset
round-trips (IR -> SPARQL -> IR gives the same answers, and mostly the same SPARQL), generated
programs do too, and everything else gets an error naming the construct."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from budget import examples
from kb_strategies import kb_programs
from koplc.cli import main
from koplc.kopl.errors import KoplcError, UnsupportedConstruct
from koplc.kopl.execution.executor import execute
from koplc.kopl.kb.cache import load_kb
from koplc.kopl.syntax import nested as nested_syntax
from koplc.kopl.types import Comparator
from koplc.sparql_backend.lift import lift
from koplc.sparql_backend.lower import lower

FIXTURES = Path(__file__).parent / "fixtures"
SNAPSHOTS = [json.loads(line) for line in
             (FIXTURES / "sparql" / "snapshot_programs.jsonl").read_text().splitlines() if line]
LIFTED = {"Find", "FindAll", "FilterConcept", "Relate", "And", "Or", "QueryName", "Count",
          "QueryAttr", "Entity", "FilterStr", "FilterNum", "FilterYear", "FilterDate",
          "QFilterStr", "QFilterNum", "QFilterYear", "QFilterDate", "QueryRelation",
          "QueryAttrQualifier", "QueryRelationQualifier", "QueryAttrUnderCondition",
          "VerifyStr", "VerifyNum", "VerifyYear", "VerifyDate", "ArgMax", "ArgMin",
          "TimeConstraint", "SelectBetween", "SelectAmong"}
# The snapshot programs lift does not cover: in the kqapro encoding only a `<=` the engine
# refuses (lowered to FILTER(false), which keeps neither key nor value); in the plain encoding
# the set operations and their queries, and two snapshots that read values (SelectBetween of
# two Finds, ArgMax of a concept's entities).
UNLIFTED = {"kqapro": {"filter_num_le"}}
SYNTHESIZED = {"ArgMax", "ArgMin", "TimeConstraint", "SelectBetween", "SelectAmong"}
PLAIN = {"Find", "FindAll", "FilterConcept", "Relate", "And", "Or", "QueryName", "Count", "Exists",
         "Entity"}
PLAIN_ALSO = {"select_between", "argmax"}
KBS = {"example": FIXTURES / "kopl" / "example_kb.json",
       "metaqa": FIXTURES / "metaqa" / "kopl_kb_subset.json"}


def _inclusive(program) -> bool:
    """Whether a step compares with <= or >=, which the engine refuses at run time (without
    the S-expression option) while the lowering writes the comparison as never true."""
    return any(getattr(node, "comparator", None) in (Comparator.LE, Comparator.GE)
               for _, node in program.walk())


def _ops(program) -> set[str]:
    return {type(node).__name__ for _, node in program.walk()}


def _answer(program, kb):
    """What a program answers; an entity set by its entities (a lifted program may put a
    filter before an And where the original put it after: the same entities, other facts)."""
    try:
        answer = execute(program, kb)
    except KoplcError as err:
        return type(err).__name__
    return sorted(answer.entity_ids) if answer.is_entities else answer


@pytest.fixture(scope="module")
def kbs():
    return {name: load_kb(path) for name, path in KBS.items()}


@pytest.mark.parametrize("encoding", ["kqapro", "plain"])
@pytest.mark.parametrize("record", SNAPSHOTS, ids=[r["name"] for r in SNAPSHOTS])
def test_snapshot_programs_round_trip_or_name_the_construct(record, encoding, kbs):
    program = nested_syntax.parse(record["program"]).program
    query = lower(program, encoding).query
    if not _liftable(record["name"], program, encoding):
        with pytest.raises(UnsupportedConstruct, match="cannot lift"):
            lift(query, encoding)
        return
    lifted = lift(query, encoding)
    for kb in kbs.values():
        assert _answer(lifted, kb) == _answer(program, kb)


def _liftable(name: str, program, encoding: str) -> bool:
    if encoding == "kqapro":
        return name not in UNLIFTED["kqapro"]
    return _ops(program) <= PLAIN or name in PLAIN_ALSO


def test_lift_covers_the_kqapro_snapshots():
    assert len(SNAPSHOTS) - len(UNLIFTED["kqapro"]) == 32 and len(SNAPSHOTS) == 33


def test_lifted_programs_lower_to_the_same_query():
    """Lifting inverts the lowering: the lifted program's SPARQL is the query itself (a
    union's or a pair's variables may come out in another order)."""
    same = 0
    for record in SNAPSHOTS:
        if record["name"] in UNLIFTED["kqapro"]:
            continue
        query = lower(nested_syntax.parse(record["program"]).program).query
        same += lower(lift(query)).query == query
    assert same >= 29


def test_the_lifted_subset_covers_the_metaqa_shapes():
    lifted = [r["name"] for r in SNAPSHOTS
              if _ops(nested_syntax.parse(r["program"]).program) <= LIFTED]
    assert {"relate_chain", "relate_three_hops", "find_name", "findall_count",
            "filter_concept", "query_attr"} <= set(lifted)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=kb_programs(load_kb(KBS["example"])))
def test_generated_programs_round_trip(data, kbs):
    program = data if not isinstance(data, tuple) else data[0]
    if not _ops(program) <= LIFTED - SYNTHESIZED:
        return  # the pattern reader's subset (synthesis is checked on the snapshots)
    try:
        query = lower(program).query
    except KoplcError:
        return
    if "FILTER(false)" in query or "BIND(0 AS ?hit0)" in query or _inclusive(program):
        return  # a comparison the engine refuses lowers to nothing to read
    assert _answer(lift(query), kbs["example"]) == _answer(program, kbs["example"])


@pytest.mark.parametrize("query, construct", [
    ("SELECT ?x WHERE { ?x ?p ?o } ORDER BY ?x", "ORDER BY"),
    ("SELECT ?x WHERE {\n  ?x <pred:name> ?n .\n  MINUS { ?x <pred:name> \"b\" . }\n}", "MINUS"),
    ("ASK {\n  ?x <pred:name> \"a\" .\n}", "ASK"),
    ("SELECT ?x WHERE {\n  ?x <pred:name> ?n . FILTER(?n > 3)\n}", "FILTER"),
])
def test_unsupported_queries_name_the_construct(query, construct):
    with pytest.raises(UnsupportedConstruct, match=construct):
        lift(query)


def test_lift_command(tmp_path, capsys):
    program = 'QueryName(Relate(Find("LeBron James"), "member of sports team", "forward"))'
    query = tmp_path / "q.rq"
    query.write_text(lower(nested_syntax.parse(program).program).query)
    assert main(["lift", str(query)]) == 0
    assert capsys.readouterr().out.strip() == program
    query.write_text("SELECT ?x WHERE { ?x ?p ?o } LIMIT 3")
    assert main(["lift", str(query)]) == 1
    assert "cannot lift LIMIT" in capsys.readouterr().err
