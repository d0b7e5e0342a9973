"""MetaQA evaluation of the SymKGQA pipeline: Hits@1, F1 and where failures come from."""

from __future__ import annotations

import json
import statistics
import time
from collections import Counter
from pathlib import Path

from koplc.kopl.errors import KoplcError
from koplc.kopl.metaqa import Question, read_questions
from koplc.llm.demos import template_of
from koplc.llm.pipeline import CompileOptions, Compiler

STAGES = ("link", "parse", "type", "grounding", "execution", "empty", "wrong answer")


def dev_questions(folder: str | Path, hops=(1, 2, 3), limit: int | None = None
                  ) -> list[Question]:
    """The verified dev questions of each hop (the first `limit` of each)."""
    out = []
    for hop in hops:
        questions = read_questions(Path(folder) / f"qa_{hop}hop_dev.tsv")
        out += questions[:limit] if limit else questions
    return out


def f1(predicted: set[str], gold: set[str]) -> float:
    """The F1 of two answer sets."""
    hit = len(predicted & gold)
    if not hit:
        return 0.0
    p, r = hit / len(predicted), hit / len(gold)
    return 2 * p * r / (p + r)


def evaluate_one(compiler: Compiler, q: Question, options: CompileOptions,
                 leave_template_out: bool = False) -> dict:
    """Compile one question and score it against the gold answers (topic removed)."""
    if leave_template_out:
        options = CompileOptions(**{**options.__dict__, "exclude_template": template_of(q.text)})
    clock = time.perf_counter()
    try:
        result = compiler.compile(q.text, options)
    except KoplcError as err:
        return {"question": q.text, "hops": q.hops, "qtype": q.qtype, "hits1": 0, "f1": 0.0,
                "failure": "link", "error": err.render(), "seconds": {}}
    names = result.answer
    predicted = set(names) - {q.topic}
    top = next((n for n in names if n != q.topic), None)
    hits1 = int(top in q.answers)
    failure = result.failure or (None if predicted == set(q.answers) else "wrong answer")
    seconds = {**result.seconds, "total": time.perf_counter() - clock}
    best = result.best or result.attempts[0]
    return {"question": q.text, "hops": q.hops, "qtype": q.qtype, "hits1": hits1,
            "f1": f1(predicted, set(q.answers)), "failure": failure,
            "program": best.grounded or best.program, "raw": best.raw,
            "answer": sorted(predicted)[:50], "seconds": seconds}


def summarize(records: list[dict]) -> dict:
    """Per hop: count, Hits@1, F1, failures by stage; timing percentiles per stage."""
    out = {}
    for hop in sorted({r["hops"] for r in records}):
        rows = [r for r in records if r["hops"] == hop]
        out[f"{hop}-hop"] = {
            "n": len(rows),
            "hits@1": round(100 * sum(r["hits1"] for r in rows) / len(rows), 1),
            "f1": round(100 * sum(r["f1"] for r in rows) / len(rows), 1),
            "failures": dict(Counter(r["failure"] for r in rows if r["failure"])),
            "seconds": timing(rows),
        }
    return out


def timing(rows: list[dict]) -> dict:
    """Median and p95 seconds per stage."""
    out = {}
    for stage in ("generation", "grounding", "execution", "total"):
        values = sorted(r["seconds"].get(stage, 0.0) for r in rows if r["seconds"])
        if values:
            out[stage] = {"median": round(statistics.median(values), 3),
                          "p95": round(values[min(len(values) - 1, int(0.95 * len(values)))],
                                       3)}
    return out


def write_jsonl(records: list[dict], path: str | Path) -> None:
    """Predictions, one JSON object a line."""
    with Path(path).open("w", encoding="utf-8") as out:
        for r in records:
            out.write(json.dumps(r, ensure_ascii=False) + "\n")
