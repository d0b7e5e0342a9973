"""The flights development KB (tests/fixtures/devkbs/flights, from R's nycflights13): its files
are well formed, and its questions' gold programs, run by koplc on the pipe triples under the
named schema, give the answers its builder computed in plain Python over the source rows."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from conftest import FIXTURES, gold_form, read_jsonl, second_tune_set_is_well_formed
from koplc.kopl.execution.executor import execute
from koplc.kopl.kb.cache import load_kb
from koplc.kopl.kb.triple_schema import read_schema
from koplc.kopl.syntax.nested import parse

FOLDER = FIXTURES / "devkbs" / "flights"
QUESTIONS = read_jsonl(FOLDER / "questions.jsonl")
MORE = read_jsonl(FOLDER / "more_questions.jsonl")  # the second tune set (more.py)
FOURTH = read_jsonl(FOLDER / "fourth_questions.jsonl")  # the fourth (fourth.py)
KINDS = {"name 1-hop", "name 2-hop", "name 3-hop", "count", "attribute", "filter by number",
         "and", "verify", "select between", "select among", "raw identifier", "absent"}

# Known disagreements between koplc and the gold, each a strict xfail (it must keep failing).
KNOWN: dict[str, str] = {}


@pytest.fixture(scope="module")
def kb():
    return load_kb(FOLDER / "kb.txt", cache=False, schema=read_schema(FOLDER / "schema.json"))


def test_the_files_are_well_formed():
    lines = (FOLDER / "kb.txt").read_text(encoding="utf-8").splitlines()
    assert all(len(line.split("|")) == 3 and all(line.split("|")) for line in lines)
    assert (FOLDER / "kb.txt").stat().st_size < 1_500_000
    schema = json.loads((FOLDER / "schema.json").read_text(encoding="utf-8"))
    relations = {line.split("|")[1] for line in lines}
    assert relations == set(schema["object_concepts"]) | set(schema["attributes"])
    assert len(QUESTIONS) >= 64
    for q in QUESTIONS:
        assert set(q) <= {"question", "answers", "kind", "half", "program"}, q
        assert q["kind"] in KINDS and q["half"] in ("tune", "report"), q
        assert q["answers"] == sorted(set(q["answers"])), q
        assert all(isinstance(a, str) for a in q["answers"]), q
    assert len({q["question"] for q in QUESTIONS}) == len(QUESTIONS)
    halves = Counter((q["kind"], q["half"]) for q in QUESTIONS)
    assert all(halves[kind, half] >= 1 for kind in KINDS for half in ("tune", "report"))
    absent = [q for q in QUESTIONS if q["kind"] == "absent"]
    assert len(absent) >= 5 and all(q["answers"] == [] for q in absent)
    assert all(q["answers"] for q in QUESTIONS if q["kind"] != "absent")


def test_the_schema_types_the_entities(kb):
    stats = kb.stats()
    assert stats["concepts"] == 7 and stats["attribute keys"] == 3 and stats["relations"] == 7
    assert set(kb.attr_index) == {"year_built", "seats", "engines"}
    assert {"aircraft", "airline", "manufacturer", "airport"} <= set(kb.names)


def _case(q):
    reason = KNOWN.get(q["question"])
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(q, marks=marks, id=q["question"][:60])


@pytest.mark.parametrize("question", [_case(q) for q in [*QUESTIONS, *MORE, *FOURTH]
                                      if "program" in q])
def test_programs_give_the_gold_answers(kb, question):
    answer = execute(parse(question["program"]).program, kb)
    got = gold_form(answer.value)
    assert got == question["answers"]


def test_the_second_tune_set_is_well_formed():
    second_tune_set_is_well_formed(MORE, QUESTIONS, KINDS)
    second_tune_set_is_well_formed(FOURTH, [*QUESTIONS, *MORE], KINDS, absent=6)
