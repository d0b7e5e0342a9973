"""Wall time and peak resident memory of evaluating the GNN front end over question files.

    .venv/bin/python benchmarks/gnn_eval.py --kb KB --model DIR [--data FILE ...] [--cold]

Times each stage (KB, model and retriever setup; subgraph node sets by PPR; reasoning, decoding
and executing the emitted programs) and reports the process's peak RSS (getrusage). `--cold`
puts the subgraph cache in a fresh folder, so the PPR of every topic is timed too; otherwise the
model folder's cache is used (built on the first run). Prints one JSON object per hop and one
summary line.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

DEV_ALL = Path(__file__).resolve().parents[1] / "../shared/data/metaqa/dev_all"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--data", nargs="+",
                        default=[str(DEV_ALL / f"qa_{h}hop_dev_all.tsv") for h in (1, 2, 3)])
    parser.add_argument("--cold", action="store_true", help="build the subgraph cache anew")
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()
    began = time.perf_counter()
    from koplc import api
    from koplc.gnn import checkpoint
    from koplc.gnn.data import Tokenizer, read_files
    from koplc.gnn.subgraph import Retriever, graph_of
    from koplc.gnn.train import evaluate

    stages = {}
    clock = time.perf_counter()
    kb = api.load_kb(args.kb)
    state = checkpoint.load(args.model)
    config = state["reasoner"].config
    graph = graph_of(kb)
    cache = tempfile.mkdtemp(prefix="koplc-gnn-bench-") if args.cold else args.model
    retriever = Retriever(graph, config.hops, config.size, cache_dir=cache)
    tokenizer = Tokenizer()
    questions = read_files(args.data)
    stages["setup"] = time.perf_counter() - clock
    clock = time.perf_counter()
    retriever.prepare([q.topic for q in questions])
    stages["subgraphs"] = time.perf_counter() - clock
    clock = time.perf_counter()
    metrics = evaluate(state, kb, graph, retriever, tokenizer, questions,
                       batch_size=args.batch_size, progress=True)
    stages["eval"] = time.perf_counter() - clock
    for split, row in metrics.items():
        sys.stdout.write(f"{split} {json.dumps(row)}\n")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # kB -> GB
    summary = {"questions": len(questions), "wall_s": round(time.perf_counter() - began, 1),
               **{f"{k}_s": round(v, 1) for k, v in stages.items()},
               "peak_rss_gb": round(peak, 2), "subgraph_size": config.size,
               "cold_cache": args.cold}
    sys.stdout.write(f"summary {json.dumps(summary)}\n")


if __name__ == "__main__":
    main()
