"""The whole front end on the embedded model (Gemma 3 270M via llama.cpp), the shipped
MetaQA KB and the shipped pool: a handful of real generations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from koplc import api, cli
from koplc.kopl.syntax import steps as steps_syntax
from koplc.llm.lm.embedded import LlamaCppLM
from koplc.llm.symkgqa.demos import steps_of
from koplc.llm.symkgqa.pipeline import CompileOptions

pytestmark = pytest.mark.model

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "question.txt"


@pytest.fixture(scope="module")
def compiler():
    return api.compiler(lm=LlamaCppLM())


@pytest.fixture(autouse=True)
def fresh_responses(tmp_path, monkeypatch):
    """The CLI's LM answers from a response cache of its own, never a user's earlier run."""
    monkeypatch.setenv("KOPLC_RESPONSE_CACHE", str(tmp_path / "responses.sqlite"))


def test_one_hop_question_without_brackets(compiler):
    result = compiler.compile("what movies did Temuera Morrison act in",
                              CompileOptions(reuse=False))
    best = result.best
    assert best is not None, result.to_json()
    assert "Relate(starred_actors, backward)" in best.grounded
    assert {"Once Were Warriors", "River Queen"} <= set(result.answer)
    assert result.seconds["generation"] > 0
    stages = result.to_json()["attempts"][0]
    assert {"raw", "program", "grounded", "changes", "answer"} <= set(stages)


def test_grammar_constrained_program_parses(compiler):
    options = CompileOptions(grammar="always", demos="fixed", n_demos=3, rerank=False)
    result = compiler.compile("who directed Heat", options)
    attempt = result.attempts[0]
    assert attempt.failed not in ("parse", "type"), attempt.error
    assert attempt.program is not None
    assert steps_syntax.parse(steps_of(attempt.raw)).program is not None


def test_cli_compile_prints_program_sparql_and_answer(capsys):
    assert cli.main(["compile", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert "program:\nStep 1: Find(Tom Hanks)" in out
    assert "SPARQL:" in out and "SELECT" in out
    assert "Relate(starred_actors, backward)" in out
    assert "answer:" in out and "Forrest Gump" in out


def test_cli_jsonl_and_no_link(tmp_path, capsys):
    questions = tmp_path / "q.txt"
    questions.write_text("what movies did Temuera Morrison act in\nhow do i reset my password\n")
    assert cli.main(["compile", str(questions), "--emit", "answer"]) == cli.EXIT_USER_ERROR
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[0]["ok"] and "Once Were Warriors" in lines[0]["answer"]
    assert not lines[1]["ok"] and "the question names no entity or concept of the KB" in lines[1]["error"]
    single = tmp_path / "one.txt"
    single.write_text("how do i reset my password\n")
    assert cli.main(["compile", str(single)]) == cli.EXIT_USER_ERROR
    assert "the question names no entity or concept of the KB" in capsys.readouterr().err


def test_cli_eval_writes_predictions_and_a_breakdown(tmp_path, capsys):
    """With no --data: MetaQA's verified dev questions shipped in the package."""
    out = tmp_path / "report"
    assert cli.main(["eval", "--hops", "1", "--limit", "2", "--out", str(out)]) == 0
    assert "| 1-hop | 2 |" in capsys.readouterr().out
    summary = json.loads((out / "report.json").read_text())["kinds"]
    rows = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert len(rows) == 2 and summary["1-hop"]["n"] == 2
    assert {"question", "hits1", "f1", "failure", "program", "seconds"} <= set(rows[0])
    assert summary["1-hop"]["hits@1"] == 100 * sum(r["hits1"] for r in rows) / 2
    # Two questions spread over the file: two question types, not the file's first two.
    assert rows[0]["qtype"] != rows[1]["qtype"]
