"""KBs from triples: MetaQA pipe files under a schema, and N-Triples / Turtle via pyoxigraph."""

from __future__ import annotations

import json

import pytest

from conftest import FIXTURES
from kb_fixtures import METAQA_KB, kb_for_fixture  # noqa: F401 - the kb_for fixture
from koplc.kopl.datasets.metaqa import KB_SCHEMA
from koplc.kopl.errors import KBError
from koplc.kopl.execution.executor import execute
from koplc.kopl.ir import (
    Count,
    FilterConcept,
    FilterNum,
    Find,
    FindAll,
    QueryAttr,
    QueryName,
    Relate,
)
from koplc.kopl.kb.kopl_json import kb_to_data, load_kopl_json
from koplc.kopl.kb.triple_schema import TripleSchema
from koplc.kopl.kb.triples import load_pipe_triples, load_rdf
from koplc.kopl.types import Comparator, Direction


def test_metaqa_triples_build_exactly_the_kopl_json_of_the_converter():
    """Same ids, names, concepts and record order as MetaQA's kopl_kb.json, which another tool
    wrote: on a cut of both (tests/fixtures/metaqa), each entity keeping all its concepts."""
    from_triples = load_pipe_triples(FIXTURES / "metaqa/kb_subset.txt", KB_SCHEMA)
    expected = load_kopl_json(FIXTURES / "metaqa/kopl_kb_subset.json")
    data = kb_to_data(expected)
    assert kb_to_data(from_triples) == data
    assert len(data["concepts"]) == 8
    assert sum(len(e["instanceOf"]) > 1 for e in data["entities"].values()) >= 5  # two concepts


def test_the_schema_reads_from_json_and_orders_the_concepts():
    schema = TripleSchema.from_json(KB_SCHEMA.to_json())
    assert schema == KB_SCHEMA
    assert KB_SCHEMA.concepts() == ["movie", "person", "tag", "genre", "language", "year",
                                 "imdb rating", "imdb votes"]


def test_a_schema_can_make_a_relation_an_attribute(tmp_path):
    path = tmp_path / "kb.txt"
    path.write_text("Heat|directed_by|Michael Mann\nHeat|release_year|1995\n"
                    "Alien|release_year|1979\n")
    schema = TripleSchema("movie", {"directed_by": "person"}, {"release_year": "year"})
    kb = load_pipe_triples(path, schema)
    newer = FilterNum(input=FilterConcept(input=FindAll(), concept="movie"), key="release_year",
                      value="1990", comparator=Comparator.GT)
    assert execute(QueryName(input=newer), kb).value == []  # a year is not a quantity
    year = QueryAttr(input=Find(name="Heat"), key="release_year")
    assert execute(year, kb).value == ["1995"]
    person = Relate(input=Find(name="Heat"), relation="directed_by", direction=Direction.FORWARD)
    assert execute(Count(input=FilterConcept(input=person, concept="person")), kb).value == "1"


@pytest.mark.parametrize("line", ["a|b", "a|b|c|d", "|r|o", "a||c"])
def test_a_malformed_triple_line_names_the_file_and_line(tmp_path, line):
    path = tmp_path / "kb.txt"
    path.write_text(f"x|directed_by|y\n\n{line}\n")
    with pytest.raises(KBError, match=rf"{path}: line 3: expected subject\|relation\|object"):
        load_pipe_triples(path)


TURTLE = """
@prefix : <http://example.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
:Player rdfs:label "basketball player" ; rdfs:subClassOf :Athlete .
:Athlete rdfs:label "athlete" .
:lebron a :Player ; rdfs:label "LeBron James" ;
    :height "206"^^xsd:integer ; :born "1984-12-30"^^xsd:date ; :sex "male" ;
    :memberOf :cavs .
:cavs rdfs:label "Cleveland Cavaliers" ; :inception "1970"^^xsd:gYear .
:memberOf rdfs:label "member of sports team" .
"""


def _rdf_kb(tmp_path, suffix: str, text: str):
    path = tmp_path / f"kb{suffix}"
    path.write_text(text)
    return load_rdf(path)


def test_turtle_maps_labels_types_literals_and_links(tmp_path):
    kb = _rdf_kb(tmp_path, ".ttl", TURTLE)
    assert kb.concept_names() == ["athlete", "basketball player"]
    athletes = FilterConcept(input=FindAll(), concept="athlete")
    # engine semantics: the sub-concept node is an "instance" of its super-concept too
    assert sorted(execute(QueryName(input=athletes), kb).value) == ["LeBron James",
                                                                     "basketball player"]
    team = Relate(input=Find(name="LeBron James"), relation="member of sports team",
                  direction=Direction.FORWARD)
    assert execute(QueryName(input=team), kb).value == ["Cleveland Cavaliers"]
    back = Relate(input=Find(name="Cleveland Cavaliers"), relation="member of sports team",
                  direction=Direction.BACKWARD)
    assert execute(QueryName(input=back), kb).value == ["LeBron James"]
    values = {key: execute(QueryAttr(input=Find(name="LeBron James"), key=key), kb).value
              for key in ("height", "born", "sex")}
    assert values == {"height": ["206"], "born": ["1984-12-30"], "sex": ["male"]}
    assert execute(QueryAttr(input=Find(name="Cleveland Cavaliers"), key="inception"),
                   kb).value == ["1970"]
    assert "memberOf" not in kb.ids and "member of sports team" not in kb.names


def test_ntriples_give_the_same_kb_as_turtle(tmp_path):
    import pyoxigraph

    quads = pyoxigraph.parse(TURTLE, format=pyoxigraph.RdfFormat.TURTLE)
    nt = pyoxigraph.serialize(quads, format=pyoxigraph.RdfFormat.N_TRIPLES).decode()
    assert kb_to_data(_rdf_kb(tmp_path, ".nt", nt)) == kb_to_data(_rdf_kb(tmp_path, ".ttl", TURTLE))


UNLABELLED = """
<urn:lib:e:Ada_Lovelace> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <urn:lib:c:mathematician> .
<urn:lib:e:Ada_Lovelace> <urn:lib:r:collaborated_with> <urn:lib:e:Charles_Babbage> .
<urn:lib:e:Ada_Lovelace> <http://example.org/ns#birthYear> "1815"^^<http://www.w3.org/2001/XMLSchema#gYear> .
<urn:lib:e:Ada_Lovelace> <http://rdf.freebase.com/ns/people.person.place_of_birth> <http://dbpedia.org/resource/Category:Londoners> .
<urn:lib:e:Charles_Babbage> <http://example.org/ns/designed> _:engine .
"""


def test_unlabelled_iris_are_named_by_their_local_part_in_any_scheme(tmp_path):
    kb = _rdf_kb(tmp_path, ".nt", UNLABELLED)
    assert kb.relation_names == {"collaborated_with", "people.person.place_of_birth",
                                 "designed"}
    assert set(kb.attr_index) == {"birthYear"}
    assert kb.concept_names() == ["mathematician"]
    names = set(kb.names[kb.n_concepts:])
    # a colon after the last / belongs to the name; a blank node keeps its id
    assert {"Ada_Lovelace", "Charles_Babbage", "Category:Londoners"} < names
    assert sum(name.startswith("_:") for name in names) == 1
    friend = Relate(input=Find(name="Ada_Lovelace"), relation="collaborated_with",
                    direction=Direction.FORWARD)
    assert execute(QueryName(input=friend), kb).value == ["Charles_Babbage"]


def test_an_rdf_syntax_error_names_the_file(tmp_path):
    with pytest.raises(KBError, match=r"kb\.ttl: RDF syntax"):
        _rdf_kb(tmp_path, ".ttl", "@prefix : <http://e/> .\n:a :b .\n")


def test_metaqa_kopl_json_round_trips():
    path = FIXTURES / "metaqa/kopl_kb_subset.json"
    assert json.loads(json.dumps(kb_to_data(load_kopl_json(path)))) == json.loads(
        path.read_text(encoding="utf-8"))


@pytest.mark.whole_kb
def test_the_whole_metaqa_kb_round_trips_through_json(kb_for, tmp_path):
    data = kb_to_data(kb_for(METAQA_KB))
    assert len(data["entities"]) == 43234 and len(data["concepts"]) == 8
    path = tmp_path / "kopl_kb.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert kb_to_data(load_kopl_json(path)) == data
