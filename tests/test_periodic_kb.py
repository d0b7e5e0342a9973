"""The periodic-table KB (tests/fixtures/periodic): its questions' programs, run by koplc, give
the answers its builder computed in plain Python over mendeleev's data."""

from __future__ import annotations

from collections import Counter

import pytest

from conftest import FIXTURES, gold_form, read_jsonl
from koplc.kopl.execution.executor import execute
from koplc.kopl.kb.cache import load_kb
from koplc.kopl.syntax.nested import parse

FOLDER = FIXTURES / "periodic"
QUESTIONS = read_jsonl(FOLDER / "questions.jsonl")


@pytest.fixture(scope="module")
def kb():
    return load_kb(FOLDER / "periodic_kb.json")


def test_the_set_is_large_and_varied(kb):
    assert len(QUESTIONS) >= 60
    assert len(Counter(q["kind"] for q in QUESTIONS)) >= 12
    stats = kb.stats()
    assert stats["entities"] > 118 and stats["attribute keys"] >= 10
    assert {"melting point", "density", "atomic weight"} <= set(kb.attr_index)


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q["question"][:60])
def test_programs_give_the_gold_answers(kb, question):
    answer = execute(parse(question["program"]).program, kb)
    got = gold_form(answer.value)
    assert got == question["answers"]
