"""Paraphrases the few-shot front end used to get wrong, on the shipped MetaQA KB with the
embedded model (greedy generation, the KB's joined pool): an added hop, and a name followed
by punctuation that grounding traded for a tag."""

from __future__ import annotations

import pytest

from koplc import api
from koplc.kopl.syntax import steps as steps_syntax


@pytest.fixture(scope="module")
def frontend():
    return api.open_frontend("llm", response_cache="off")


@pytest.fixture(scope="module")
def kb():
    return api.load_kb(api.default_kb_path())


@pytest.mark.parametrize(("question", "program", "answer"), [
    ("Which actors appear in Heat?", "Relate(starred_actors, forward)\nStep 3: QueryName",
     "Al Pacino"),
    ("List the movies featuring Francis Lederer.",
     "Find(Francis Lederer)\nStep 2: Relate(starred_actors, backward)", "Midnight"),
])
def test_paraphrase(frontend, kb, question, program, answer):
    compiled = frontend.compile(question, kb)
    text = steps_syntax.print_program(compiled.final)
    assert program in text, compiled.to_json()
    assert answer in compiled.answers
