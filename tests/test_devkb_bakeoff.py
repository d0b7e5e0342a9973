"""The baking-contest development KB (tests/fixtures/devkbs/bakeoff): its file format, and its
questions' gold programs, run by koplc, giving the answers its builder computed in plain Python
over R's bakeoff tables."""

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
from koplc.kopl.kb.kopl_json import load_kopl_json
from koplc.kopl.syntax.nested import parse

FOLDER = FIXTURES / "devkbs" / "bakeoff"
QUESTIONS = read_jsonl(FOLDER / "questions.jsonl")
MORE = read_jsonl(FOLDER / "more_questions.jsonl")  # the second tune set (more.py)
FOURTH = read_jsonl(FOLDER / "fourth_questions.jsonl")  # the fourth (fourth.py)
QUALIFIER_OPS = {"qfilter": ("QFilterNum",),
                 "query attribute qualifier": ("QueryAttrQualifier",),
                 "query relation qualifier": ("QueryRelationQualifier",),
                 "query attribute under condition": ("QueryAttrUnderCondition",)}


@pytest.fixture(scope="module")
def kb():
    return load_kopl_json(FOLDER / "kb.json")


def test_the_question_file_is_well_formed():
    assert len(QUESTIONS) >= 60
    for q in QUESTIONS:
        assert set(q) <= {"question", "answers", "kind", "half", "program"}
        assert q["question"].strip() and q["half"] in ("tune", "report")
        assert q["answers"] == sorted(set(q["answers"]))
    seen = alternating_halves(QUESTIONS)
    assert all(n >= 4 for n in seen.values())
    absent = [q for q in QUESTIONS if q["kind"] == "absent"]
    assert len(absent) >= 5 and all(q["answers"] == [] and "program" not in q for q in absent)
    assert all(q["answers"] for q in QUESTIONS if q["kind"] != "absent")
    assert {a for q in QUESTIONS if q["kind"] == "verify" for a in q["answers"]} == {"yes", "no"}


@pytest.mark.parametrize("kind", sorted(QUALIFIER_OPS))
def test_each_qualifier_op_has_questions(kind):
    programs = [q["program"] for q in QUESTIONS if q["kind"] == kind]
    for op in QUALIFIER_OPS[kind]:
        assert any(re.search(rf"\b{op}\(", p) for p in programs), op


def test_the_kb_holds_qualified_facts_both_ways(kb):
    stats = kb.stats()
    assert stats["entities"] == 133 and stats["qualifier values"] > 1000
    assert kb.key_type["premiere date"] == "date" and kb.key_type["occupation"] == "string"
    assert kb.key_type["viewers"] == "quantity"
    edd = kb.name_to_nodes["Edd Kimber"][0]
    assert {("won", "forward"), ("competed in", "forward")} <= {
        (r[1], r[2]) for r in kb.relations[edd]}


@pytest.mark.parametrize("question", [pytest.param(q, id=q["question"][:60])
                                      for q in [*QUESTIONS, *MORE, *FOURTH] if "program" in q])
def test_programs_give_the_gold_answers(kb, question):
    answer = execute(parse(question["program"]).program, kb)
    got = gold_form(answer.value)
    assert got == question["answers"]


def test_the_second_tune_set_is_well_formed():
    second_tune_set_is_well_formed(MORE, QUESTIONS, {q["kind"] for q in QUESTIONS})
    second_tune_set_is_well_formed(FOURTH, [*QUESTIONS, *MORE], {q["kind"] for q in QUESTIONS},
                                   absent=6)
