"""The OpenAI-compatible path against the embedded one on the same MetaQA slice: starts the real
llama.cpp server (`python -m llama_cpp.server`) on 127.0.0.1 with the embedded GGUF, compiles
every question through the server and the embedded model with greedy decoding, the embedded
model both ways (speculative, its default, and llama.cpp's one token per pass, which is what the
server does), and counts equal programs and answers.

    .venv/bin/python benchmarks/llm_openai_parity.py --limit 10 --out build/llm_eval
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from inputs import metaqa_dev_folder
from tqdm import tqdm

from koplc import api
from koplc.evaluation.dev_runs import dev_questions, evaluate_one
from koplc.llm.lm.defaults import default_pool_path
from koplc.llm.lm.embedded import LlamaCppLM
from koplc.llm.lm.server import local_server
from koplc.llm.symkgqa.pipeline import CompileOptions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", help="folder holding qa_{1,2,3}hop_dev.tsv (default: MetaQA's "
                        "verified dev questions, shipped with koplc)")
    parser.add_argument("--limit", type=int, default=10, help="questions per hop")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", default="build/llm_eval")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    questions = dev_questions(args.data or metaqa_dev_folder(), (1, 2, 3), args.limit)
    # Rerank samples are seeded differently by the two paths, so compare greedy decoding only.
    options = CompileOptions(rerank=False, reuse=False)  # compare generation
    results = {}
    kb = api.load_kb()  # the shipped MetaQA KB, under MetaQA's schema
    with local_server(threads=args.threads, n_ctx=4096, wait_s=240) as url:
        for name, lm in (("embedded", lambda: api.open_lm("embedded", "off")),
                         ("embedded-plain", lambda: LlamaCppLM(speculative=False)),
                         ("server", lambda: api.open_lm(url, "off"))):
            # The curated pool only, as both paths had it: no exploring the KB for a pool.
            frontend = api.open_frontend("llm", lm=lm(), options=options,
                                         pool=str(default_pool_path()))
            results[name] = [evaluate_one(frontend, kb, q)
                             for q in tqdm(questions, desc=name, unit="q")]
            del frontend
    report = {name: compare(results[name], results["server"])
              for name in ("embedded", "embedded-plain")}
    (out / "openai_parity.json").write_text(json.dumps(report, indent=1, ensure_ascii=False))
    print(json.dumps({name: {k: v for k, v in r.items() if k != "differences"}
                      for name, r in report.items()}))


def compare(embedded: list[dict], server: list[dict]) -> dict:
    """How many of the two paths' programs and answers agree, and where they differ."""
    pairs = list(zip(embedded, server, strict=True))
    return {
        "questions": len(pairs),
        "same_program": sum(a["program"] == b["program"] for a, b in pairs),
        "same_answers": sum(a["answer"] == b["answer"] for a, b in pairs),
        "hits1_embedded": sum(a["hits1"] for a, _ in pairs),
        "hits1_server": sum(b["hits1"] for _, b in pairs),
        "differences": [{"question": a["question"], "embedded": a["program"],
                         "server": b["program"]} for a, b in pairs if a["answer"] != b["answer"]],
    }


if __name__ == "__main__":
    main()
