"""The OpenAI-compatible path against the embedded one on the same MetaQA slice: starts the real
llama.cpp server (`python -m llama_cpp.server`) on 127.0.0.1 with the embedded GGUF, compiles
every question through both clients with greedy decoding, and counts equal programs and
answers.

    .venv/bin/python benchmarks/llm_openai_parity.py --limit 10 --out build/llm_eval
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from tqdm import tqdm

from koplc import api
from koplc.llm.evaluate import dev_questions, evaluate_one
from koplc.llm.pipeline import CompileOptions
from koplc.llm.server import local_server

HERE = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", default=str(HERE.parent / "shared/data/metaqa"))
    parser.add_argument("--limit", type=int, default=10, help="questions per hop")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", default="build/llm_eval")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    questions = dev_questions(args.data, (1, 2, 3), args.limit)
    # Rerank samples are seeded differently by the two paths, so compare greedy decoding only.
    options = CompileOptions(rerank=False, reuse=False)  # compare generation
    results = {}
    with local_server(threads=args.threads, n_ctx=4096, wait_s=240) as url:
        for name, spec in (("embedded", "embedded"), ("server", url)):
            compiler = api.compiler(lm=api.open_lm(spec, "off"))
            results[name] = [evaluate_one(compiler, q, options)
                             for q in tqdm(questions, desc=name, unit="q")]
            del compiler
    pairs = list(zip(results["embedded"], results["server"], strict=True))
    report = {
        "questions": len(pairs),
        "same_program": sum(a["program"] == b["program"] for a, b in pairs),
        "same_answers": sum(a["answer"] == b["answer"] for a, b in pairs),
        "hits1_embedded": sum(a["hits1"] for a, _ in pairs),
        "hits1_server": sum(b["hits1"] for _, b in pairs),
        "differences": [{"question": a["question"], "embedded": a["program"],
                         "server": b["program"]} for a, b in pairs if a["answer"] != b["answer"]],
    }
    (out / "openai_parity.json").write_text(json.dumps(report, indent=1, ensure_ascii=False))
    print(json.dumps({k: v for k, v in report.items() if k != "differences"}))


if __name__ == "__main__":
    main()
