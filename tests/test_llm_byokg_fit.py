"""The BYOKG search's word-level fit with the real MiniLM: a reading's verbs are matched with
their agent nouns ("wrote" with "writer"), a schema noun with a dataset's near synonyms only
where they are passed (MetaQA's "kind" for "genre", `metaqa.WORDS`), and a noun naming the
entity's own concept is left out of the question; shown on a small book KB that no dataset's
questions were written for."""

from __future__ import annotations

import json

import pytest

from koplc.kopl.datasets import metaqa
from koplc.kopl.ir import Find, QueryName, Relate
from koplc.kopl.kb.cache import load_kb
from koplc.llm.byokg import fit
from koplc.llm.byokg.reasoner import ByokgFrontEnd, ByokgOptions

pytestmark = [pytest.mark.model, pytest.mark.usefixtures("private_caches")]


def _entity(name, concept, relations=(), year=None):
    attributes = [] if year is None else [
        {"key": "publication year", "value": {"type": "year", "value": year}, "qualifiers": {}}]
    return {"name": name, "instanceOf": [concept], "attributes": attributes,
            "relations": [{"relation": r, "direction": "forward", "object": o, "qualifiers": {}}
                          for r, o in relations]}


@pytest.fixture
def books(tmp_path):
    people = {"P1": "Herman Melville", "P2": "Rockwell Kent", "P3": "Mary Shelley",
              "P4": "Lynd Ward"}
    genres = {"G1": "adventure", "G2": "gothic"}
    shelf = [("B1", "Moby Dick", "P1", "P2", "G1", 1851), ("B2", "Typee", "P1", "P4", "G1", 1846),
             ("B3", "Frankenstein", "P3", "P4", "G2", 1818),
             ("B4", "The Last Man", "P3", "P2", "G2", 1826)]
    entities = {i: _entity(n, "C1") for i, n in people.items()}
    entities |= {i: _entity(n, "C3") for i, n in genres.items()}
    for i, name, writer, artist, genre, year in shelf:
        entities[i] = _entity(name, "C2", [("written by", writer), ("illustrated by", artist),
                                           ("genre", genre)], year)
    for i, entity in list(entities.items()):  # KoPL KBs list each relation both ways
        for edge in [e for e in entity["relations"] if e["direction"] == "forward"]:
            entities[edge["object"]]["relations"].append(
                edge | {"direction": "backward", "object": i})
    kb = {"concepts": {"C1": {"name": "person", "subclassOf": []},
                       "C2": {"name": "book", "subclassOf": []},
                       "C3": {"name": "literary genre", "subclassOf": []}},
          "entities": entities}
    path = tmp_path / "books.json"
    path.write_text(json.dumps(kb))
    return load_kb(path)


@pytest.fixture(scope="module")
def search():
    return ByokgFrontEnd(None, options=ByokgOptions(rerank=False, demos="none"), pool=[])


@pytest.mark.parametrize(("question", "answers"), [
    ("Who is the writer of Moby Dick?", {"Herman Melville"}),
    ("Who was the illustrator of Moby Dick?", {"Rockwell Kent"}),
    ("What genre is Frankenstein?", {"gothic"}),
    ("Which books share their author with Typee?", {"Moby Dick", "Typee"}),
])
def test_agent_nouns_and_near_synonyms_find_the_relation(books, search, question, answers):
    compiled = search.compile(question, books)
    assert set(compiled.answers) == answers, compiled.raw or compiled.error


def test_a_reading_word_counts_at_its_nearest_sense():
    from koplc.kopl.grounding.index.embedder import Embedder

    vectors = Embedder().encode_queries
    with_senses = fit.similarity(["screenwriter", "kind"], ["wrote", "genre"], vectors)
    plain = vectors(["screenwriter", "kind"]) @ vectors(["wrote", "genre"]).T
    assert with_senses[0, 0] > plain[0, 0] + 0.1  # through "writer"
    assert with_senses[1, 1] == pytest.approx(plain[1, 1], abs=1e-4)  # English alone
    metaqa_senses = fit.similarity(["kind"], ["genre"], vectors, metaqa.WORDS)
    assert metaqa_senses[0, 0] == pytest.approx(1.0, abs=1e-4)  # MetaQA's sense of "genre"
    said = fit.question_words("what kind of movie is ENT", ["movie"], vectors)
    assert said == ["kind"]
    assert fit.question_words("who directed ENT", ["movie"], vectors) == ["who", "directed"]


def test_a_relation_names_what_it_reaches_by_its_head():
    """"aircraft type" reaches types, not aircraft: asked for planes, it matches no better than
    its head "type"; asked for engine types, "engine type" keeps its modifier and matches."""
    from koplc.kopl.grounding.index.embedder import Embedder

    vectors = Embedder().encode_queries
    node = QueryName(input=Relate(input=Find(name="N102UW"), relation="aircraft_type",
                                  direction="forward"))
    planes = fit.answer_type(node, lambda _: None, "planes")
    assert planes == ("aircraft type", "type")
    assert fit.type_match("planes", planes, vectors) < 0.5 < fit.type_match(
        "planes", "aircraft type", vectors)
    engine = QueryName(input=Relate(input=Find(name="N102UW"), relation="engine_type",
                                    direction="forward"))
    assert fit.answer_type(engine, lambda _: None, "engine types") == "engine type"
