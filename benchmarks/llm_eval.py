"""Evaluate the SymKGQA front end on MetaQA dev and the user-phrased questions.

    .venv/bin/python benchmarks/llm_eval.py --limit 20 --configs full,lto,lto-no-grammar \
        --out build/llm_eval

Configs: full (pool includes the question's template), lto (leave-template-out), and LTO
ablations: lto-no-grammar, lto-no-quack, lto-no-rerank, lto-no-guidance; user (the
user-phrased set in tests/fixtures/llm/user_questions.jsonl, full pipeline).

Each config runs the registry's `llm` front end through `koplc eval`'s loop and scoring, and
leaves `koplc eval`'s report in OUT/CONFIG/; report.md here puts the configs side by side.
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import replace
from pathlib import Path

from koplc import api
from koplc.evaluation.evaluate import evaluate_questions, read_gold_questions, report_of
from koplc.evaluation.report import write_report
from koplc.evaluation.scoring import timing
from koplc.llm.symkgqa.demos import template_of
from koplc.llm.symkgqa.pipeline import CompileOptions
from koplc.llm.symkgqa.prompt import PromptBuilder

HERE = Path(__file__).resolve().parent.parent
CONFIGS = {
    "full": (CompileOptions(), False),
    "full-no-reuse": (CompileOptions(reuse=False), False),
    "lto": (CompileOptions(), True),
    "lto-no-grammar": (CompileOptions(grammar="never"), True),
    "lto-no-quack": (CompileOptions(quack=False), True),
    "lto-no-rerank": (CompileOptions(rerank=False), True),
    "lto-no-repair": (CompileOptions(repair=False), True),
    "lto-no-guidance": (CompileOptions(execution_guidance=False), True),
    "user": (CompileOptions(), False),
}
USER_QUESTIONS = HERE / "tests/fixtures/llm/user_questions.jsonl"


def user_questions(limit: int | None) -> list:
    """The user-phrased set (no brackets: linking must find the topic), the first `limit`."""
    questions = read_gold_questions([USER_QUESTIONS])
    return questions[:limit] if limit else questions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", help="folder holding qa_{1,2,3}hop_dev.tsv (default: MetaQA's "
                        "verified dev questions, shipped with koplc)")
    parser.add_argument("--hops", default="1,2,3")
    parser.add_argument("--limit", type=int, help="questions per hop")
    parser.add_argument("--configs", default="full")
    parser.add_argument("--lm", default="embedded")
    parser.add_argument("--order", default="template", choices=["template", "file"],
                        help="template (default): questions of a template one after another, "
                        "so llama.cpp reuses their shared demonstrations; file: as the dataset "
                        "lists them (use it for latency, with a fresh --response-cache)")
    parser.add_argument("--decoding", default="speculative", choices=["speculative", "plain"],
                        help="llama.cpp models: speculative greedy decoding with kept prompt "
                        "states (default) or llama.cpp's one token per forward pass")
    parser.add_argument("--n-demos", type=int, help="demonstrations per prompt (default: "
                        "the pipeline's)")
    parser.add_argument("--out", default="build/llm_eval")
    parser.add_argument("--response-cache", help="sqlite file of cached LM responses (default: "
                        "OUT/responses.sqlite, so timings are real on a first run; 'off' for none)")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    lm = api.open_lm(args.lm, args.response_cache or out / "responses.sqlite",
                     speculative=args.decoding == "speculative")
    kb = api.load_kb()  # the shipped MetaQA KB, under MetaQA's schema
    prefix = PromptBuilder.for_kb(kb).prefix
    speed = [reading_speed(lm, prefix)]
    hops = tuple(int(h) for h in args.hops.split(","))
    for name in args.configs.split(","):
        options, lto = CONFIGS[name]
        if args.n_demos:
            options = replace(options, n_demos=args.n_demos)
        # The same front end `koplc eval --frontend llm` runs, through the registry.
        frontend = api.open_frontend("llm", lm=lm, options=options, leave_template_out=lto)
        files = [USER_QUESTIONS] if name == "user" else api.metaqa_dev_files(hops, args.data)
        questions = user_questions(args.limit) if name == "user" else \
            read_gold_questions(files, limit=args.limit)
        if args.order == "template":
            # Same template -> same masked question -> same demonstrations: only the question
            # line is new to llama.cpp. Answers are unchanged; per-question times are not
            # a single question's latency (measure that with --order file).
            questions.sort(key=lambda q: (q.kind, template_of(q.text)))
        records = []
        # Written as they come, so a run cut short still leaves its slice.
        with (out / f"{name}.jsonl").open("w", encoding="utf-8") as sink:
            for record in evaluate_questions(questions, frontend, kb, progress=True):
                records.append(record)
                sink.write(json.dumps(record, ensure_ascii=False) + "\n")
                sink.flush()
        summary = report_of(frontend, records, files)
        write_report(out / name, summary, records)  # koplc eval's report.json/.md/.png
        summary["prompt_reuse"] = {kind: prompt_reuse(records, kind) for kind in summary["kinds"]}
        (out / f"{name}.summary.json").write_text(json.dumps(summary, indent=1))
        print(name, json.dumps(summary["kinds"]), flush=True)
    speed.append(reading_speed(lm, prefix))
    if speed[0]:
        # This shared machine's speed drifts (the same read took 0.5 s and 0.95 s minutes
        # apart), so the timings carry how fast llama.cpp read when the run began and ended.
        (out / "reading_speed.json").write_text(json.dumps(
            {"tokens_per_s": {"before": speed[0], "after": speed[1]}}))
    report = markdown(out)
    (out / "report.md").write_text(report)
    print(report)


def prompt_reuse(records: list[dict], kind: str) -> dict:
    """Timings of `kind`'s questions split by whether an earlier question of the run had the
    same demonstrations: then llama.cpp holds that prompt's KV cache and reads only the
    question line."""
    seen, new, again = set(), [], []
    for r in records:
        key = tuple(r["demos"])
        if r["kind"] == kind and key and r["answered_by"] != "reuse":
            (again if key in seen else new).append(r)
        seen.add(key)
    return {"seconds_new_prompt": timing(new), "n_new_prompt": len(new),
            "seconds_seen_prompt": timing(again), "n_seen_prompt": len(again)}


def reading_speed(lm, text: str) -> float | None:
    """Tokens a second the embedded model reads `text` now; None for other clients."""
    from koplc.llm.lm.embedded import LlamaCppLM

    return lm.reading_speed(text) if isinstance(lm, LlamaCppLM) else None


def markdown(out: Path) -> str:
    """Every config's summary in `out` as two tables: accuracy with error sources, timings."""
    rows = ["| config | hop | n | Hits@1 | Hits@1 (set) | F1 | answered by | failures | "
            "wrong programs |", "|---|---|---|---|---|---|---|---|---|"]
    times = ["| config | hop | questions | generation median / p95 | grounding median / p95 | "
             "execution median / p95 | total median / p95 |", "|---|---|---|---|---|---|---|"]
    for name in CONFIGS:
        path = out / f"{name}.summary.json"
        if not path.exists():
            continue
        summary = json.loads(path.read_text())
        for hop, s in summary["kinds"].items():
            s = {**s, **summary["prompt_reuse"][hop]}
            failures = ", ".join(f"{k} {v}" for k, v in sorted(s["failures"].items()))
            errors = ", ".join(f"{k} {v}" for k, v in sorted(s["wrong_programs"].items()))
            sources = ", ".join(f"{k} {v}" for k, v in sorted(s["answered_by"].items()))
            rows.append(f"| {name} | {hop} | {s['n']} | {s['hits@1']} | "
                        f"{s.get('hits@1 (set)', '-')} | {s['f1']} | "
                        f"{sources} | {failures} | {errors} |")
            for label, t in (("all", s["seconds"]),
                             (f"new prompt ({s.get('n_new_prompt', 0)})",
                              s.get("seconds_new_prompt", {})),
                             (f"seen prompt ({s.get('n_seen_prompt', 0)})",
                              s.get("seconds_seen_prompt", {}))):
                if t:
                    times.append(f"| {name} | {hop} | {label} | " + " | ".join(
                        f"{t[k]['median']} / {t[k]['p95']}" if k in t else "-"
                        for k in ("generation", "grounding", "execution", "total")) + " |")
    text = "\n".join(rows) + "\n\n" + "\n".join(times) + "\n"
    speed = out / "reading_speed.json"
    if speed.exists():
        t = json.loads(speed.read_text())["tokens_per_s"]
        text += (f"\nllama.cpp read {t['before']} tokens/s when the run began, "
                 f"{t['after']} when it ended.\n")
    return text


if __name__ == "__main__":
    main()
