"""koplc's native executor against the official KoPL engines, side by side.

    .venv/bin/python benchmarks/executor.py [--rounds N] [--mix N]

Runs, each in its own subprocess (separate memory): koplc building the MetaQA KoPL KB from
JSON (cold, writing the binary cache), koplc loading it from the cache and executing, the
official Python engine (KoPL 0.0.5) and the official C++ engine (kopl-engine 0.1.1, called from
Python as its users call it). Workloads: the gold programs of all 31,835 verified MetaQA dev
questions on the MetaQA KB, and a generated KQA-Pro-style mix on the official example KB.
Programs are prepared before timing (koplc: IR trees; Python engine: function/input lists;
C++ engine: `parse_program` objects); the "+parse" rows also time building them from the decoded
KQA Pro JSON list (koplc: `program_from_steps`; C++: `parse_program`, as its users call it).
The workers run --repeat times, interleaved, and each number is the best of all rounds, so
that a busy machine weighs on every engine alike. Per program: the mean over a round, best of N rounds, in wall-clock and CPU time.
Peak memory is each process's ru_maxrss. koplc caches no results across executions; it keeps
compiled literal comparisons (text -> test function, like `re`'s pattern cache) and the last
executor, and the "no caches" rows run each program on a fresh executor with those cleared.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from inputs import FIXTURES, metaqa_dev, metaqa_kb

EXAMPLE_KB = FIXTURES / "kopl/example_kb.json"


def metaqa_kopl_json() -> Path:
    """The whole MetaQA KB shipped in the package as KoPL KB JSON (what the official engines
    read), converted once into koplc's cache folder."""
    from koplc import api
    from koplc.kopl.user_cache import cache_root

    path = cache_root() / "bench" / "metaqa_kb.kopl.json"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        api.kb_convert(api.load_kb(metaqa_kb(), schema="metaqa"), "kopl-json", path)
    return path


def timed_rounds(programs: list, run, rounds: int) -> dict:
    """Best-of-rounds mean wall and CPU milliseconds per program."""
    best_wall = best_cpu = float("inf")
    for _ in range(rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        for program in programs:
            run(program)
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return {"wall_ms": 1000 * best_wall / len(programs), "cpu_ms": 1000 * best_cpu / len(programs)}


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def worker_koplc_cold(work: Path, rounds: int) -> dict:
    from koplc.kopl.kb.cache import load_kb

    start = time.perf_counter()
    load_kb(metaqa_kopl_json(), cache=False)
    cold = time.perf_counter() - start
    start = time.perf_counter()
    load_kb(metaqa_kopl_json())  # builds again and writes the cache
    with_write = time.perf_counter() - start
    return {"load_s": cold, "load_and_write_cache_s": with_write, "peak_mib": peak_mib()}


def worker_koplc(work: Path, rounds: int) -> dict:
    global _COMPILED_TEST, _EXECUTOR
    from koplc.kopl.execution.executor import Executor, execute
    from koplc.kopl.kb.cache import load_kb
    from koplc.kopl.syntax.kqapro_json import program_from_steps
    from koplc.kopl.values import compiled_test

    _COMPILED_TEST, _EXECUTOR = compiled_test, Executor

    start = time.perf_counter()
    kb = load_kb(metaqa_kopl_json())
    out = {"load_s": time.perf_counter() - start}
    example = load_kb(EXAMPLE_KB, cache=False)
    for name, kb_ in (("metaqa", kb), ("mix", example)):
        lists = json.loads((work / f"{name}.json").read_text())
        programs = [program_from_steps(steps) for steps in lists]
        out[name] = timed_rounds(programs, lambda p, kb_=kb_: _quiet(execute, p, kb_), rounds)
        out[name + "+parse"] = timed_rounds(
            lists, lambda s, kb_=kb_: _quiet(execute, program_from_steps(s), kb_), rounds)
        out[name + " uncached"] = timed_rounds(
            programs, lambda p, kb_=kb_: _quiet(_uncached, p, kb_), rounds)
        answers = [_answer(execute, p, kb_) for p in programs]
        (work / f"koplc-{name}-answers.json").write_text(json.dumps(answers))
    out["peak_mib"] = peak_mib()
    return out


def worker_python(work: Path, rounds: int) -> dict:
    import contextlib
    import io

    from kopl.kopl import KoPLEngine

    import kopl  # the official engine: this script's folder has no `kopl` of ours

    assert "site-packages" in kopl.__file__, kopl.__file__
    out = {}
    for name, path in (("metaqa", metaqa_kopl_json()), ("mix", EXAMPLE_KB)):
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            engine = KoPLEngine(json.loads(path.read_text()))
        if name == "metaqa":
            out["load_s"] = time.perf_counter() - start
        programs = json.loads((work / f"{name}.json").read_text())
        pairs = [([s["function"] for s in p], [s["inputs"] for s in p]) for p in programs]
        out[name] = timed_rounds(pairs, lambda fi, e=engine: _quiet(e.forward, *fi), rounds)
        answers = [_answer(engine.forward, *fi) for fi in pairs]
        (work / f"python-{name}-answers.json").write_text(json.dumps(answers))
    out["peak_mib"] = peak_mib()
    return out


def worker_cpp(work: Path, rounds: int) -> dict:
    import contextlib

    from kopl_engine import engine

    out = {}
    for name, path in (("metaqa", metaqa_kopl_json()), ("mix", EXAMPLE_KB)):
        start = time.perf_counter()
        with contextlib.redirect_stdout(sys.stderr):
            executor = engine.init(str(path), 1)
        if name == "metaqa":
            out["load_s"] = time.perf_counter() - start
        programs = json.loads((work / f"{name}.json").read_text())
        parsed = [engine.parse_program(p) for p in programs]
        out[name] = timed_rounds(parsed, lambda p, x=executor: engine.forward(x, p, False), rounds)
        out[name + "+parse"] = timed_rounds(
            programs, lambda p, x=executor: engine.forward(x, engine.parse_program(p), False),
            rounds)
    out["peak_mib"] = peak_mib()
    return out


def _uncached(program, kb):
    """Execute with nothing kept from earlier programs: a fresh executor (no compiled literal
    tests) and an empty shared literal cache."""
    _COMPILED_TEST.cache_clear()
    return _EXECUTOR(kb).run(program)


def _quiet(call, *args):
    try:
        return call(*args)
    except Exception:  # noqa: BLE001 - a raising program is part of the workload
        return None


def _answer(call, *args):
    answer = _quiet(call, *args)
    if answer is None or isinstance(answer, (str, list)):
        return answer
    return answer.render()


_COMPILED_TEST = _EXECUTOR = None  # set by the koplc worker

WORKERS = {"koplc-cold": worker_koplc_cold, "koplc": worker_koplc, "python": worker_python,
           "cpp": worker_cpp}


def write_workloads(work: Path, mix_size: int) -> dict:
    """The MetaQA gold programs and the example-KB mix as KQA Pro JSON lists (What for
    QueryName: the C++ engine knows only What)."""
    from kqapro_mix import kqapro_mix

    from koplc.kopl.datasets.metaqa import gold_program, read_questions
    from koplc.kopl.kb.cache import load_kb
    from koplc.kopl.syntax.kqapro_json import print_program

    questions = [q for hop in (1, 2, 3)
                 for q in read_questions(metaqa_dev(hop))]
    workloads = {"metaqa": [gold_program(q.topic, q.qtype) for q in questions],
                 "mix": kqapro_mix(load_kb(EXAMPLE_KB, cache=False), mix_size)}
    for name, programs in workloads.items():
        lists = [json.loads(print_program(p)) for p in programs]
        for steps in lists:
            for step in steps:
                step["function"] = "What" if step["function"] == "QueryName" else step["function"]
        (work / f"{name}.json").write_text(json.dumps(lists))
    return {name: len(programs) for name, programs in workloads.items()}


def run_worker(name: str, work: Path, rounds: int) -> dict:
    env = {**os.environ, "KOPLC_CACHE_DIR": str(work / "cache")}
    done = subprocess.run([sys.executable, __file__, "--worker", name, "--work", str(work),
                           "--rounds", str(rounds)], env=env, capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise SystemExit(f"worker {name} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def agreement(work: Path, name: str) -> tuple[int, int]:
    """How many programs koplc answers as the Python engine does (lists as multisets)."""
    from collections import Counter

    def norm(a):
        return sorted(Counter(a).items()) if isinstance(a, list) else a

    ours = json.loads((work / f"koplc-{name}-answers.json").read_text())
    theirs = json.loads((work / f"python-{name}-answers.json").read_text())
    return sum(norm(a) == norm(b) for a, b in zip(ours, theirs, strict=True)), len(ours)


def table(results: dict, sizes: dict, work: Path) -> str:
    k, p, c, cold = results["koplc"], results["python"], results["cpp"], results["koplc-cold"]
    rows = [("KB load, MetaQA (s)", f"{cold['load_s']:.3f} cold / {k['load_s']:.3f} cached",
             f"{p['load_s']:.3f}", f"{c['load_s']:.3f}",
             f"{p['load_s'] / k['load_s']:.1f}x", f"{c['load_s'] / k['load_s']:.1f}x")]
    for name, label in (("metaqa", f"MetaQA gold ({sizes['metaqa']})"),
                        ("mix", f"KQA-Pro-style mix ({sizes['mix']})")):
        for clock in ("wall_ms", "cpu_ms"):
            ours = k[name][clock]
            rows.append((f"{label}, ms/program ({clock[:-3]})", f"{ours:.4f}",
                         f"{p[name][clock]:.4f}", f"{c[name][clock]:.4f}",
                         f"{p[name][clock] / ours:.1f}x", f"{c[name][clock] / ours:.1f}x"))
        rows.append((f"{label} no caches, ms/program (wall)",
                     f"{k[name + ' uncached']['wall_ms']:.4f}", "", "", "", ""))
        rows.append((f"{label} +parse, ms/program (wall)", f"{k[name + '+parse']['wall_ms']:.4f}",
                     "-", f"{c[name + '+parse']['wall_ms']:.4f}", "-",
                     f"{c[name + '+parse']['wall_ms'] / k[name + '+parse']['wall_ms']:.1f}x"))
    throughput = 1 / k["metaqa"]["wall_ms"] * 1000
    rows.append(("MetaQA programs/s (wall)", f"{throughput:,.0f}",
                 f"{1000 / p['metaqa']['wall_ms']:,.0f}", f"{1000 / c['metaqa']['wall_ms']:,.0f}",
                 "", ""))
    rows.append(("peak memory (MiB)", f"{cold['peak_mib']:.0f} cold / {k['peak_mib']:.0f}",
                 f"{p['peak_mib']:.0f}", f"{c['peak_mib']:.0f}", "", ""))
    head = ("", "koplc", "Python engine", "C++ engine", "koplc vs Python", "koplc vs C++")
    widths = [max(len(str(r[i])) for r in (head, *rows)) for i in range(len(head))]
    lines = ["  ".join(str(cell).ljust(w) for cell, w in zip(row, widths, strict=True))
             for row in (head, *rows)]
    lines.insert(1, "  ".join("-" * w for w in widths))
    for name in ("metaqa", "mix"):
        same, total = agreement(work, name)
        lines.append(f"koplc = Python engine on {same}/{total} {name} programs")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds per worker run")
    parser.add_argument("--repeat", type=int, default=2, help="interleaved runs of each worker")
    parser.add_argument("--mix", type=int, default=1000, help="programs in the example-KB mix")
    parser.add_argument("--worker", choices=list(WORKERS), help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(WORKERS[args.worker](args.work, args.rounds)))
        return
    metaqa_kopl_json()  # converted before the workers start
    with tempfile.TemporaryDirectory(prefix="koplc-bench-") as tmp:
        work = Path(tmp)
        sizes = write_workloads(work, args.mix)
        results: dict[str, dict] = {}
        plan = [(name, rounds) for _ in range(args.repeat)
                for name, rounds in (("koplc-cold", 1), ("koplc", args.rounds),
                                     ("python", max(1, args.rounds // 3)), ("cpp", args.rounds))]
        with progress(total=len(plan)) as bar:
            for name, rounds in plan:
                bar.set_description(name)
                results[name] = best_of(results.get(name), run_worker(name, work, rounds))
                bar.update()
        print(table(results, sizes, work))


def progress(total: int):
    """A tqdm progress bar on stderr (a silent stand-in when tqdm is not installed)."""
    try:
        from tqdm import tqdm
    except ImportError:
        import contextlib

        class Silent:
            def set_description(self, _): ...
            def update(self): ...
        return contextlib.nullcontext(Silent())
    return tqdm(total=total, unit="run", file=sys.stderr)


def best_of(old: dict | None, new: dict) -> dict:
    """The smaller of each number (times and peaks) across runs."""
    if old is None:
        return new
    return {k: best_of(old[k], v) if isinstance(v, dict) else min(old[k], v)
            for k, v in new.items()}


if __name__ == "__main__":
    main()
