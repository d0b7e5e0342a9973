"""The mammals development KB (tests/fixtures/devkbs/mammals): kb.ttl, Turtle in Wikidata's
model, loads with koplc's RDF loader (statement nodes, quantities with their units, property
labels), the question file has the promised shape, and every gold program, run by koplc, gives
the answers its builder computed in plain Python over ggplot2's msleep table."""

from __future__ import annotations

import re

import pytest

from conftest import (
    FIXTURES,
    alternating_halves,
    gold_form,
    read_jsonl,
    second_tune_set_is_well_formed,
)
from koplc.kopl.execution.executor import execute
from koplc.kopl.kb.triples import load_rdf
from koplc.kopl.syntax.nested import parse

FOLDER = FIXTURES / "devkbs" / "mammals"
QUESTIONS = read_jsonl(FOLDER / "questions.jsonl")
MORE = read_jsonl(FOLDER / "more_questions.jsonl")  # the second tune set (more.py)
FOURTH = read_jsonl(FOLDER / "fourth_questions.jsonl")  # the fourth (fourth.py)
RELATIONS = {"parent taxon", "diet", "IUCN conservation status"}
QUANTITIES = {"total sleep per day": "hour", "REM sleep per day": "hour",
              "sleep cycle length": "hour", "awake time per day": "hour",
              "brain mass": "kilogram", "body mass": "kilogram"}
KINDS = {"name 1-hop", "name 2-hop", "name 3-hop", "count", "attribute", "filter by number",
         "and", "verify", "select between", "select among", "relation", "raw identifier",
         "absent"}


@pytest.fixture(scope="module")
def kb():
    return load_rdf(FOLDER / "kb.ttl")


def test_the_question_file_is_well_formed():
    assert len(QUESTIONS) >= 60
    for q in QUESTIONS:
        assert set(q) <= {"question", "answers", "kind", "half", "program"}
        assert q["kind"] in KINDS and q["question"].strip() and q["half"] in ("tune", "report")
        assert all(isinstance(a, str) for a in q["answers"])
        assert q["answers"] == sorted(set(q["answers"]))
    seen = alternating_halves(QUESTIONS)
    assert set(seen) == KINDS and all(n >= 4 for n in seen.values())
    absent = [q for q in QUESTIONS if q["kind"] == "absent"]
    assert len(absent) >= 8 and all(q["answers"] == [] and "program" not in q for q in absent)
    assert all(q["answers"] for q in QUESTIONS if q["kind"] != "absent")
    assert {a for q in QUESTIONS if q["kind"] == "verify" for a in q["answers"]} == {"yes", "no"}
    assert len({q["question"] for q in QUESTIONS}) == len(QUESTIONS)


def test_at_least_half_the_questions_avoid_the_schemas_words():
    words = ("parent taxon", "taxon", "genus", "genera", "order", "diet", "conservation",
             "iucn", "total sleep", "rem", "sleep cycle", "awake", "brain mass", "body mass",
             "mass", "carnivore", "herbivore", "omnivore", "insectivore", "mammal")

    def says_one(text: str) -> bool:
        return any(re.search(rf"\b{w}s?\b", text.lower()) for w in words)
    assert sum(not says_one(q["question"]) for q in QUESTIONS) * 2 >= len(QUESTIONS)


def test_the_kb_loads_in_wikidatas_model(kb):
    stats = kb.stats()
    assert stats["concepts"] == 5 and stats["entities"] == 83 + 77 + 19 + 4 + 6
    assert stats["relations"] == len(RELATIONS) and stats["attribute keys"] == len(QUANTITIES)
    assert kb.concept_names() == ["conservation status", "diet", "genus", "mammal", "order"]
    assert kb.relation_names == RELATIONS
    assert kb.key_type == dict.fromkeys(QUANTITIES, "quantity")
    cheetah = kb.name_to_nodes["Cheetah"][0]
    assert kb.ids[cheetah] == "Q1001"
    for key, unit in QUANTITIES.items():  # the units come from the psv: value nodes
        assert {fact[1].unit for facts in kb.attr_index[key].values() for fact in facts} == {unit}
    assert ("parent taxon", "forward") in {(r[1], r[2]) for r in kb.relations[cheetah]}
    # The unit items carry a label only: they are no entities.
    assert "hour" not in kb.name_to_nodes and "kilogram" not in kb.name_to_nodes


@pytest.mark.parametrize("question", [pytest.param(q, id=q["question"][:60])
                                      for q in [*QUESTIONS, *MORE, *FOURTH] if "program" in q])
def test_programs_give_the_gold_answers(kb, question):
    answer = execute(parse(question["program"]).program, kb)
    got = gold_form(answer.value)
    assert got == question["answers"]


def test_the_second_tune_set_is_well_formed():
    second_tune_set_is_well_formed(MORE, QUESTIONS, KINDS)
    second_tune_set_is_well_formed(FOURTH, [*QUESTIONS, *MORE], KINDS, absent=6)
