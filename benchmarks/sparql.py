"""The SPARQL backend on the MetaQA KB: load time into pyoxigraph, and the MetaQA dev gold
programs per second on pyoxigraph next to the native executor, in one run.

    .venv/bin/python benchmarks/sparql.py [--rounds N] [--encoding plain|kqapro]

Load: exporting the KB to N-Triples, bulk-loading them into a persistent pyoxigraph store in a
temporary folder, reopening that store (which does not reload), and loading an in-memory one. Queries: all 9,670 verified
dev questions' gold programs (IR built beforehand), run natively and through SPARQL (lowering,
query, turning rows into the executor's answer), checked equal; best of --rounds rounds.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from pathlib import Path

from inputs import metaqa_dev, metaqa_kb


def best_rate(programs: list, run, rounds: int) -> float:
    """Programs per second, best of `rounds`."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for program in programs:
            run(program)
        best = min(best, time.perf_counter() - start)
    return len(programs) / best


def main(argv: list[str] | None = None) -> int:
    from koplc.kopl.datasets.metaqa import KB_SCHEMA, gold_program, read_questions
    from koplc.kopl.execution.executor import execute
    from koplc.kopl.kb.cache import load_kb
    from koplc.sparql_backend.encodings import ENCODINGS
    from koplc.sparql_backend.export import write_ntriples
    from koplc.sparql_backend.lower import lower
    from koplc.sparql_backend.results import run_lowered
    from koplc.sparql_backend.stores import OxigraphStore, open_kb_store

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--encoding", default="plain", choices=["plain", "kqapro"])
    args = parser.parse_args(argv)
    encoding = ENCODINGS[args.encoding]
    source = metaqa_kb()
    kb = load_kb(source, schema=KB_SCHEMA)
    with tempfile.TemporaryDirectory(prefix="koplc-bench-") as tmp:
        start = time.perf_counter()
        triples = write_ntriples(kb, encoding, Path(tmp) / "kb.nt")
        export_s = time.perf_counter() - start
        start = time.perf_counter()
        store, loaded = open_kb_store(source, encoding, Path(tmp) / "store",
                                      load_kb=lambda path: kb)
        load_s = time.perf_counter() - start
        assert loaded
        store = None  # pyoxigraph holds a lock on the folder until the store is dropped
        gc.collect()
        start = time.perf_counter()
        store, loaded = open_kb_store(source, encoding, Path(tmp) / "store")
        reopen_s = time.perf_counter() - start
        assert not loaded
        questions = [q for hop in (1, 2, 3)
                     for q in read_questions(metaqa_dev(hop))]
        programs = [gold_program(q.topic, q.qtype) for q in questions]
        mismatches = sum(not execute(p, kb).same_as(run_lowered(lower(p, encoding), store))
                         for p in programs)
        native = best_rate(programs, lambda p: execute(p, kb), args.rounds)
        lowering = best_rate(programs, lambda p: lower(p, encoding), args.rounds)
        sparql = best_rate(programs, lambda p, s=store: run_lowered(lower(p, encoding), s),
                           args.rounds)
        store = None
        gc.collect()
        start = time.perf_counter()
        memory = OxigraphStore()
        memory.load_ntriples(Path(tmp) / "kb.nt")
        memory_load_s = time.perf_counter() - start
        in_memory = best_rate(programs, lambda p: run_lowered(lower(p, encoding), memory),
                              args.rounds)
    print(f"MetaQA KB ({kb.stats()['entities']} entities), {encoding.name} encoding:")
    print(f"  export to N-Triples        {export_s:7.2f} s  ({triples} lines)")
    print(f"  export + bulk load, fresh  {load_s:7.2f} s  (persistent pyoxigraph store)")
    print(f"  reopen, no reload          {reopen_s:7.2f} s")
    print(f"  bulk load, in memory       {memory_load_s:7.2f} s")
    print(f"MetaQA dev gold programs: {len(programs)}, answers differing: {mismatches}")
    print(f"  native executor    {native:10.0f} programs/s")
    print(f"  lowering only      {lowering:10.0f} programs/s")
    print(f"  pyoxigraph, on disk {sparql:9.0f} programs/s (lower + query + answer)")
    print(f"  pyoxigraph, memory  {in_memory:9.0f} programs/s")
    print(f"  ratio pyoxigraph / native: {sparql / native:.4f} on disk ({native / sparql:.0f}x "
          f"slower), {in_memory / native:.4f} in memory ({native / in_memory:.0f}x slower)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
