"""The schema of a pipe-triples KB: the neutral one read from the file when none is named,
a dataset's by name (`--schema metaqa`), or a JSON file; a bad schema file is a clear error."""

from __future__ import annotations

import json

import pytest

from koplc import api
from koplc.cli import main
from koplc.kopl.datasets.metaqa import KB_SCHEMA
from koplc.kopl.errors import KBError
from koplc.kopl.execution.executor import execute
from koplc.kopl.ir import FilterConcept, Find, FindAll, QueryAttr, QueryName, Relate
from koplc.kopl.kb.triple_schema import NEUTRAL_CONCEPT, TripleSchema, neutral_schema
from koplc.kopl.types import Direction

TRIPLES = ("Heat|directed_by|Michael Mann\nHeat|release_year|1995\nHeat|has_tags|1995\n"
           "Heat|has_tags|crime\nAlien|release_year|1979\nAlien|written_by|Dan O'Bannon\n")


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KOPLC_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def triples(tmp_path):
    path = tmp_path / "kb.txt"
    path.write_text(TRIPLES, encoding="utf-8")
    return path


def concepts(kb) -> set[str]:
    return set(kb.concept_names())


def test_a_pipe_file_without_a_schema_gets_the_neutral_one(triples):
    kb = api.load_kb(triples)
    assert concepts(kb) == {NEUTRAL_CONCEPT}  # nothing of MetaQA's: no movie, no person
    everyone = QueryName(input=FilterConcept(input=FindAll(), concept=NEUTRAL_CONCEPT))
    assert set(execute(everyone, kb).value) == {"Heat", "Alien", "Michael Mann",
                                                "Dan O'Bannon", "1995", "crime"}
    year = QueryAttr(input=Find(name="Alien"), key="release_year")
    assert execute(year, kb).value == ["1979"]  # a relation of years only is an attribute
    tags = Relate(input=Find(name="Heat"), relation="has_tags", direction=Direction.FORWARD)
    assert set(execute(QueryName(input=tags), kb).value) == {"1995", "crime"}  # not all years


def test_metaqa_by_name_gives_metaqas_schema(triples, capsys):
    kb = api.load_kb(triples, schema="metaqa")
    assert concepts(kb) == set(KB_SCHEMA.concepts())
    assert main(["kb", "stats", str(triples), "--schema", "metaqa"]) == 0
    stats = dict(line.split(": ") for line in capsys.readouterr().out.splitlines())
    assert stats["concepts"] == str(len(KB_SCHEMA.concepts())) and stats["entities"] == "7"
    assert main(["kb", "stats", str(triples)]) == 0
    stats = dict(line.split(": ") for line in capsys.readouterr().out.splitlines())
    assert stats["concepts"] == "1" and stats["entities"] == "6"


def test_the_cache_keeps_each_schema_apart(triples):
    assert "movie" in concepts(api.load_kb(triples, schema="metaqa"))
    assert concepts(api.load_kb(triples)) == {NEUTRAL_CONCEPT}
    assert "movie" in concepts(api.load_kb(triples, schema=KB_SCHEMA))


def test_a_schema_file_shapes_the_kb(triples, tmp_path, capsys):
    schema = tmp_path / "films.json"
    schema.write_text(json.dumps({"subject_concept": "film",
                                  "object_concepts": {"directed_by": "director"},
                                  "attributes": {"release_year": "year"}}))
    kb = api.load_kb(triples, schema=schema)
    assert concepts(kb) == {"film", "director"}
    directors = FilterConcept(input=Relate(input=Find(name="Heat"), relation="directed_by",
                                           direction=Direction.FORWARD), concept="director")
    assert execute(QueryName(input=directors), kb).value == ["Michael Mann"]
    program = tmp_path / "program.txt"
    program.write_text("Step 1: Find(Alien)\nStep 2: QueryAttr(release_year)\nDone\n")
    assert main(["run", str(program), "--kb", str(triples), "--schema", str(schema)]) == 0
    assert json.loads(capsys.readouterr().out)["answer"] == ["1979"]


def test_a_malformed_schema_file_is_a_clear_error_with_its_position(triples, tmp_path, capsys):
    schema = tmp_path / "bad.json"
    schema.write_text('{"subject_concept": "film",\n "object_concepts": {"directed_by" "x"}}\n')
    status = main(["kb", "stats", str(triples), "--schema", str(schema)])
    err = capsys.readouterr().err
    assert status != 0
    assert "Traceback" not in err
    assert f"{schema}: not a JSON schema" in err and "Line 2, Col 36" in err
    assert '{"directed_by" "x"}' in err and "^" in err  # the line, with a caret


@pytest.mark.parametrize(("text", "message"), [
    ('["film"]', '"subject_concept"'),
    ('{"subject_concept": "film", "attributes": {"year": "decade"}}', "unknown value type"),
    ('{"subject_concept": "film", "object_concepts": ["person"]}', '"object_concepts"'),
])
def test_a_schema_of_the_wrong_shape_is_a_clear_error(tmp_path, triples, text, message):
    schema = tmp_path / "schema.json"
    schema.write_text(text)
    with pytest.raises(KBError, match=message):
        api.load_kb(triples, schema=schema)


def test_a_schema_that_is_neither_a_name_nor_a_file_is_a_clear_error(triples, capsys):
    assert main(["kb", "stats", str(triples), "--schema", "imdb"]) != 0
    err = capsys.readouterr().err
    assert "neither a dataset schema (metaqa) nor a schema file" in err
    assert "Traceback" not in err


def test_the_shipped_kb_loads_with_metaquas_schema(triples, monkeypatch):
    """No path: the shipped MetaQA KB (here a small stand-in for it), under MetaQA's schema."""
    monkeypatch.setattr("koplc.llm.lm.defaults.default_kb_path", lambda: triples)
    assert concepts(api.load_kb()) == set(KB_SCHEMA.concepts())
    assert concepts(api.load_kb(schema=TripleSchema("film"))) == {"film"}


@pytest.mark.parametrize(("objects", "kind"), [
    (["1995", "2001"], "year"),
    (["1995-07-01", "2001-12-31"], "date"),
    (["7.5", "-2", "0", "1995"], "quantity"),
    (["1995", "Heat"], None),        # not all values
    (["007", "12"], None),           # a leading zero: a code
    (["2001-02-30"], None),          # no such day
    (["1e5"], None),                 # only plain decimals
])
def test_the_neutral_schema_reads_a_relation_of_values_as_an_attribute(objects, kind):
    schema = neutral_schema([("s", "r", o) for o in objects])
    assert schema.attributes.get("r") == kind
    assert schema.object_concepts == ({} if kind else {"r": NEUTRAL_CONCEPT})


def test_a_value_that_is_also_a_subject_keeps_the_relation():
    schema = neutral_schema([("Heat", "sequel", "2001"), ("2001", "directed_by", "Kubrick")])
    assert schema.attributes == {}
    assert schema.object_concepts == {"sequel": NEUTRAL_CONCEPT, "directed_by": NEUTRAL_CONCEPT}


def test_subject_concepts_type_the_subjects_of_the_relations_they_name(tmp_path):
    path = tmp_path / "fleet.txt"
    path.write_text("N1|operated_by|Blue Air\nBlue Air|flies_to|Gate City\nN1|seats|180\n")
    schema = TripleSchema.from_json(json.dumps({
        "subject_concept": "aircraft", "object_concepts": {"operated_by": "airline",
                                                           "flies_to": "airport"},
        "subject_concepts": {"flies_to": "airline"}, "attributes": {"seats": "quantity"}}))
    kb = api.load_kb(path, schema=schema)
    aircraft = execute(QueryName(input=FilterConcept(input=FindAll(), concept="aircraft")), kb)
    airlines = execute(QueryName(input=FilterConcept(input=FindAll(), concept="airline")), kb)
    assert aircraft.value == ["N1"] and airlines.value == ["Blue Air"]
    assert TripleSchema.from_json(schema.to_json()) == schema
