"""`koplc explore`: grounded programs drawn from real KBs, their pool file, readings, patterns,
and what bad KBs and interruptions do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import FIXTURES
from koplc.cli import main
from koplc.kopl import ir
from koplc.kopl.datasets.metaqa import KB_SCHEMA, gold_program
from koplc.kopl.execution.executor import execute
from koplc.kopl.exploration import (
    READINGS,
    ExploreOptions,
    ExploreReport,
    PoolError,
    canonical_question,
    explore,
    explore_to_file,
    pattern,
    pool_for,
    pool_path,
    read_pool,
)
from koplc.kopl.exploration.questions import ASKERS
from koplc.kopl.exploration.sampler import NOT_DRAWN
from koplc.kopl.exploration.set_steps import EXTENDERS
from koplc.kopl.kb.cache import load_kb
from koplc.kopl.registry import OPS
from koplc.kopl.syntax.steps import parse as parse_steps

PERIODIC = FIXTURES / "periodic" / "periodic_kb.json"
EXAMPLE_EXT = FIXTURES / "kopl" / "example_kb_ext.json"
METAQA_SUBSET = FIXTURES / "metaqa" / "kb_subset.txt"


@pytest.fixture(scope="module")
def periodic_pool():
    kb = load_kb(PERIODIC)
    report = ExploreReport()
    entries = list(explore(kb, ExploreOptions(programs=600, extension_ops=True), report=report))
    return kb, entries, report


def test_every_op_of_the_registry_has_a_reading_and_a_way_to_be_drawn():
    assert set(READINGS) == set(OPS)
    assert set(EXTENDERS) | set(ASKERS) | set(NOT_DRAWN) == set(OPS)


def test_periodic_pool_uses_every_op_the_kb_supports(periodic_pool):
    _, entries, report = periodic_pool
    assert report.kept == len(entries) == 600
    used = {op for e in entries for op in e.ops}
    # The periodic KB has no dates and qualifies only relation facts, with years.
    unsupported = {"Entity", "FilterDate", "VerifyDate", "QFilterStr", "QFilterNum",
                   "QFilterDate", "QueryAttrUnderCondition", "QueryAttrQualifier"}
    assert used == set(OPS) - unsupported
    assert {e.hops for e in entries} >= {0, 1, 2, 3}
    relations = report.usage.counts["relation"]
    assert set(relations) == {"discovered by", "discovered in"}
    keys = report.usage.counts["key"]
    assert len(keys) == 12 and max(keys.values()) < 4 * min(keys.values())


def test_pooled_answers_are_what_the_programs_give_and_say_something(periodic_pool):
    kb, entries, _ = periodic_pool
    for e in entries:
        answer = execute(e.program, kb)
        assert set(e.answers) == set(answer.items()), e.steps
        assert e.answers and e.answers != ["0"] and e.answers != ["not sure"]
        if isinstance(e.program, ir.QueryName):
            topic = {n.name for _, n in e.program.walk() if isinstance(n, ir.Find)}
            assert not set(e.answers) <= topic, e.steps


def test_pool_has_no_repeats_and_at_most_five_a_pattern(periodic_pool):
    _, entries, _ = periodic_pool
    programs = [json.dumps(e.program_data, sort_keys=True) for e in entries]
    assert len(set(programs)) == len(programs)
    per = {}
    for e in entries:
        assert e.pattern == pattern(e.program)
        per[e.pattern] = per.get(e.pattern, 0) + 1
    assert max(per.values()) <= 5


def test_exploration_is_deterministic_for_a_seed(periodic_pool):
    kb, entries, _ = periodic_pool
    again = list(explore(kb, ExploreOptions(programs=50, extension_ops=True)))
    assert [e.program_data for e in again] == [e.program_data for e in entries[:50]]


def test_pool_file_round_trips(tmp_path):
    kb = load_kb(EXAMPLE_EXT)
    out = tmp_path / "pool.jsonl"
    report = explore_to_file(kb, out, ExploreOptions(programs=40), kb_path=EXAMPLE_EXT)
    entries = read_pool(out)
    assert len(entries) == report.kept == 40
    first = entries[0]
    assert first.provenance["kb"] == "example_kb_ext.json" and first.provenance["kb_hash"]
    assert parse_steps(first.steps).program == first.program
    assert first.questions[0].by == "canonical"
    assert first.question == canonical_question(first.program)
    assert first.with_question("Who?", "gemma").questions[-1].by == "gemma"


def test_kb_without_attributes_gives_relation_programs():
    kb = load_kb(METAQA_SUBSET, schema=KB_SCHEMA)
    entries = list(explore(kb, ExploreOptions(programs=300)))
    assert len(entries) == 300
    used = {op for e in entries for op in e.ops}
    assert "Relate" in used and not used & {"QueryAttr", "FilterNum", "SelectAmong"}


def test_explored_patterns_cover_metaqa_gold_patterns():
    kb = load_kb(METAQA_SUBSET, schema=KB_SCHEMA)
    explored = {e.pattern for e in explore(kb, ExploreOptions(programs=1500))}
    one_hop = {pattern(gold_program("x", t)) for t in (
        "movie_to_director", "actor_to_movie", "movie_to_writer", "writer_to_movie",
        "movie_to_genre", "movie_to_year", "movie_to_language", "movie_to_tags")}
    assert one_hop <= explored
    two_hop = {pattern(gold_program("x", f"{a}_to_movie_to_{b}"))
               for a in ("actor", "director", "writer") for b in ("actor", "director", "genre")}
    assert len(two_hop & explored) >= len(two_hop) // 2


def test_patterns_blank_entities_and_values_and_order_joins():
    a = ir.And(left=ir.Relate(input=ir.Find(name="A"), relation="r", direction="forward"),
               right=ir.FilterNum(input=ir.FindAll(), key="k", value="3 metre", comparator="<"))
    b = ir.And(left=a.right.model_copy(update={"value": "9 metre"}),
               right=a.left.model_copy(update={"input": ir.Find(name="B")}))
    assert pattern(a) == pattern(b)
    assert "metre" not in pattern(a) and '"k"' in pattern(a)


@pytest.mark.parametrize("program, question", [
    (ir.QueryAttr(input=ir.Find(name="Iron"), key="melting point"),
     "What is the melting point of Iron?"),
    (ir.Count(input=ir.Relate(input=ir.Find(name="Sweden"), relation="discovered in",
                              direction="backward")),
     "How many entities discovered in Sweden are there?"),
    (ir.VerifyNum(input=ir.QueryAttr(input=ir.Find(name="Gold"), key="density"),
                  value="10 gram per cubic centimetre", comparator=">"),
     "Is the density of Gold greater than 10 gram per cubic centimetre?"),
    (ir.SelectAmong(input=ir.FilterConcept(input=ir.FindAll(), concept="halogen"),
                    key="boiling point", comparator="smallest"),
     "Which of the halogen entities has the smallest boiling point?"),
    (ir.QueryName(input=ir.Relate(input=ir.Find(name="Heat"), relation="has_genre",
                                  direction="forward")),
     "What are the genre of Heat?"),
    (ir.QueryName(input=ir.Relate(input=ir.Find(name="Heat"), relation="written_by",
                                  direction="forward")),
     "What are the entities that wrote Heat?"),
    (ir.QueryName(input=ir.Relate(input=ir.Find(name="Michael Mann"), relation="directed_by",
                                  direction="backward")),
     "What are the entities directed by Michael Mann?"),
])
def test_canonical_questions(program, question):
    assert canonical_question(program) == question


# Bad input.

def _write_kb(path: Path, entities: dict, concepts: dict | None = None) -> Path:
    path.write_text(json.dumps({"concepts": concepts or {}, "entities": entities}))
    return path


def _entity(name, attributes=(), relations=()):
    return {"name": name, "instanceOf": [], "attributes": list(attributes),
            "relations": list(relations)}


def _height(cm):
    return {"key": "height", "value": {"type": "quantity", "value": cm, "unit": "centimetre"},
            "qualifiers": {}}


def test_empty_kb_is_refused_with_a_message(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("KOPLC_CACHE_DIR", str(tmp_path / "cache"))
    kb = _write_kb(tmp_path / "empty.json", {})
    assert main(["explore", str(kb), "--programs", "5", "--quiet"]) == 1
    assert "no entities" in capsys.readouterr().err
    assert not pool_path(kb).exists()


def test_kb_without_facts_is_refused(tmp_path):
    kb = load_kb(_write_kb(tmp_path / "bare.json", {"a": _entity("A"), "b": _entity("B")}))
    with pytest.raises(PoolError, match="no relations or attributes"):
        list(explore(kb, ExploreOptions(programs=5)))


def test_kb_without_relations_gives_a_small_attribute_pool(tmp_path):
    kb = load_kb(_write_kb(tmp_path / "people.json", {
        f"p{i}": _entity(f"Person {i}", [_height(150 + 10 * i)]) for i in range(4)}))
    entries = list(explore(kb, ExploreOptions(programs=200, stall=500)))
    assert len(entries) == 200
    assert {op for e in entries for op in e.ops} >= {"QueryAttr", "FilterNum", "SelectAmong"}
    assert not {op for e in entries for op in e.ops} & {"Relate", "QueryRelation"}


def test_single_entity_kb_gives_a_small_pool(tmp_path):
    kb = load_kb(_write_kb(tmp_path / "one.json", {"a": _entity("A", [_height(180)])}))
    entries = list(explore(kb, ExploreOptions(programs=50, stall=300)))
    assert 0 < len(entries) < 50
    assert all(e.answers for e in entries)


def test_kb_with_nothing_to_ask_writes_no_pool(tmp_path):
    # Its one fact leads from A back to A: every answer is the topic itself.
    one = _entity("A", relations=[{"relation": "self", "direction": "backward", "object": "a",
                                   "qualifiers": {}}])
    kb = load_kb(_write_kb(tmp_path / "loop.json", {"a": one}))
    out = tmp_path / "pool.jsonl"
    with pytest.raises(PoolError, match="no pool written"):
        explore_to_file(kb, out, ExploreOptions(programs=10, stall=200))
    assert not out.exists()


def test_interrupted_exploration_leaves_the_old_pool(tmp_path):
    kb = load_kb(EXAMPLE_EXT)
    out = tmp_path / "pool.jsonl"
    out.write_text("old pool\n")

    def interrupt(kept):
        if kept == 5:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        explore_to_file(kb, out, ExploreOptions(programs=30), progress=interrupt)
    assert out.read_text() == "old pool\n"
    assert [p.name for p in tmp_path.iterdir()] == ["pool.jsonl"]


def test_cli_writes_the_pool_into_the_user_cache(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("KOPLC_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["explore", str(PERIODIC), "--programs", "30", "--quiet"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["programs"] == 30
    assert Path(summary["pool"]) == pool_path(PERIODIC)
    assert str(tmp_path / "cache") in summary["pool"]
    assert len(read_pool(summary["pool"])) == 30


def test_pool_for_reads_the_cached_pool_until_the_kb_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("KOPLC_CACHE_DIR", str(tmp_path / "cache"))
    kb_file = tmp_path / "kb.json"
    kb_file.write_bytes(EXAMPLE_EXT.read_bytes())
    assert pool_for(kb_file) is None
    assert main(["explore", str(kb_file), "--programs", "10", "--quiet"]) == 0
    assert len(pool_for(kb_file)) == 10
    kb_file.write_text(kb_file.read_text().replace("LeBron James", "LeBron R. James"))
    assert pool_for(kb_file) is None
