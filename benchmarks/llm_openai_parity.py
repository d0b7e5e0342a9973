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
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tqdm import tqdm

from koplc import api
from koplc.llm.evaluate import dev_questions, evaluate_one
from koplc.llm.model_cache import embedded_model_path
from koplc.llm.pipeline import CompileOptions

HERE = Path(__file__).resolve().parent.parent


def start_server(threads: int) -> tuple[subprocess.Popen, str]:
    """The llama.cpp server on a free local port, once it answers /v1/models."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(embedded_model_path()),
         "--host", "127.0.0.1", "--port", str(port), "--n_threads", str(threads),
         "--n_threads_batch", str(threads), "--n_ctx", "4096", "--logits_all", "true"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(480):
        try:
            urllib.request.urlopen(url + "/v1/models", timeout=2)
            return process, url
        except OSError:
            if process.poll() is not None:
                break
            time.sleep(0.5)
    process.kill()
    sys.exit("the llama.cpp server did not start")


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
    process, url = start_server(args.threads)
    try:
        for name, spec in (("embedded", "embedded"), ("server", url)):
            compiler = api.compiler(lm=api.open_lm(spec, "off"))
            results[name] = [evaluate_one(compiler, q, options)
                             for q in tqdm(questions, desc=name, unit="q")]
            del compiler
    finally:
        os.kill(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
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
