"""The agent front end on MetaQA's verified dev questions, through the front-end registry and
`koplc eval`'s machinery (koplc.evaluation.evaluate, koplc.evaluation.report): Hits@1, F1 and seconds per hop from its report,
plus what the report does not hold for an agent: rounds per question, and for each wrong
answer the turn and tool where the dialog left the gold program.

    .venv/bin/python benchmarks/agent_eval.py -k 1 --limit 100 --out build/agent_eval/greedy
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter
from pathlib import Path

from koplc.evaluation.evaluate import evaluate_questions, read_gold_questions, report_of
from koplc.evaluation.report import write_report
from koplc.frontends import open_frontend
from koplc.kopl.datasets.metaqa import KB_SCHEMA
from koplc.kopl.frontend import Settings
from koplc.kopl.kb.cache import load_kb
from koplc.kopl.syntax import steps as steps_syntax
from koplc.llm.agent.dialog import parse_action
from koplc.llm.agent.frontend import AgentSettings
from koplc.llm.agent.loop import AgentOptions
from koplc.llm.lm.defaults import default_dev_folder, default_kb_path
from koplc.llm.symkgqa.demos import calls_of


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", type=int, default=1, help="candidates a round (1: greedy)")
    parser.add_argument("--limit", type=int, default=100, help="questions per hop")
    parser.add_argument("--hops", default="1,2,3")
    parser.add_argument("--out", required=True)
    parser.add_argument("--response-cache", default="off")
    parser.add_argument("--budget", type=float, default=float("inf"),
                        help="seconds: stop after the question that passes them")
    args = parser.parse_args()
    files = [default_dev_folder() / f"qa_{h}hop_dev.tsv" for h in args.hops.split(",")]
    settings = AgentSettings(AgentOptions(k=args.k))
    frontend = open_frontend("agent", Settings(response_cache=args.response_cache,
                                               options=settings))
    gold = read_gold_questions(files, None, args.limit)
    kb = load_kb(default_kb_path(), schema=KB_SCHEMA)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    records, stop_at = [], time.monotonic() + args.budget
    with (out / "records.jsonl").open("w", encoding="utf-8") as sink:
        # One record a line as it comes: a run cut short by --budget keeps what it did.
        for record in evaluate_questions(gold, frontend, kb, progress=True):
            records.append(record)
            sink.write(json.dumps(record, ensure_ascii=False) + "\n")
            sink.flush()
            if time.monotonic() > stop_at:
                break
    report = report_of(frontend, records, files)
    write_report(out, report, records)
    summary = agent_summary(records, gold[:len(records)], report)
    (out / "agent.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    (out / "agent.md").write_text(markdown(summary, args.k), encoding="utf-8")
    print(markdown(summary, args.k))


def agent_summary(records: list[dict], gold: list, report: dict) -> dict:
    """Per kind: Hits@1, F1, rounds and seconds per question, where wrong answers went wrong."""
    by_kind: dict[str, dict] = {}
    for record, question in zip(records, gold, strict=True):
        kind = by_kind.setdefault(record["kind"], {"n": 0, "hits1": 0, "f1": 0.0, "rounds": [],
                                                   "seconds": [], "where": Counter()})
        kind["n"] += 1
        kind["hits1"] += record["hits1"]
        kind["f1"] += record["f1"]
        actions = [line[len("Action: "):] for line in (record["raw"] or "").splitlines()
                   if line.startswith("Action: ")]
        kind["rounds"].append(len(actions))
        kind["seconds"].append(record["seconds"]["total"])
        if not record["hits1"]:
            kind["where"][where_wrong(actions, question)] += 1
    return {name: {"questions": k["n"], "hits1": round(100 * k["hits1"] / k["n"], 1),
                   "f1": round(100 * k["f1"] / k["n"], 1),
                   "rounds": round(statistics.mean(k["rounds"]), 2),
                   "seconds": round(statistics.mean(k["seconds"]), 2),
                   "seconds_median": round(statistics.median(k["seconds"]), 2),
                   "wrong": dict(k["where"].most_common())}
            for name, k in sorted(by_kind.items())}


def where_wrong(actions: list[str], question) -> str:
    """'turn N: tool' of the first KoPL step not in the gold program (or what is missing)."""
    gold = [] if question.program is None else \
        calls_of(steps_syntax.print_program(question.program)).splitlines()
    steps = []
    for turn, text in enumerate(actions, 1):
        action = parse_action(text)
        if action is None or not action.is_step:
            continue
        steps.append(action.text)
        if len(steps) > len(gold) or _norm(steps[-1]) != _norm(gold[len(steps) - 1]):
            return f"turn {turn}: {action.tool}"
    if len(steps) < len(gold):
        return f"stopped after turn {len(actions)} before {gold[len(steps)].split('(')[0]}"
    return "right program, other answers"


def _norm(step: str) -> str:
    return step.replace('"', "").replace("'", "").replace(" ", "").lower()


def markdown(summary: dict, k: int) -> str:
    lines = [f"agent, k = {k}\n", "| kind | n | Hits@1 | F1 | rounds/q | s/q (mean, median) | "
             "where wrong answers went wrong |", "|---|---|---|---|---|---|---|"]
    for name, s in summary.items():
        wrong = "; ".join(f"{w} ×{n}" for w, n in s["wrong"].items()) or "-"
        lines.append(f"| {name} | {s['questions']} | {s['hits1']} | {s['f1']} | {s['rounds']} | "
                     f"{s['seconds']}, {s['seconds_median']} | {wrong} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
