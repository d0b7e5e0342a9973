"""The BYOKG front end on the official KoPL example KBs (tests/fixtures/kopl), with the embedded
LM rescoring the search's best programs (`rerank`) and no response cache: attributes, relations either
way, a yes/no question, counts and a comparison of two named players
(tests/fixtures/kopl/example_questions.jsonl; answers read off the KB files by hand)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from koplc.frontends import open_frontend
from koplc.kopl.frontend import Settings
from koplc.kopl.kb.cache import load_kb

KOPL = Path(__file__).resolve().parent / "fixtures" / "kopl"
QUESTIONS = [json.loads(line) for line in (KOPL / "example_questions.jsonl").open()]

pytestmark = [pytest.mark.model, pytest.mark.usefixtures("private_caches")]


@pytest.fixture(scope="module")
def frontend():
    return open_frontend("byokg", Settings(reuse=False, response_cache="off", rerank=True))


@pytest.mark.parametrize("case", QUESTIONS, ids=[q["question"] for q in QUESTIONS])
def test_byokg_answers_the_example_kb_questions(frontend, case):
    compiled = frontend.compile(case["question"], load_kb(KOPL / case["kb"]))
    answers = compiled.answers or ()
    if len(case["answers"]) > 1:
        assert sorted(answers) == sorted(case["answers"]), compiled.to_json()
    else:
        assert answers[:1] == tuple(case["answers"]), compiled.to_json()
    # The LM rescored the finished programs: the model generated scores for this question.
    assert "rerank" in compiled.seconds or len(compiled.provenance.notes["candidates"]) == 1
