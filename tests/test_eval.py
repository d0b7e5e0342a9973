"""`koplc eval`: question files, scoring, the report (JSON, Markdown, plot), and one report
format for every front end: the GNN (the tiny trained model) and the LLM (the embedded model)
on the same JSONL file."""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path

import pytest

from gnn_fixtures import KB, tiny_model
from koplc import api, cli
from koplc.evaluation.evaluate import evaluate_questions, read_gold_questions, report_of
from koplc.evaluation.question_files import read_question_file, spread
from koplc.evaluation.report import PLOT_DPI, PLOT_SIZE, write_report
from koplc.evaluation.scoring import score, summarize
from koplc.kopl.errors import KoplcError
from koplc.kopl.frontend import Compiled, FrontEnd, Provenance
from koplc.kopl.ir import Find, QueryName, Relate
from koplc.kopl.types import Direction

QUESTIONS = Path(__file__).resolve().parent / "fixtures" / "eval" / "questions.jsonl"
REPORT_FILES = {"report.json", "report.md", "report.png", "predictions.jsonl"}


def png_size(path: Path) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def shape(report: dict) -> dict:
    """The keys of a report, nested, without the values: its format."""
    if isinstance(report, dict) and report and not {"median", "p95"} <= set(report):
        return {k: shape(v) for k, v in report.items() if k not in ("failures", "answered_by",
                                                                    "wrong_programs")}
    return type(report).__name__


def table_heads(markdown: str) -> list[str]:
    """The header row of each Markdown table, with stage names left out."""
    return [line for line in markdown.splitlines() if line.startswith("| kind")
            or line.startswith("| stage")]


def test_tsv_and_jsonl_files_give_questions_with_kinds(tmp_path):
    plain = tmp_path / "qa_2hop_sample.tsv"  # MetaQA's own two columns; the hop from the name
    plain.write_text("who directed the films of [Heat]\tMichael Mann|Ridley Scott\n")
    [q] = read_question_file(plain)
    assert (q.kind, q.topic, q.answers) == ("2-hop", "Heat", {"Michael Mann", "Ridley Scott"})
    typed = tmp_path / "sample.tsv"  # index, question, answers, type: the hop from the type
    typed.write_text("7\twhat movies did [Tom Cullen] act in\tWeekend\tactor_to_movie\n")
    [q] = read_question_file(typed)
    assert q.kind == "1-hop" and q.qtype == "actor_to_movie"
    assert q.program == QueryName(input=Relate(input=Find(name="Tom Cullen"),
                                               relation="starred_actors",
                                               direction=Direction.BACKWARD))
    assert read_question_file(typed, kind="mine")[0].kind == "mine"
    questions = read_gold_questions([QUESTIONS])
    assert [q.kind for q in questions] == ["1-hop", "1-hop", "2-hop", "no topic"]
    assert questions[1].program == api.parse(
        "QueryName(Relate(Find('Outsourced'), 'directed_by', 'forward'))").program
    assert [q.text for q in spread(questions, 1)] == [questions[i].text for i in (0, 2, 3)]


def test_bad_question_files_are_clear_errors(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "who directed [Heat]", "answers": ["Michael Mann"]}\n'
                   '{"question": "who wrote [Heat]"}\n')
    with pytest.raises(KoplcError, match=r"bad.jsonl:2: .*answers"):
        read_question_file(bad)
    status = cli.main(["eval", "--frontend", "gnn", "--model", str(tmp_path), str(bad),
                       "--out", str(tmp_path / "out")])
    assert status == cli.EXIT_USER_ERROR and "bad.jsonl:2" in capsys.readouterr().err


def test_scores_rank_leave_out_the_topic_and_name_the_failing_stage():
    [q1, q2, _, q4] = read_gold_questions([QUESTIONS])
    ranked = Compiled(q1.text, "x", answers=("Temuera Morrison", "Tracker", "Heat"),
                      program=q1.program, provenance=Provenance("greedy"))
    record = score(ranked, q1, 1.5)
    assert record["hits1"] == 1 and record["f1"] == pytest.approx(0.4)
    assert record["failure"] == "wrong answer"
    assert record["wrong_program"] == "right program, other answers"
    wrong = Compiled(q2.text, "x", answers=("Heat",), grounded=q1.program)
    assert score(wrong, q2, 0.1)["wrong_program"] == "wrong relation"
    unlinked = score(Compiled(q4.text, "x", failure="link", error="no"), q4, 0.2)
    assert unlinked["failure"] == "link" and unlinked["hits1"] == 0
    summary = summarize([record, unlinked])
    assert summary["overall"]["failures"] == {"wrong answer": 1, "link": 1}
    assert summary["kinds"]["1-hop"]["hits@1"] == 100.0
    assert summary["overall"]["seconds"]["total"] == {"median": 0.85, "p95": 1.5}


def test_the_set_rule_counts_any_gold_answer_of_the_set_at_rank_1():
    q1 = read_gold_questions([QUESTIONS])[0]
    record = score(Compiled(q1.text, "x", answers=("Heat", "Tracker")), q1, 0.1)
    assert (record["hits1"], record["hits1_set"]) == (0, 1)
    summary = summarize([record])["overall"]
    assert (summary["hits@1"], summary["hits@1 (set)"]) == (0.0, 100.0)


class Scripted:
    """Fault injection: a front end with fixed answers, or one that cannot work at all."""

    name, ranking = "scripted", "as scripted"

    def __init__(self, answers: dict[str, tuple[str, ...]] | None):
        self.answers = answers

    def compile(self, question: str, kb) -> Compiled:
        if self.answers is None:
            raise KoplcError("the scripted front end is down", code="down")
        found = self.answers.get(question, ())
        return Compiled(question, self.name, answers=found, failure=None if found else "empty",
                        seconds={"thinking": 0.01})


def test_report_files_and_the_plot_size(tmp_path):
    questions = read_gold_questions([QUESTIONS])
    frontend = Scripted({questions[0].text: ("Tracker",), questions[2].text: ("Shampoo",)})
    assert isinstance(frontend, FrontEnd)
    records = list(evaluate_questions(questions, frontend, kb=None))
    report = report_of(frontend, records, [QUESTIONS])
    paths = write_report(tmp_path / "out", report, records)
    assert {p.name for p in (tmp_path / "out").iterdir()} == REPORT_FILES == set(paths)
    assert png_size(paths["report.png"]) == (PLOT_SIZE[0] * PLOT_DPI, PLOT_SIZE[1] * PLOT_DPI)
    assert json.loads(paths["report.json"].read_text()) == report
    assert report["overall"]["failures"] == {"wrong answer": 2, "empty": 2}
    text = paths["report.md"].read_text()
    assert "this front end ranks thus: as scripted" in text
    assert "| all | 4 | 50.0 |" in text and "| thinking |" in text


@pytest.mark.whole_kb
def test_a_front_end_that_cannot_work_stops_the_run(tmp_path):
    with pytest.raises(KoplcError, match="is down"):
        api.evaluate([QUESTIONS], Scripted(None), out=tmp_path, kb_path=KB)
    assert not (tmp_path / "report.json").exists()


class Garbage:
    """Fault injection: an LM whose every completion is not a program."""

    name = "garbage"

    def generate(self, prompt, n=1, *args, **kwargs):
        return ["this is not a program"] * n

    def score(self, prompt, continuation):
        return -1.0


@pytest.mark.model
def test_llm_failures_are_recorded_at_their_stage(tmp_path):
    frontend = api.open_frontend("llm", lm=Garbage(), reuse=False)
    report, _ = api.evaluate([QUESTIONS], frontend, out=tmp_path)
    assert report["overall"]["failures"] == {"parse": 3, "link": 1}
    rows = [json.loads(line) for line in (tmp_path / "predictions.jsonl").read_text().splitlines()]
    assert rows[0]["raw"] == "this is not a program" and rows[0]["wrong_program"] == "no program"


@pytest.fixture(scope="module")
def gnn_run(tmp_path_factory):
    folder, _ = tiny_model()
    out = tmp_path_factory.mktemp("gnn-eval")
    status = cli.main(["eval", "--frontend", "gnn", "--model", str(folder), "--kb", str(KB),
                       "--schema", "metaqa", str(QUESTIONS), "--out", str(out)])
    return status, out


@pytest.fixture(scope="module")
def llm_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("llm-eval")
    cache = out / "responses.sqlite"  # the model answers now, not from an earlier run
    status = cli.main(["eval", "--frontend", "llm", "--no-reuse", "--response-cache", str(cache),
                       str(QUESTIONS), "--out", str(out)])
    return status, out


@pytest.mark.train
def test_gnn_eval_on_a_jsonl_file(gnn_run, capsys):
    status, out = gnn_run
    assert status == 0 and REPORT_FILES <= {p.name for p in out.iterdir()}
    report = json.loads((out / "report.json").read_text())
    assert report["frontend"] == "gnn" and report["questions"] == 4
    assert list(report["kinds"]) == ["1-hop", "2-hop", "no topic"]
    assert report["kinds"]["no topic"]["failures"] == {"link": 1}
    assert {"retrieval", "reasoning", "total"} <= set(report["overall"]["seconds"])
    rows = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert rows[0]["program"].startswith("QueryName(Relate(Find(")
    assert png_size(out / "report.png") == (1000, 400)


@pytest.mark.model
@pytest.mark.train
def test_llm_eval_on_the_same_file_has_the_same_format(llm_run, gnn_run):
    status, out = llm_run
    assert status == 0 and REPORT_FILES <= {p.name for p in out.iterdir()}
    report = json.loads((out / "report.json").read_text())
    rows = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    linked = [r for r in rows if r["failure"] != "link"]
    assert len(linked) == 3 and all(r["seconds"]["generation"] > 0 for r in linked)
    assert all(r["program"].startswith("Step 1: ") for r in linked if r["program"])
    assert report["kinds"]["no topic"]["failures"] == {"link": 1}
    gnn = json.loads((gnn_run[1] / "report.json").read_text())
    assert shape(report)["kinds"]["1-hop"].keys() == shape(gnn)["kinds"]["1-hop"].keys()
    assert report.keys() == gnn.keys() and report["kinds"].keys() == gnn["kinds"].keys()
    heads = [table_heads((o / "report.md").read_text()) for o in (out, gnn_run[1])]
    assert heads[0] == heads[1] and len(heads[0]) == 2
    assert re.search(r"\| 1-hop \| 2 \| [\d.]+ \| [\d.]+ \|", (out / "report.md").read_text())
