"""`koplc eval` goes on past a question whose compiling raises (llama.cpp failing on its prompt,
a bug): that question is a failure record at stage "error" with the exception, the others are
scored; a front end that cannot work at all still stops the run with its error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from koplc import api
from koplc.evaluation.evaluate import ERROR, evaluate_questions, read_gold_questions
from koplc.kopl.errors import KoplcError, ParseError
from koplc.kopl.frontend import Compiled

EXAMPLE = Path(__file__).resolve().parent / "fixtures" / "kopl" / "example_kb.json"
QUESTIONS = [
    {"question": "How tall is LeBron James?", "answers": ["206 centimetre"], "kind": "attribute",
     "program": "QueryAttr(Find('LeBron James'), 'height')"},
    {"question": "Who is the father of LeBron James Jr.?", "answers": ["LeBron James"],
     "kind": "relation"},
    {"question": "Where was LeBron James born?", "answers": ["Akron"], "kind": "relation"},
    {"question": "What is the salary of LeBron James?", "answers": [], "kind": "absent"},
]
ANSWERS = {"How tall is LeBron James?": ("206 centimetre",),
           "Who is the father of LeBron James Jr.?": ("LeBron James",),
           "Where was LeBron James born?": ("Akron",)}


class Faulty:
    """Fault injection: a front end with fixed answers that raises `faults[question]` on
    those questions."""

    name, ranking = "faulty", "as scripted"

    def __init__(self, faults: dict[str, Exception]):
        self.faults, self.asked = faults, []

    def compile(self, question: str, kb) -> Compiled:
        self.asked.append(question)
        if question in self.faults:
            raise self.faults[question]
        found = ANSWERS.get(question, ())
        return Compiled(question, self.name, answers=found, failure=None if found else "empty")


@pytest.fixture
def question_file(tmp_path) -> Path:
    path = tmp_path / "questions.jsonl"
    path.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    return path


def decode_fails_on_the_first_question():
    try:  # raised, so that it carries a traceback as a real one does
        raise RuntimeError("llama_decode returned 1")
    except RuntimeError as err:
        return err


def test_a_question_that_raises_is_a_failure_record_and_the_run_goes_on(tmp_path,
                                                                        question_file):
    frontend = Faulty({QUESTIONS[0]["question"]: decode_fails_on_the_first_question(),
                       QUESTIONS[2]["question"]: KeyError("a bug")})
    report, paths = api.evaluate([question_file], frontend, out=tmp_path / "out",
                                 kb_path=EXAMPLE)
    assert frontend.asked == [q["question"] for q in QUESTIONS]
    assert report["questions"] == 4
    assert report["overall"]["failures"] == {ERROR: 2}
    assert report["overall"]["hits@1"] == 50.0  # the father, and the absent salary
    rows = [json.loads(line) for line in paths["predictions.jsonl"].read_text().splitlines()]
    first, _, third, _ = rows
    assert first["failure"] == ERROR and first["hits1"] == 0 and first["f1"] == 0.0
    assert first["error"].startswith("RuntimeError: llama_decode returned 1 (raised at ")
    assert first["wrong_program"] == "no program"
    assert third["error"].startswith("KeyError: 'a bug'")
    assert [r["hits1"] for r in rows] == [0, 1, 0, 1]
    assert "error" in paths["report.md"].read_text()


def test_a_question_about_nothing_that_raises_is_not_right(question_file):
    absent = QUESTIONS[3]["question"]
    [*_, record] = evaluate_questions(read_gold_questions([question_file]),
                                      Faulty({absent: ValueError("boom")}), kb=None)
    assert (record["hits1"], record["hits1_set"], record["f1"]) == (0, 0, 0.0)
    assert record["failure"] == ERROR and record["error"].startswith("ValueError: boom")


def test_koplc_errors_about_the_question_fail_only_that_question(question_file):
    faults = {QUESTIONS[0]["question"]: KoplcError("prompt of 5000 tokens leaves no room",
                                                   code="lm-context"),
              QUESTIONS[1]["question"]: ParseError("a leaked parse error")}
    records = list(evaluate_questions(read_gold_questions([question_file]), Faulty(faults),
                                      kb=None))
    assert [r["failure"] for r in records] == [ERROR, ERROR, None, None]
    assert "leaves no room" in records[0]["error"]


def test_a_front_end_that_cannot_work_still_stops_the_run(tmp_path, question_file):
    down = KoplcError("cannot reach the LM server at http://127.0.0.1:9 (/completion) after "
                      "3 tries: refused", code="lm-unreachable")
    frontend = Faulty({QUESTIONS[1]["question"]: down})
    with pytest.raises(KoplcError, match="cannot reach the LM server"):
        api.evaluate([question_file], frontend, out=tmp_path / "out", kb_path=EXAMPLE)
    assert frontend.asked == [q["question"] for q in QUESTIONS[:2]]
    assert not (tmp_path / "out" / "report.json").exists()
