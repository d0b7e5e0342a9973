"""Paraphrases the few-shot front end used to get wrong, on the shipped MetaQA KB with the
embedded model (greedy generation, the KB's joined pool): an added hop, a name followed by
punctuation that grounding traded for a tag, and "how many" questions answered with a list."""

from __future__ import annotations

import pytest

from koplc import api
from koplc.kopl.syntax import steps as steps_syntax

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def frontend():
    return api.open_frontend("llm", response_cache="off")


@pytest.fixture(scope="module")
def kb():
    return api.load_kb()  # the shipped MetaQA KB, under MetaQA's schema


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


@pytest.mark.parametrize(("question", "chain"), [
    ("How many films did Luc Besson direct?",
     "Step 1: Find(Luc Besson)\nStep 2: Relate(directed_by, backward)"),
    ("How many movies is Tom Hanks credited as an actor in?",
     "Step 1: Find(Tom Hanks)\nStep 2: Relate(starred_actors, backward)"),
])
def test_how_many_counts(frontend, kb, question, chain):
    compiled = frontend.compile(question, kb)
    assert steps_syntax.print_program(compiled.final) == f"{chain}\nStep 3: Count()\nDone"
    films = api.run(f"{chain}\nStep 3: QueryName()\nDone", kb).items()
    assert compiled.answers == (str(len(set(films))),)
