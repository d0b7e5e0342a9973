"""MetaQA evaluation of the SymKGQA pipeline: Hits@1, F1 and where failures come from."""

from __future__ import annotations

import json
import statistics
import time
from collections import Counter
from pathlib import Path

from koplc.kopl.errors import KoplcError
from koplc.kopl.metaqa import Question, f1, read_questions
from koplc.llm.demos import template_of
from koplc.llm.pipeline import CompileOptions, Compiler

STAGES = ("link", "parse", "type", "grounding", "execution", "empty", "wrong answer")


def dev_questions(folder: str | Path, hops=(1, 2, 3), limit: int | None = None
                  ) -> list[Question]:
    """The verified dev questions of each hop; with `limit`, that many of each hop spread evenly
    over the file (the files are sorted by question type, so the first N would be one type)."""
    out = []
    for hop in hops:
        questions = read_questions(Path(folder) / f"qa_{hop}hop_dev.tsv")
        if limit and limit < len(questions):
            questions = [questions[i * len(questions) // limit] for i in range(limit)]
        out += questions
    return out


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
    program = best.grounded or best.program
    return {"question": q.text, "hops": q.hops, "qtype": q.qtype, "hits1": hits1,
            "f1": f1(predicted, set(q.answers)), "failure": failure,
            "error": error_kind(program, q) if failure else None,
            "program": program, "raw": best.raw, "source": best.source,
            "answer": sorted(predicted)[:50], "demos": result.demos, "seconds": seconds}


def error_kind(program: str | None, q: Question) -> str:
    """Why a program is wrong, against the gold relation path of its question type: no program,
    a hop dropped or added, a wrong relation, a wrong direction, or another structure.

    >>> q = Question(None, "what does [Tom Cullen] act in", "Tom Cullen",
    ...              frozenset({"Weekend"}), "actor_to_movie")
    >>> error_kind("Step 1: Find(Tom Cullen)\\nStep 2: Relate(starred_actors, forward)\\n"
    ...            "Step 3: QueryName()\\nDone", q)
    'wrong direction'
    """
    if not program:
        return "no program"
    from koplc.kopl import steps_syntax
    from koplc.kopl.metaqa import hops_of

    try:
        node = steps_syntax.parse(program).program
    except KoplcError:
        return "no program"
    path, ops = [], []
    while node is not None:
        ops.append(node.op)
        if node.op == "Relate":
            path.append((node.relation, node.direction))
        children = node.children
        node = children[0] if len(children) == 1 else None
    gold = list(hops_of(q.qtype))
    path.reverse()
    if len(path) < len(gold):
        return "hop dropped"
    if len(path) > len(gold):
        return "hop added"
    if [r for r, _ in path] != [r for r, _ in gold]:
        if sorted(r for r, _ in path) == sorted(r for r, _ in gold):
            return "hops reordered"
        return "wrong relation"
    if path != gold:
        return "wrong direction"
    if ops[0] != "QueryName" or ops[-1] != "Find":
        return "other structure"
    return "right program, other answers"


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
            "errors": dict(Counter(r["error"] for r in rows if r.get("error"))),
            "sources": dict(Counter(r.get("source", "none") for r in rows)),
            "seconds": timing(rows),
            **prompt_reuse(records, hop),
        }
    return out


def prompt_reuse(records: list[dict], hop: int) -> dict:
    """Timings split by whether an earlier question of the run had the same demonstrations:
    then llama.cpp holds that prompt's KV cache and reads only the question line."""
    seen, new, again = set(), [], []
    for r in records:
        key = tuple(r.get("demos") or ())
        if r["hops"] == hop and key and r.get("source") != "reuse":
            (again if key in seen else new).append(r)
        seen.add(key)
    return {"seconds_new_prompt": timing(new), "n_new_prompt": len(new),
            "seconds_seen_prompt": timing(again), "n_seen_prompt": len(again)}


def timing(rows: list[dict]) -> dict:
    """Median and p95 seconds per stage."""
    out = {}
    for stage in ("generation", "grounding", "execution", "total"):
        values = [r["seconds"].get(stage, 0.0) for r in rows if r["seconds"]]
        if values:
            out[stage] = percentiles(values)
    return out


def percentiles(values: list[float]) -> dict:
    """Median and p95 of `values` (not empty), to the millisecond."""
    values = sorted(values)
    return {"median": round(statistics.median(values), 3),
            "p95": round(values[min(len(values) - 1, int(0.95 * len(values)))], 3)}


def write_jsonl(records: list[dict], path: str | Path) -> None:
    """Predictions, one JSON object a line (written atomically)."""
    from koplc.kopl.atomic import atomic_file

    with atomic_file(path) as out:
        for r in records:
            out.write(json.dumps(r, ensure_ascii=False) + "\n")
