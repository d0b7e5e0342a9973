"""Time `koplc explore` and measure how well its patterns cover MetaQA's dev questions.

    .venv/bin/python benchmarks/explore.py [--programs 10000] [--kb KB ...] [--no-coverage]

For each KB (default: the whole MetaQA KB of the team's data folder, the two example KBs and the
periodic-table KB) it loads the KB (timed apart), explores `--programs` programs with execution
and canonical questions and writes the pool into a temporary folder, reporting wall and CPU
seconds, the pool's size, patterns, hops and its balance over ops, relations and keys. BYOKG
took 46.5 minutes for 10k programs on Freebase (24.4 on MetaQA's KB), on three large machines.

Coverage (BYOKG's Table 6, where exploration missed about 30% of MetaQA's dev patterns): the
anonymised patterns of the gold programs of MetaQA's dev questions (`Find(topic)`, a `Relate`
per hop of the question type, `QueryName`), against the patterns in the MetaQA pool, counted
over distinct patterns and over questions, per hop.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from inputs import FIXTURES, SHARED, require  # noqa: E402

from koplc.kopl.datasets.metaqa import KB_SCHEMA, gold_program, read_questions  # noqa: E402
from koplc.kopl.exploration import ExploreOptions, explore_to_file, pattern, read_pool  # noqa: E402
from koplc.kopl.kb.cache import load_kb  # noqa: E402

METAQA_FULL = SHARED / "data" / "metaqa" / "full"
DEFAULT_KBS = [METAQA_FULL / "kb.txt", FIXTURES / "kopl" / "example_kb.json",
               FIXTURES / "kopl" / "example_kb_ext.json", FIXTURES / "periodic" / "periodic_kb.json"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", type=Path, action="append", help="KB file (repeatable)")
    parser.add_argument("--programs", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-coverage", action="store_true")
    args = parser.parse_args()
    kbs = args.kb or DEFAULT_KBS
    require(*kbs)
    for kb_path in kbs:
        pool = bench(kb_path, args.programs, args.seed)
        if not args.no_coverage and kb_path == METAQA_FULL / "kb.txt":
            coverage(pool)


def bench(kb_path: Path, programs: int, seed: int) -> Path:
    started = time.perf_counter()
    kb = load_kb(kb_path, schema=KB_SCHEMA if kb_path == METAQA_FULL / "kb.txt" else None)
    loaded = time.perf_counter() - started
    out = Path(tempfile.mkdtemp(prefix="koplc-explore-")) / "pool.jsonl"
    wall, cpu = time.perf_counter(), time.process_time()
    report = explore_to_file(kb, out, ExploreOptions(programs=programs, seed=seed),
                             kb_path=kb_path)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    summary = report.summary()
    print(f"\n== {kb_path.name}: {kb!r}")
    print(f"load {loaded:.1f} s; explore {summary['programs']} programs (of {programs} asked) "
          f"in {wall:.1f} s wall, {cpu:.1f} s CPU ({summary['draws']} draws, "
          f"{1000 * cpu / max(1, summary['programs']):.2f} ms CPU a program); "
          f"pool {out.stat().st_size / 1e6:.1f} MB")
    print(f"patterns {summary['patterns']}; hops {summary['hops']}")
    print(f"dropped {summary['dropped']}")
    for what in ("ops", "relations", "keys", "concepts"):
        print(f"{what}: {json.dumps(summary[what], ensure_ascii=False)}")
    return out


def coverage(pool: Path) -> None:
    explored = {entry.pattern for entry in read_pool(pool)}
    print("\nMetaQA dev coverage by the pool's patterns (distinct patterns | questions):")
    for hop in (1, 2, 3):
        questions = read_questions(METAQA_FULL / f"qa_{hop}hop_dev.tsv")
        gold = Counter(pattern(gold_program(q.topic, q.qtype)) for q in questions)
        hit = [p for p in gold if p in explored]
        covered = sum(gold[p] for p in hit)
        print(f"  {hop}-hop: {len(hit)}/{len(gold)} patterns ({100 * len(hit) / len(gold):.1f}%)"
              f" | {covered}/{sum(gold.values())} questions "
              f"({100 * covered / sum(gold.values()):.1f}%)")
        missed = sorted(set(gold) - set(hit), key=lambda p: -gold[p])
        for p in missed[:3]:
            print(f"      missed ({gold[p]} questions): {p}")


if __name__ == "__main__":
    main()
