"""Wall time and peak resident memory of evaluating the GNN front end over question files.

    .venv/bin/python benchmarks/gnn_eval.py --kb KB --model DIR [--data FILE ...] [--cold]
        [--schema NAME|FILE]

Times each stage (KB, model and retriever setup; subgraph node sets by PPR; reasoning, decoding
and executing the emitted programs) and reports the process's peak RSS (getrusage). `--cold`
puts the subgraph cache in a fresh folder, so the PPR of every topic is timed too; otherwise the
model folder's cache is used (built on the first run). Prints one JSON object per hop and one
summary line: wall and CPU seconds (parent and workers; on a shared machine the CPU seconds are
the steadier number), the parent's peak RSS and, as a bound on the whole, the parent's peak plus
`workers` times the largest worker's (pages shared after the fork are counted twice), the peak of
the processes' summed PSS (shared pages split among them: the memory the run really holds), and
the load average at the end.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path

from inputs import SHARED, require

DEV_ALL = SHARED / "data/metaqa/dev_all"
DEFAULT_DATA = [str(DEV_ALL / f"qa_{h}hop_dev_all.tsv") for h in (1, 2, 3)]


class FootprintSampler:
    """Samples, every `every` seconds in a thread, the summed proportional set size (PSS: a page
    shared by n processes counts 1/n in each) of this process and its children, from Linux's
    /proc/PID/smaps_rollup; `peak` is the largest sum seen, in GB."""

    def __init__(self, every: float = 0.5):
        self.peak, self.every = 0.0, every
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.done.wait(self.every):
            pids = [os.getpid()] + _children(os.getpid())
            self.peak = max(self.peak, sum(_pss_kb(pid) for pid in pids) / 2**20)

    def stop(self) -> float:
        self.done.set()
        self.thread.join()
        return self.peak


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return out


def _pss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


_JOB: dict = {}  # what the forked workers share (set before the fork, never pickled)


def _share(k: int) -> list:
    """Worker k's rows: every workers-th question from the k-th."""
    return _JOB["scored"](*_JOB["args"], _JOB["pairs"][k::_JOB["workers"]], _JOB["batch_size"],
                          progress=k == 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", required=True)
    parser.add_argument("--schema", default="metaqa",
                        help="the schema of a .txt KB: a dataset's name or a JSON file "
                        "(default: metaqa, the data the GNN is trained and scored on)")
    parser.add_argument("--model", required=True)
    parser.add_argument("--data", nargs="+", default=DEFAULT_DATA)
    parser.add_argument("--cold", action="store_true", help="build the subgraph cache anew")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2,
                        help="processes reasoning over a share of the questions each, one torch "
                        "thread apiece (forked after the set-up, so they share the KB's pages)")
    args = parser.parse_args()
    if args.data == DEFAULT_DATA:
        require(*map(Path, DEFAULT_DATA))
    began = time.perf_counter()
    footprint = FootprintSampler()
    import torch

    from koplc import api
    from koplc.gnn import checkpoint
    from koplc.gnn.data import Tokenizer, linked, read_files
    from koplc.gnn.subgraph import Retriever, graph_of
    from koplc.gnn.train import scored, summary

    torch.set_num_threads(1)  # threads of one process spin against each other on a busy host
    stages = {}
    clock = time.perf_counter()
    kb = api.load_kb(args.kb, schema=args.schema)
    state = checkpoint.load(args.model)
    config = state["reasoner"].config
    graph = graph_of(kb)
    cache = tempfile.mkdtemp(prefix="koplc-gnn-bench-") if args.cold else args.model
    retriever = Retriever(graph, config.hops, config.size, cache_dir=cache)
    tokenizer = Tokenizer()
    pairs = linked(read_files(args.data), graph, strict=True)
    stages["setup"] = time.perf_counter() - clock
    clock = time.perf_counter()
    retriever.prepare([topic for _, topic in pairs])
    graph.typed  # noqa: B018 - built once before the fork, shared by the workers
    stages["subgraphs"] = time.perf_counter() - clock
    clock = time.perf_counter()

    _JOB.update(scored=scored, args=(state, kb, graph, retriever, tokenizer), pairs=pairs,
                workers=args.workers, batch_size=args.batch_size)
    if args.workers > 1:
        with multiprocessing.get_context("fork").Pool(args.workers) as pool:
            rows = [row for part in pool.map(_share, range(args.workers)) for row in part]
    else:
        rows = _share(0)
    stages["eval"] = time.perf_counter() - clock
    for split, row in summary(rows).items():
        sys.stdout.write(f"{split} {json.dumps(row)}\n")
    if len(args.data) > 1:  # also per file (a question text is counted under its first file)
        source = {}
        for path in args.data:
            for q in read_files([path]):
                source.setdefault(q.text, Path(path).name)
        for name in dict.fromkeys(source.values()):
            for split, row in summary([r for r in rows if source[r[2]] == name]).items():
                if split != "all":
                    sys.stdout.write(f"{name} {split} {json.dumps(row)}\n")
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
    peak = own.ru_maxrss + (args.workers if args.workers > 1 else 0) * children.ru_maxrss
    result = {"questions": len(pairs), "wall_s": round(time.perf_counter() - began, 1),
              **{f"{k}_s": round(v, 1) for k, v in stages.items()},
              "cpu_s": round(cpu, 1), "workers": args.workers,
              "peak_rss_gb": round(own.ru_maxrss / 2**20, 2),  # kB -> GB
              "peak_rss_sum_gb": round(peak / 2**20, 2),
              "peak_pss_total_gb": round(footprint.stop(), 2),
              "load_avg": round(os.getloadavg()[0], 1), "subgraph_size": config.size,
              "cold_cache": args.cold}
    sys.stdout.write(f"summary {json.dumps(result)}\n")


if __name__ == "__main__":
    main()
