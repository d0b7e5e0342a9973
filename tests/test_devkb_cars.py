"""The cars development KB (tests/fixtures/devkbs/cars): kb.nt, a plain N-Triples dump of MASS's
Cars93 table, loads with koplc's RDF loader (classes from rdf:type, raw identifiers as labels,
unlabelled predicates named by their local names after ``#``), the question file has the
promised shape, and every gold program, run by koplc, gives the answers its builder computed in
plain Python over the table."""

from __future__ import annotations

import re
from collections import Counter

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

FOLDER = FIXTURES / "devkbs" / "cars"
QUESTIONS = read_jsonl(FOLDER / "questions.jsonl")
MORE = read_jsonl(FOLDER / "more_questions.jsonl")  # the second tune set (more.py)
FOURTH = read_jsonl(FOLDER / "fourth_questions.jsonl")  # the fourth (fourth.py)
CONCEPTS = ["car_model", "manufacturer", "size_class", "drivetrain", "airbag_configuration",
            "origin_group"]
RELATIONS = {"manufactured_by", "vehicle_class", "drive_layout", "standard_airbags",
             "country_of_origin_group"}
NUMBERS = {"base_price_kusd", "midrange_price_kusd", "premium_price_kusd", "epa_city_mpg",
           "epa_highway_mpg", "max_horsepower", "engine_displacement_l", "weight_lb",
           "length_in", "seating_capacity", "fuel_tank_gal", "cylinder_count"}
STRINGS = {"manual_transmission_available", "engine_type"}
KINDS = {"name 1-hop", "name 2-hop", "name 3-hop", "count", "attribute", "filter by number",
         "and", "verify", "select between", "select among", "relation", "raw identifier",
         "absent"}


@pytest.fixture(scope="module")
def kb():
    return load_rdf(FOLDER / "kb.nt")


def test_the_question_file_is_well_formed():
    assert len(QUESTIONS) >= 90
    for q in QUESTIONS:
        assert set(q) <= {"question", "answers", "kind", "half", "program"}
        assert q["kind"] in KINDS and q["question"].strip() and q["half"] in ("tune", "report")
        assert all(isinstance(a, str) for a in q["answers"])
        assert q["answers"] == sorted(set(q["answers"])) and len(q["answers"]) <= 15
    seen = alternating_halves(QUESTIONS)
    assert set(seen) == KINDS and all(n >= 5 for n in seen.values())
    halves = Counter(q["half"] for q in QUESTIONS)
    assert abs(halves["tune"] - halves["report"]) <= len(KINDS)
    absent = [q for q in QUESTIONS if q["kind"] == "absent"]
    assert len(absent) >= 8 and all(q["answers"] == [] and "program" not in q for q in absent)
    assert all(q["answers"] and "program" in q for q in QUESTIONS if q["kind"] != "absent")
    assert {a for q in QUESTIONS if q["kind"] == "verify" for a in q["answers"]} == {"yes", "no"}
    assert len({q["question"] for q in QUESTIONS}) == len(QUESTIONS)


def test_at_least_half_the_questions_avoid_the_schemas_words():
    words = ("manufactured", "manufacturer", "vehicle class", "class", "size class",
             "drive layout", "layout", "drivetrain", "standard airbags", "airbag",
             "configuration", "country of origin", "origin", "price", "kusd", "base", "midrange",
             "premium", "epa", "city", "highway", "mpg", "horsepower", "engine", "displacement",
             "weight", "length", "seating", "capacity", "fuel tank", "tank", "gal", "cylinder",
             "count", "manual transmission", "manual", "transmission", "available", "type",
             "rotary", "car model", "model", "small", "midsize", "compact", "large", "sporty",
             "van", "front", "rear", "4wd", "usa", "non-usa", "driver", "passenger", "none")

    def says_one(text: str) -> bool:
        return any(re.search(rf"(?<![\w-]){re.escape(w)}s?(?![\w-])", text.lower())
                   for w in words)
    assert sum(not says_one(q["question"]) for q in QUESTIONS) * 2 >= len(QUESTIONS)


def test_the_kb_loads_as_a_plain_dump(kb):
    stats = kb.stats()
    assert stats["concepts"] == len(CONCEPTS)
    assert stats["entities"] == 93 + 32 + 6 + 3 + 3 + 2
    assert stats["relations"] == len(RELATIONS)
    assert stats["attribute keys"] == len(NUMBERS | STRINGS)
    assert sorted(kb.concept_names()) == sorted(CONCEPTS)  # named by their local names
    assert kb.relation_names == RELATIONS
    assert set(kb.attr_index) == NUMBERS | STRINGS
    assert {k: kb.key_type[k] for k in NUMBERS} == dict.fromkeys(NUMBERS, "quantity")
    assert {k: kb.key_type[k] for k in STRINGS} == dict.fromkeys(STRINGS, "string")
    # labels are the raw identifiers; the table's spelling and case are kept
    for name in ("Acura_Integra", "Chevrolet_Lumina_APV", "Mazda_RX-7", "Chrylser", "Chrysler",
                 "Driver_&_Passenger", "None", "non-USA", "4WD"):
        assert len(kb.name_to_nodes[name]) == 1, name
    integra = kb.name_to_nodes["Acura_Integra"][0]
    assert kb.ids[integra] == "http://example.org/cars1993#Acura_Integra"
    assert ("manufactured_by", "forward") in {(r[1], r[2]) for r in kb.relations[integra]}
    # the RX-7's rotary engine: no cylinder count, the only engine_type fact
    rx7 = kb.name_to_nodes["Mazda_RX-7"][0]
    assert rx7 not in kb.attr_index["cylinder_count"]
    assert list(kb.attr_index["engine_type"]) == [rx7]
    assert len(kb.attr_index["cylinder_count"]) == 92


@pytest.mark.parametrize("question", [pytest.param(q, id=q["question"][:60])
                                      for q in [*QUESTIONS, *MORE, *FOURTH] if "program" in q])
def test_programs_give_the_gold_answers(kb, question):
    answer = execute(parse(question["program"]).program, kb)
    got = gold_form(answer.value)
    assert got == question["answers"]


def test_the_second_tune_set_is_well_formed():
    second_tune_set_is_well_formed(MORE, QUESTIONS, KINDS)
    second_tune_set_is_well_formed(FOURTH, [*QUESTIONS, *MORE], KINDS, absent=6)
