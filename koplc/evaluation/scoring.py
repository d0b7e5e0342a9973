"""Scoring a front end's Compiled results against gold questions, and their summary.

Hits@1: the front end's top-ranked answer (the topic left out, as MetaQA scores) is a gold
answer; each front end says how it ranks (`FrontEnd.ranking`). Hits@1 (set), BYOKG's rule for a
front end that answers with a set: every answer of the set is at rank 1, so a question counts
when any answer, less the topic, is a gold answer. F1: the answer set, less the topic, against
the gold set. A question failed at the stage its Compiled names, else at "wrong
answer" when its answer set is not exactly the gold set.

A question whose gold answer set is empty asks for something the KB lacks: it is right (1 on
every measure) when the front end answers nothing, whether it says so by a failure or by an
empty answer, and wrong ("answered the absent") when it answers anything.
"""

from __future__ import annotations

import statistics
from collections import Counter

from koplc.evaluation.question_files import GoldQuestion
from koplc.kopl.datasets.metaqa import f1
from koplc.kopl.frontend import Compiled
from koplc.kopl.ir import Node

WRONG_ANSWER = "wrong answer"
ANSWERED_ABSENT = "answered the absent"


def score(compiled: Compiled, gold: GoldQuestion, seconds: float,
          program: str | None = None) -> dict:
    """One question's record: scores, the failing stage, what was wrong with the program,
    provenance and seconds per stage (`seconds`: the whole question). `program`: the text of
    the program that ran, as the report shows it."""
    predicted = compiled.predicted(gold.topic)
    failure = compiled.failure or (None if predicted == gold.answers else WRONG_ANSWER)
    hits1, hits1_set = compiled.top(gold.topic) in gold.answers, bool(predicted & gold.answers)
    quality = f1(predicted, gold.answers)
    if not gold.answers:  # about what the KB lacks: saying nothing is the right answer
        hits1 = hits1_set = not predicted
        quality = float(hits1)
        failure = None if hits1 else ANSWERED_ABSENT
    wrong = None
    if failure and gold.program is not None:
        wrong = wrong_program(compiled.final, gold.program)
    return {"question": gold.text, "kind": gold.kind, "qtype": gold.qtype,
            "hits1": int(hits1), "hits1_set": int(hits1_set),
            "f1": quality, "failure": failure, "error": compiled.error,
            "wrong_program": wrong, "answered_by": compiled.provenance.stage,
            "demos": list(compiled.provenance.demos), "repair": compiled.provenance.repair,
            "program": program, "raw": compiled.raw, "answer": sorted(predicted)[:50],
            "seconds": {**compiled.seconds, "total": seconds}}


def wrong_program(program: Node | None, gold: Node) -> str:
    """What sets a program apart from the gold one, by their relation chains: no program, a
    hop dropped or added, hops reordered, a wrong relation or direction, a wrong entity,
    another structure, or none (the right program, other answers).

    >>> from koplc.kopl.datasets.metaqa import gold_program
    >>> wrong_program(gold_program("Heat", "movie_to_director"),
    ...               gold_program("Heat", "movie_to_director_to_movie"))
    'hop dropped'
    """
    if program is None:
        return "no program"
    if program == gold:
        return "right program, other answers"
    (path, ops), (gold_path, gold_ops) = _chain(program), _chain(gold)
    if len(path) != len(gold_path):
        return "hop dropped" if len(path) < len(gold_path) else "hop added"
    relations, gold_relations = [r for r, _ in path], [r for r, _ in gold_path]
    if relations != gold_relations:
        return "hops reordered" if sorted(relations) == sorted(gold_relations) else \
            "wrong relation"
    if path != gold_path:
        return "wrong direction"
    return "wrong entity" if ops == gold_ops else "other structure"


def _chain(node: Node) -> tuple[list[tuple], list[str]]:
    """The (relation, direction) of each Relate from the leaf up, and the ops from the root
    down, following single inputs."""
    path, ops = [], []
    while node is not None:
        ops.append(node.op)
        if node.op == "Relate":
            path.append((node.relation, node.direction))
        children = node.children
        node = children[0] if len(children) == 1 else None
    return path[::-1], ops


def summarize(records: list[dict]) -> dict:
    """Overall and per kind (in order of first appearance): count, Hits@1 (top-ranked and set
    rule) and F1 in percent, failures by stage, wrong programs, the stages that answered, seconds per stage."""
    kinds = list(dict.fromkeys(r["kind"] for r in records))
    return {"overall": _block(records),
            "kinds": {k: _block([r for r in records if r["kind"] == k]) for k in kinds}}


def _block(rows: list[dict]) -> dict:
    n = len(rows)
    return {
        "n": n,
        "hits@1": round(100 * sum(r["hits1"] for r in rows) / n, 1) if n else 0.0,
        "hits@1 (set)": round(100 * sum(r["hits1_set"] for r in rows) / n, 1) if n else 0.0,
        "f1": round(100 * sum(r["f1"] for r in rows) / n, 1) if n else 0.0,
        "failures": dict(Counter(r["failure"] for r in rows if r["failure"])),
        "wrong_programs": dict(Counter(r["wrong_program"] for r in rows if r["wrong_program"])),
        "answered_by": dict(Counter(r["answered_by"] or "none" for r in rows)),
        "seconds": timing(rows),
    }


def timing(rows: list[dict]) -> dict:
    """Median and p95 seconds of each stage (in order of first appearance, "total" last)."""
    stages = list(dict.fromkeys(s for r in rows for s in r["seconds"] if s != "total"))
    out = {}
    for stage in [*stages, "total"]:
        values = [r["seconds"].get(stage, 0.0) for r in rows if r["seconds"]]
        if values:
            out[stage] = percentiles(values)
    return out


def percentiles(values: list[float]) -> dict:
    """Median and p95 of `values` (not empty), to the millisecond.

    >>> percentiles([1.0, 2.0, 3.0])
    {'median': 2.0, 'p95': 3.0}
    """
    values = sorted(values)
    return {"median": round(statistics.median(values), 3),
            "p95": round(values[min(len(values) - 1, int(0.95 * len(values)))], 3)}
