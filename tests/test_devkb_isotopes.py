"""The nuclide development KB (tests/fixtures/devkbs/isotopes): its file format, and its
questions' gold programs, run by koplc, giving the answers its builder computed in plain Python
over mendeleev's data."""

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
from koplc.kopl.execution.executor import DEFAULT, ExecOptions, execute
from koplc.kopl.kb.kopl_json import load_kopl_json
from koplc.kopl.syntax.nested import parse

FOLDER = FIXTURES / "devkbs" / "isotopes"
QUESTIONS = read_jsonl(FOLDER / "questions.jsonl")
MORE = read_jsonl(FOLDER / "more_questions.jsonl")  # the second tune set (more.py)
FOURTH = read_jsonl(FOLDER / "fourth_questions.jsonl")  # the fourth (fourth.py)
KINDS = {"name 1-hop", "name 2-hop", "count", "attribute", "filter by number", "and", "verify",
         "select between", "select among", "qfilter", "query attribute qualifier",
         "query relation qualifier", "query attribute under condition", "raw identifier",
         "absent"}
# The op each qualifier kind must use in some gold program (the KB has years but no dates, so
# no QFilterDate).
QUALIFIER_OPS = {"qfilter": ("QFilterNum", "QFilterStr", "QFilterYear"),
                 "query attribute qualifier": ("QueryAttrQualifier",),
                 "query relation qualifier": ("QueryRelationQualifier",),
                 "query attribute under condition": ("QueryAttrUnderCondition",)}
CONVERTING = ExecOptions(unit_conversion=True)

# Where koplc's answer differs from the plain-Python gold because koplc is wrong.
# Known koplc failures on these questions: question -> reason (a strict xfail each).
KNOWN_BUGS: dict[str, str] = {}


@pytest.fixture(scope="module")
def kb():
    return load_kopl_json(FOLDER / "kb.json")


def test_the_question_file_is_well_formed():
    assert len(QUESTIONS) >= 64
    for q in QUESTIONS:
        assert set(q) <= {"question", "answers", "kind", "half", "program", "unit_conversion"}
        assert q["question"].strip() and q["kind"] in KINDS and q["half"] in ("tune", "report")
        assert q["answers"] == sorted(set(q["answers"]))
        assert all(isinstance(a, str) for a in q["answers"])
    assert {q["kind"] for q in QUESTIONS} == KINDS
    seen = alternating_halves(QUESTIONS)
    assert all(n >= 2 for n in seen.values())
    absent = [q for q in QUESTIONS if q["kind"] == "absent"]
    assert len(absent) >= 5 and all(q["answers"] == [] for q in absent)
    assert all(q["answers"] for q in QUESTIONS if q["kind"] != "absent")
    verdicts = {a for q in QUESTIONS if q["kind"] == "verify" for a in q["answers"]}
    assert verdicts == {"yes", "no"}


@pytest.mark.parametrize("kind", sorted(QUALIFIER_OPS))
def test_each_qualifier_op_has_questions(kind):
    programs = [q["program"] for q in QUESTIONS if q["kind"] == kind]
    for op in QUALIFIER_OPS[kind]:
        assert any(re.search(rf"\b{op}\(", p) for p in programs), op


def test_the_kb_has_qualified_facts_both_ways(kb):
    stats = kb.stats()
    assert stats["entities"] > 800 and stats["qualifier values"] > 5000
    assert {"mass number", "atomic mass", "half-life", "spin", "natural abundance",
            "year of discovery", "branching ratio"} <= set(kb.attr_index)
    assert kb.key_type["natural abundance"] == "quantity"
    assert kb.key_type["year of discovery"] == "date"  # the engine's word for any time
    assert kb.key_type["parity"] == kb.key_type["decay mode"] == "string"
    carbon_14 = kb.name_to_nodes["carbon-14"][0]
    relations = {(r[1], r[2]) for r in kb.relations[carbon_14]}
    assert {("isotope of", "forward"), ("has isotope", "backward"),
            ("decays by", "forward")} <= relations


def _program_case(q: dict):
    marks = ()
    if q["question"] in KNOWN_BUGS:
        marks = (pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[q["question"]]),)
    return pytest.param(q, marks=marks, id=q["question"][:60])


@pytest.mark.parametrize("question", [_program_case(q) for q in [*QUESTIONS, *MORE, *FOURTH]
                                      if "program" in q])
def test_programs_give_the_gold_answers(kb, question):
    options = CONVERTING if question.get("unit_conversion") else DEFAULT
    answer = execute(parse(question["program"]).program, kb, options)
    got = gold_form(answer.value)
    assert got == question["answers"]


def test_the_known_bugs_are_questions():
    assert set(KNOWN_BUGS) <= {q["question"] for q in QUESTIONS}


def test_the_second_tune_set_is_well_formed():
    second_tune_set_is_well_formed(MORE, QUESTIONS, KINDS, frozenset({"unit_conversion"}))
    second_tune_set_is_well_formed(FOURTH, [*QUESTIONS, *MORE], KINDS,
                                   frozenset({"unit_conversion"}), absent=6)
    assert all(q.get("unit_conversion", True) is True for q in MORE)
