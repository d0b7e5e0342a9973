"""Identifiers as users and KBs write them: schema names in any convention read as words
(koplc.kopl.naming), and questions that name entities by raw identifiers (underscores, odd
case, possessives, dots, hyphens) link to the same KB entities as their display names."""

from __future__ import annotations

import pytest

from koplc.kopl.answering.linking import concept_starts, link_question
from koplc.kopl.grounding.name_forms import joined_spellings, spellings, written_as_identifier
from koplc.kopl.kb.model import KBBuilder
from koplc.kopl.naming import local_name, name_head, name_phrase, name_words


@pytest.mark.parametrize(("iri", "local"), [
    ("urn:lib:r:collaborated_with", "collaborated_with"),
    ("urn:lib:r:", "r"),
    ("http://example.org/ns#birthYear", "birthYear"),
    ("http://example.org/ns/designed/", "designed"),
    ("http://rdf.freebase.com/ns/film.film.directed_by", "film.film.directed_by"),
    ("http://www.wikidata.org/prop/direct/P569", "P569"),
    ("http://dbpedia.org/resource/Category:Londoners", "Category:Londoners"),
    ("tag:nothing", "nothing"),
])
def test_the_local_name_of_an_iri(iri, local):
    assert local_name(iri) == local


@pytest.mark.parametrize(("name", "words", "head"), [
    ("film.film.directed_by", ("film", "film", "directed", "by"), ("directed", "by")),
    ("__film__film__directed_by", ("film", "film", "directed", "by"), ("directed", "by")),
    ("birthYear", ("birth", "year"), ("birth", "year")),
    ("HTTPStatusCode", ("http", "status", "code"), ("http", "status", "code")),
    ("number_of_pages", ("number", "of", "pages"), ("number", "of", "pages")),
    ("number-of-pages", ("number", "of", "pages"), ("number", "of", "pages")),
    ("Number of Pages", ("number", "of", "pages"), ("number", "of", "pages")),
    ("P569", ("P569",), ("P569",)),
    ("a.b.P569", ("a", "b", "P569"), ("P569",)),
    ("date of death (approx.)", ("date", "of", "death", "approx"),
     ("date", "of", "death", "approx")),
])
def test_schema_names_read_as_words_whatever_their_convention(name, words, head):
    assert name_words(name) == words
    assert name_head(name) == head
    assert name_phrase(name) == " ".join(words)


def test_spellings_fold_separators_case_accents_and_german_ascii():
    assert spellings("GRACE_hopper") == spellings("Grace Hopper") == ("grace hopper",)
    assert "borussia monchengladbach" in spellings("Borussia Mönchengladbach")
    assert set(spellings("Borussia_Moenchengladbach")) < set(
        spellings("Borussia Mönchengladbach"))
    assert joined_spellings("HAL 9000") == joined_spellings("hal9000") == ("hal9000",)
    assert written_as_identifier("grace_hopper") and written_as_identifier("GraceHopper")
    assert not written_as_identifier("grace hopper")


PEOPLE = ["Grace Hopper", "Jean-Paul Sartre", "J. R. R. Tolkien", "Sinéad O'Connor", "HAL 9000",
          "Marie of Saxe-Coburg", "Everyday", "Paris"]
CLUBS = ["Borussia Mönchengladbach", "1. FC Köln"]


@pytest.fixture(scope="module")
def kb():
    builder = KBBuilder("identifiers")
    builder.add_concept("c:person", "person", [])
    builder.add_concept("c:club", "sports.football_club", [])
    for i, name in enumerate(PEOPLE):
        builder.add_entity(f"p{i}", name, ["c:person"])
    for i, name in enumerate(CLUBS):
        builder.add_entity(f"c{i}", name, ["c:club"])
    return builder.build()


@pytest.mark.parametrize(("question", "entity", "written"), [
    ("Where did Grace_Hopper work?", "Grace Hopper", "Grace_Hopper"),
    ("where did grace hopper work", "Grace Hopper", "grace hopper"),
    ("GRACE_HOPPER's rank?", "Grace Hopper", "GRACE_HOPPER"),
    ("grace_hopper 's rank", "Grace Hopper", "grace_hopper"),
    ("Which novels are jean_paul_sartre’s?", "Jean-Paul Sartre", "jean_paul_sartre"),
    ("books by j._r._r._tolkien", "J. R. R. Tolkien", "j._r._r._tolkien"),
    ("Songs of sinead_o_connor?", "Sinéad O'Connor", "sinead_o_connor"),
    ("Who built hal9000?", "HAL 9000", "hal9000"),
    ("Who built HAL_9000?", "HAL 9000", "HAL_9000"),
    ("Did Sartre meet marie_of_saxe-coburg?", "Marie of Saxe-Coburg", "marie_of_saxe-coburg"),
    ("Who coaches Borussia_Moenchengladbach?", "Borussia Mönchengladbach",
     "Borussia_Moenchengladbach"),
    ("Where does 1.FC_Koeln 's team play?", "1. FC Köln", "1.FC_Koeln"),
    ("Who coaches GraceHopper?", "Grace Hopper", "GraceHopper"),
])
def test_a_raw_identifier_links_to_the_kbs_entity(kb, question, entity, written):
    linked = link_question(question, kb)
    assert linked.entities == (entity,)
    (start, end), = linked.spans
    assert linked.question[start:end] == written


@pytest.mark.parametrize(("question", "entities"), [
    ("Who was Grace Hopper?", ("Grace Hopper",)),
    ("What did Jean-Paul Sartre write in Paris?", ("Jean-Paul Sartre", "Paris")),
    ("Which songs did Sinéad O'Connor sing?", ("Sinéad O'Connor",)),
    ("Did J. R. R. Tolkien live in Paris?", ("J. R. R. Tolkien", "Paris")),
    ("Which club is Borussia Mönchengladbach?", ("Borussia Mönchengladbach",)),
    ("Is Everyday a film?", ("Everyday",)),
    # plain words compare word by word: "every day" is not "Everyday"
    ("What did Grace Hopper do every day?", ("Grace Hopper",)),
])
def test_display_names_link_as_written(kb, question, entities):
    assert link_question(question, kb).entities == entities


def test_a_concept_named_as_an_identifier_is_said_in_words(kb):
    assert link_question("Which football club did Grace Hopper support?", kb).concepts == (
        "sports.football_club",)
    starts = concept_starts(kb, "list the football clubs")
    assert [s.concept for s in starts] == ["sports.football_club"]


@pytest.mark.parametrize(("question", "entities"), [
    # the one name to start with the word, as people shorten names
    ("Who coaches Borussia?", ("Borussia Mönchengladbach",)),
    ("What did Sinéad sing?", ("Sinéad O'Connor",)),
    # a lower-case word, or a word inside a name rather than at its start, names nothing
    ("Who coaches borussia?", ()),
    ("Who coaches Fc?", ()),
])
def test_a_name_is_linked_by_its_leading_words_when_no_other_name_starts_so(
        kb, question, entities):
    assert link_question(question, kb).entities == entities


@pytest.mark.parametrize(("question", "entities"), [
    # the one name to end with the word, as people call a maker's model by its own name
    ("Who coaches Mönchengladbach?", ("Borussia Mönchengladbach",)),
    ("Which plays did Sartre write?", ("Jean-Paul Sartre",)),
    # a word after a capitalised one is part of a longer name, one the KB lacks
    ("Who is Tom Sartre?", ()),
])
def test_a_name_is_linked_by_its_trailing_words_when_no_other_name_ends_so(
        kb, question, entities):
    assert link_question(question, kb).entities == entities
