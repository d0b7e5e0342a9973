"""Scale: generated Wikidata-shaped KBs of 10^6, 10^7, 10^8 triples in Virtuoso, and koplc's
front ends compiling generated questions against them.

    .venv/bin/python benchmarks/endpoint_scale.py [SIZE ...] [--like metaqa] [--seed 0]
        [--frontends llm byokg] [--modes endpoint memory] [--limit 3] [--memory-max 2e6]
        [--timeout 3600] [--no-compile] [--work DIR [--reuse [--http-port N]]]

Per size (default 1e6 1e7 1e8): `koplc kb generate` writes the KB (.nt.gz; .nt where it is
small enough for in-memory mode) and its questions; a private Virtuoso (Debian's virtuoso-t,
on 127.0.0.1, its own ports and folder, stopped after) bulk-loads it (ld_dir / rdf_loader_run
through isql, as tests/virtuoso_server.py does); then for each front end `koplc eval --kb URL
--encoding wikidata` on the endpoint (koplc builds its name table and pool from the endpoint
on first use, within the first question: "setup s" is the run's wall time less the questions'
own seconds, "1st q s" the first question's), and `koplc eval --kb FILE` in memory where
the KB has at most --memory-max triples. Every koplc
process runs under GNU time, which gives its peak RSS. Prints a Markdown table; writes
build/endpoint_scale/results.json (a size's row updated by each run of that size, so modes
can run apart: --modes endpoint) and each run's koplc eval report beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

import virtuoso_server  # noqa: E402  (the test suite's way of running a private Virtuoso)

KOPLC = [sys.executable, "-m", "koplc"]
OUT = REPO / "build" / "endpoint_scale"
GRAPH = "urn:koplc:generated"
GNU_TIME = shutil.which("time") or "/usr/bin/time"
# Bulk loading wants buffers: about 8 KiB each, a third of free memory or 4 GiB at most.
BUFFERS_GIB = 4


def timed(argv: list[str], timeout: float, log: Path) -> dict:
    """Run `argv` under GNU time: exit code, wall seconds, peak RSS (MiB), output in `log`."""
    stats = log.with_suffix(".time")
    start = time.perf_counter()
    with log.open("w") as sink:
        # Its own session, so that a timeout stops koplc too, not only GNU time above it.
        process = subprocess.Popen([GNU_TIME, "-f", "%M", "-o", str(stats), *argv],
                                   stdout=sink, stderr=subprocess.STDOUT, cwd=REPO,
                                   start_new_session=True)
        try:
            code: int | str = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait()
            code = "timeout"
    seconds = time.perf_counter() - start
    rss = stats.read_text().split()[-1] if stats.exists() else ""
    return {"code": code, "seconds": round(seconds, 2),
            "peak_rss_mib": round(int(rss) / 1024, 1) if rss.isdigit() else None}


def free_memory_gib() -> float:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) / 2 ** 20
    return 2.0


def start_virtuoso(folder: Path, http_port: int | None = None) -> virtuoso_server.VirtuosoServer:
    buffers = int(min(BUFFERS_GIB, free_memory_gib() / 3) * 2 ** 30 / 8192)
    # Paging a large result with ORDER BY and OFFSET sorts past Virtuoso's default cap of
    # 10000 rows (error SR353), which koplc's name table does on any KB of that size.
    virtuoso_server.INI = virtuoso_server.INI.replace(
        "NumberOfBuffers = 20000", f"NumberOfBuffers = {buffers}").replace(
        "MaxDirtyBuffers = 15000", f"MaxDirtyBuffers = {buffers * 3 // 4}\n"
        "MaxSortedTopRows = 1000000000")
    server = virtuoso_server.VirtuosoServer(folder)
    if http_port:  # the URL of an earlier run: koplc's caches of the endpoint hold
        server.http_port = http_port
        server.endpoint = f"http://{virtuoso_server.HOST}:{http_port}/sparql"
    server.start(wait=180)
    return server


def bulk_load(server, kb: Path) -> dict:
    """Bulk-load `kb` into GRAPH; seconds and the triples the graph then holds."""
    start = time.perf_counter()
    server.isql(f"ld_dir('{kb.parent}', '{kb.name}', '{GRAPH}');\nrdf_loader_run();\n"
                "checkpoint;\n", timeout=6 * 3600)
    seconds = time.perf_counter() - start
    errors = server.isql("SELECT ll_file, ll_error FROM DB.DBA.load_list "
                         "WHERE ll_error IS NOT NULL;")
    query = urllib.parse.urlencode({"query": f"SELECT (COUNT(*) AS ?n) FROM <{GRAPH}> "
                                    "WHERE { ?s ?p ?o }", "format": "application/json"})
    with urllib.request.urlopen(f"{server.endpoint}?{query}", timeout=3600) as response:
        loaded = int(json.load(response)["results"]["bindings"][0]["n"]["value"])
    return {"load_s": round(seconds, 1), "loaded": loaded,
            "load_errors": errors if "0 Rows" not in errors else None}


def evaluate(frontend: str, kb: str, questions: Path, out: Path, limit: int,
             timeout: float, endpoint: bool) -> dict:
    """`koplc eval` of one front end; accuracy, per-question seconds, setup, peak RSS."""
    # every question generates: no answer from an earlier run's response cache
    argv = [*KOPLC, "eval", "--frontend", frontend, "--kb", kb, "--out", str(out),
            "--limit", str(limit), "--response-cache", "off", str(questions)]
    if endpoint:
        argv[argv.index("--kb") + 2:argv.index("--kb") + 2] = ["--encoding", "wikidata"]
    run = timed(argv, timeout, out.with_suffix(".log"))
    predictions = out / "predictions.jsonl"
    if run["code"] != 0 or not predictions.exists():
        tail = out.with_suffix(".log").read_text(errors="replace")[-400:]
        return {**run, "error": f"timeout after {timeout:g} s" if run["code"] == "timeout"
                else tail}
    records = [json.loads(line) for line in predictions.read_text().splitlines()]
    seconds = sorted(r["seconds"]["total"] for r in records)
    p95 = seconds[min(len(seconds) - 1, round(0.95 * (len(seconds) - 1)))]
    return {**run, "questions": len(records),
            "hits1": round(sum(r["hits1"] for r in records) / len(records), 3),
            "median_s": round(statistics.median(seconds), 2), "p95_s": round(p95, 2),
            "setup_s": round(run["seconds"] - sum(seconds), 1),
            "first_s": round(records[0]["seconds"]["total"], 1)}


def forget_queries(url: str) -> None:
    """Empty koplc's query cache of the endpoint (its name table and pool stay), so that each
    front end fetches its questions' fragments itself, not from the one before."""
    from koplc.sparql_backend.endpoint_kb import EndpointKB

    folder = EndpointKB(url, "wikidata").folder
    if folder is not None:
        for name in ("queries.sqlite", "queries.sqlite-wal", "queries.sqlite-shm"):
            (folder / name).unlink(missing_ok=True)


def endpoint_mode_available() -> bool:
    """Whether this koplc's `eval --kb` takes an endpoint URL (`--encoding`)."""
    done = subprocess.run([*KOPLC, "eval", "--help"], capture_output=True, text=True, cwd=REPO)
    return "--encoding" in done.stdout


def one_size(size: int, args, work: Path) -> dict:
    row: dict = {"size": size}
    partial = OUT / f"{size:.0e}-partial.json"  # the row so far, should a later step hang
    in_memory = size <= args.memory_max
    kb = work / ("kb.nt" if in_memory else "kb.nt.gz")
    questions = work / "kb.questions.jsonl"
    reused = args.reuse and partial.exists() and questions.exists()
    if reused:  # generated and loaded by an earlier run into this --work folder
        row = {k: v for k, v in json.loads(partial.read_text()).items()
               if k in ("size", "generate", "load_s", "loaded", "load_errors")}
    else:
        row["generate"] = timed([*KOPLC, "kb", "generate", "--triples", str(size), "--like",
                                 args.like, "--seed", str(args.seed), "--out", str(kb)],
                                6 * 3600, work / "generate.log")
    server = start_virtuoso(work / "virtuoso", args.http_port)
    try:
        if not reused:
            row.update(bulk_load(server, kb))
        partial.write_text(json.dumps(row, indent=1))
        row["virtuoso_db_gib"] = round(sum(
            f.stat().st_size for f in (work / "virtuoso").glob("*.db")) / 2 ** 30, 2)
        if args.no_compile:
            return row
        url = server.graph_endpoint(GRAPH)
        if "endpoint" in args.modes and endpoint_mode_available():
            # koplc's indexes of the endpoint, ahead of the questions: the name table
            # (keyset pages of --page names) and the explored pool the llm front end takes.
            for step, argv in (("index", ["index", url, "--page", str(args.page),
                                          "--timeout", "900"]),
                               ("explore", ["explore", url])):
                row[step] = timed([*KOPLC, *argv, "--encoding", "wikidata"], args.timeout,
                                  OUT / f"{size:.0e}-{step}.log")
                partial.write_text(json.dumps(row, indent=1))
        for frontend in args.frontends if "endpoint" in args.modes else ():
            if endpoint_mode_available():
                forget_queries(url)
                row[f"{frontend} endpoint"] = evaluate(
                    frontend, url, questions, OUT / f"{size:.0e}-{frontend}-endpoint",
                    args.limit, args.timeout, endpoint=True)
                partial.write_text(json.dumps(row, indent=1))
            else:
                row[f"{frontend} endpoint"] = {"error": "endpoint mode not available"}
    finally:
        server.stop()
    for frontend in args.frontends if "memory" in args.modes and not args.no_compile else ():
        row[f"{frontend} memory"] = evaluate(
            frontend, str(kb), questions, OUT / f"{size:.0e}-{frontend}-memory", args.limit,
            args.timeout, endpoint=False) if in_memory else \
            {"error": f"not run: over --memory-max {args.memory_max:.0e} triples"}
    return row


def table(rows: list[dict], frontends: list[str]) -> str:
    lines = ["| triples | written | generate s (MiB) | loaded | load s | Virtuoso GiB | "
             "index s (MiB) | explore s (MiB) | mode | setup s (1st q s) | median s/q | "
             "p95 s/q | Hits@1 | koplc peak MiB |", "|---" * 14 + "|"]
    for row in rows:
        head = (f"| {row['size']:.0e} | {row.get('written', '-')} | "
                f"{row['generate']['seconds']} ({row['generate']['peak_rss_mib']}) | "
                f"{row.get('loaded', '-')} | "
                f"{row.get('load_s', '-')} | {row.get('virtuoso_db_gib', '-')} | "
                f"{_step(row, 'index')} | {_step(row, 'explore')} |")
        runs = [(f"{f} {m}", row.get(f"{f} {m}")) for f in frontends
                for m in ("endpoint", "memory")] or [("-", None)]
        for mode, run in runs:
            if run is None:
                cells = " - | - | - | - | - |"
            elif "error" in run:
                cells = f" {run['error'][-80:].strip().replace('|', '/')} | - | - | - | " \
                        f"{run.get('peak_rss_mib', '-')} |"
            else:
                cells = (f" {run['setup_s']} ({run.get('first_s', '-')}) | {run['median_s']} | "
                         f"{run['p95_s']} | "
                         f"{run['hits1']} ({run['questions']} q) | {run['peak_rss_mib']} |")
            lines.append(f"{head} {mode} |{cells}")
            head = "| | | | | | | | |"
    return "\n".join(lines)


def _step(row: dict, step: str) -> str:
    run = row.get(step)
    return f"{run['seconds']} ({run['peak_rss_mib']})" if run else "-"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="*", type=lambda t: int(float(t)),
                        default=[10 ** 6, 10 ** 7, 10 ** 8])
    parser.add_argument("--like", default="metaqa")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--frontends", nargs="*", default=["llm", "byokg"])
    parser.add_argument("--limit", type=int, default=3, help="questions per kind (6 kinds)")
    parser.add_argument("--memory-max", type=lambda t: int(float(t)), default=2 * 10 ** 6,
                        help="in-memory mode only up to this many triples")
    parser.add_argument("--timeout", type=float, default=3600, help="per koplc eval, seconds")
    parser.add_argument("--modes", nargs="*", default=["endpoint", "memory"],
                        help="compile on the endpoint, in memory, or both (default)")
    parser.add_argument("--no-compile", action="store_true", help="generate and load only")
    parser.add_argument("--page", type=int, default=50_000,
                        help="names a query while indexing (this Virtuoso sorts that many)")
    parser.add_argument("--work", help="scratch folder (default: a temporary one, removed)")
    parser.add_argument("--reuse", action="store_true",
                        help="with --work: take the KB an earlier run generated and loaded there")
    parser.add_argument("--http-port", type=int,
                        help="Virtuoso's HTTP port (default: a free one); with --reuse, the "
                        "port of the earlier run keeps the endpoint's URL, so koplc's name "
                        "table and query cache of it in the user cache are read, not rebuilt")
    args = parser.parse_args()
    if virtuoso_server.VIRTUOSO is None or virtuoso_server.ISQL is None:
        sys.exit(f"virtuoso-t / isql-vt not found; {virtuoso_server.INSTALL}")
    OUT.mkdir(parents=True, exist_ok=True)
    frontends = [] if args.no_compile else args.frontends
    results = OUT / "results.json"
    kept = {row["size"]: row for row in json.loads(results.read_text())} \
        if results.exists() else {}
    rows = []
    for size in args.sizes:
        work = Path(args.work) / f"{size:.0e}" if args.work else \
            Path(tempfile.mkdtemp(prefix="koplc-scale-"))
        (work / "virtuoso").mkdir(parents=True, exist_ok=True)
        try:
            row = one_size(size, args, work)
            summary = (work / "generate.log").read_text().strip().splitlines()
            if summary and summary[-1].startswith("{"):
                row["written"] = json.loads(summary[-1])["triples"]
            rows.append({**kept.get(size, {}), **row})
            kept[size] = rows[-1]
        finally:
            if not args.work:
                shutil.rmtree(work, ignore_errors=True)
        results.write_text(json.dumps(sorted(kept.values(), key=lambda r: r["size"]), indent=1))
        print(table(rows, frontends), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
