"""Speculative against plain greedy decoding on the embedded model, side by side: the same
prompts (the pipeline's, for MetaQA dev questions in file order), each decoded by both.

    .venv/bin/python benchmarks/llm_decoding.py --hops 1 --limit 100 --out build/llm_decoding

Prints median and p95 seconds per question for each decoder, their ratio, how many outputs
agree, and the split of the speculative times by whether the prompt's demonstrations were seen
before (then only the question's lines are read). No response cache: every call is timed."""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from inputs import metaqa_dev_folder
from tqdm import tqdm

from koplc import api
from koplc.evaluation.dev_runs import dev_questions, percentiles
from koplc.kopl.answering.linking import link_question
from koplc.llm.lm.embedded import LlamaCppLM
from koplc.llm.symkgqa.pipeline import STOP, CompileOptions, hints


def summary(values: list[float]) -> dict:
    return {"n": len(values), **percentiles(values)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", help="folder holding qa_{1,2,3}hop_dev.tsv (default: MetaQA's "
                        "verified dev questions, shipped with koplc)")
    parser.add_argument("--hops", default="1")
    parser.add_argument("--limit", type=int, default=100, help="questions per hop")
    parser.add_argument("--out", default="build/llm_decoding")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    plain, fast = LlamaCppLM(speculative=False), LlamaCppLM()
    compiler = api.compiler(lm=plain)
    n_demos = CompileOptions().n_demos
    rows, seen = [], set()
    hops = tuple(int(h) for h in args.hops.split(","))
    for q in tqdm(dev_questions(args.data or metaqa_dev_folder(), hops, args.limit), unit="q"):
        linked = link_question(q.text, compiler.kb)
        demos = compiler.selector.nearest(linked.masked(), n_demos)
        prompt = compiler.builder.build(linked, demos)
        clock = time.perf_counter()
        a = plain.generate(prompt, 1, 0.0, 1, STOP)[0]
        middle = time.perf_counter()
        b = fast.generate(prompt, 1, 0.0, 1, STOP, hints=hints(linked, demos))[0]
        end = time.perf_counter()
        key = tuple(d.question for d in demos)
        rows.append({"question": q.text, "plain": a, "speculative": b,
                     "plain_s": middle - clock, "speculative_s": end - middle,
                     "seen_prompt": key in seen})
        seen.add(key)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with (out / "decoding.jsonl").open("w", encoding="utf-8") as sink:
        for r in rows:
            sink.write(json.dumps(r, ensure_ascii=False) + "\n")
    # The first call of each decoder reads the fixed prompt prefix: left out of the figures.
    timed = rows[1:]
    report = {
        "plain": summary([r["plain_s"] for r in timed]),
        "speculative": summary([r["speculative_s"] for r in timed]),
        "speculative, new prompt": summary([r["speculative_s"] for r in timed
                                            if not r["seen_prompt"]]),
        "speculative, seen prompt": summary([r["speculative_s"] for r in timed
                                             if r["seen_prompt"]] or [0.0]),
        "same output": f"{sum(r['plain'] == r['speculative'] for r in rows)} of {len(rows)}",
    }
    report["median ratio plain / speculative"] = round(
        report["plain"]["median"] / report["speculative"]["median"], 2)
    (out / "decoding.json").write_text(json.dumps(report, indent=1))
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
