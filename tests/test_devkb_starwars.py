"""The Star Wars development KB (tests/fixtures/devkbs/starwars): kb.nt loads with koplc's RDF
loader, the question file has the promised shape, and every question's gold program, run by
koplc, gives the answers its builder computed in plain Python over dplyr's table.

The programs name relations and attribute keys by the predicates' names (``homeworld`` for
``urn:starwars:r:homeworld``): koplc's loader names a predicate without an ``rdfs:label`` by
its IRI's local part, which in a ``urn:`` IRI follows the last ``:``.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from conftest import FIXTURES, gold_form, read_jsonl, second_tune_set_is_well_formed
from koplc.kopl.execution.executor import execute
from koplc.kopl.kb.triples import load_rdf
from koplc.kopl.syntax.nested import parse

FOLDER = FIXTURES / "devkbs" / "starwars"
QUESTIONS = read_jsonl(FOLDER / "questions.jsonl")
MORE = read_jsonl(FOLDER / "more_questions.jsonl")  # the second tune set (more.py)
FOURTH = read_jsonl(FOLDER / "fourth_questions.jsonl")  # the fourth (fourth.py)
RELATIONS = ("homeworld", "species")
ATTRIBUTES = ("height", "mass", "birth_year", "hair_color", "skin_color", "eye_color", "sex",
              "gender")
KINDS = {"name 1-hop", "name 2-hop", "name 3-hop", "count", "attribute", "filter by number",
         "and", "verify", "select between", "select among", "relation", "raw identifier",
         "absent"}


@pytest.fixture(scope="module")
def kb():
    return load_rdf(FOLDER / "kb.nt")


def test_the_question_file_has_its_shape():
    assert len(QUESTIONS) >= 64
    for q in QUESTIONS:
        assert set(q) <= {"question", "answers", "kind", "half", "program"}, q
        assert q["kind"] in KINDS and q["half"] in ("tune", "report"), q
        assert isinstance(q["question"], str) and q["question"].strip()
        assert all(isinstance(a, str) for a in q["answers"]) and q["answers"] == sorted(
            q["answers"]), q
    halves = Counter((q["kind"], q["half"]) for q in QUESTIONS)
    for kind in KINDS:
        assert halves[kind, "tune"] >= 1 and halves[kind, "report"] >= 1, kind
    absent = [q for q in QUESTIONS if q["kind"] == "absent"]
    assert len(absent) >= 5 and all(q["answers"] == [] for q in absent)
    assert all(q["answers"] for q in QUESTIONS if q["kind"] != "absent")
    assert len({q["question"] for q in QUESTIONS}) == len(QUESTIONS)


def test_at_least_half_the_questions_avoid_the_kbs_predicate_names():
    def says_a_name(text: str) -> bool:
        return any(re.search(rf"\b{p}\b|\b{p.replace('_', ' ')}\b", text.lower())
                   for p in (*RELATIONS, *ATTRIBUTES))
    assert sum(not says_a_name(q["question"]) for q in QUESTIONS) * 2 >= len(QUESTIONS)


def test_the_kb_loads_with_its_entities_and_facts(kb):
    stats = kb.stats()
    assert stats["concepts"] == 3 and stats["entities"] == 87 + 48 + 37
    assert stats["relations"] == len(RELATIONS) and stats["attribute keys"] == len(ATTRIBUTES)
    assert kb.concept_names() == ["character", "planet", "species"]
    assert "Luke Skywalker" in kb.name_to_nodes and "Yoda's species" in kb.name_to_nodes


def test_urn_predicates_are_named_by_their_local_part(kb):
    assert kb.relation_names == set(RELATIONS)
    assert set(kb.attr_index) == set(ATTRIBUTES)


@pytest.mark.parametrize("question", [q for q in [*QUESTIONS, *MORE, *FOURTH] if "program" in q],
                         ids=lambda q: q["question"][:60])
def test_programs_give_the_gold_answers(kb, question):
    answer = execute(parse(question["program"]).program, kb)
    got = gold_form(answer.value)
    assert got == question["answers"]


def test_the_second_tune_set_is_well_formed():
    second_tune_set_is_well_formed(MORE, QUESTIONS, KINDS)
    second_tune_set_is_well_formed(FOURTH, [*QUESTIONS, *MORE], KINDS, absent=6)
