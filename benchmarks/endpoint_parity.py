"""Endpoint mode against in-memory mode: the same front end, the same questions, once on a KB
file and once on the same KB served by a SPARQL endpoint; how many answer sets agree.

    .venv/bin/python benchmarks/endpoint_parity.py --frontend byokg --kb metaqa --limit 300
    .venv/bin/python benchmarks/endpoint_parity.py --frontend byokg --kb starwars
    .venv/bin/python benchmarks/endpoint_parity.py --frontend agent --agent-k 1 --kb starwars
    .venv/bin/python benchmarks/endpoint_parity.py --frontend llm --kb cars --same-pool

The KB is exported in `--encoding` (plain for MetaQA, wikidata for the development KBs) and
served read-only by Oxigraph's server (PyPI `oxigraph`, the dev extra) on 127.0.0.1. Writes
both runs' koplc eval reports under build/endpoint-parity/<kb>-<frontend>/ and prints a table
per question kind: questions, agreeing answer sets, Hits@1 of each mode, median seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path
from statistics import median

from koplc import api

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data" / "metaqa" / "full"
DEVKBS = ROOT / "tests" / "fixtures" / "devkbs"
# name -> (KB file, schema, question files, encoding)
KBS = {
    "metaqa": (SHARED / "kb.txt", "metaqa",
               [SHARED / f"qa_{hop}hop_dev.tsv" for hop in (1, 2, 3)], "plain"),
    "starwars": (DEVKBS / "starwars" / "kb.nt", None,
                 [DEVKBS / "starwars" / "questions.jsonl"], "wikidata"),
    "isotopes": (DEVKBS / "isotopes" / "kb.json", None,
                 [DEVKBS / "isotopes" / "questions.jsonl"], "wikidata"),
    "flights": (DEVKBS / "flights" / "kb.txt", str(DEVKBS / "flights" / "schema.json"),
                [DEVKBS / "flights" / "questions.jsonl"], "wikidata"),
    "bakeoff": (DEVKBS / "bakeoff" / "kb.json", None,
                [DEVKBS / "bakeoff" / "questions.jsonl"], "wikidata"),
    "cars": (DEVKBS / "cars" / "kb.nt", None, [DEVKBS / "cars" / "questions.jsonl"], "wikidata"),
    "mammals": (DEVKBS / "mammals" / "kb.ttl", None,
                [DEVKBS / "mammals" / "questions.jsonl"], "wikidata"),
}
OXIGRAPH = shutil.which("oxigraph") or str(Path(sys.executable).parent / "oxigraph")


def serve(ntriples: Path, folder: Path) -> tuple[subprocess.Popen, str]:
    """Oxigraph's read-only server over the N-Triples file; (process, query URL)."""
    subprocess.run([OXIGRAPH, "load", "--location", str(folder / "db"), "--file",
                    str(ntriples)], check=True, capture_output=True)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([OXIGRAPH, "serve-read-only", "--location", str(folder / "db"),
                                "--bind", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}/query"
    ask = urllib.parse.urlencode({"query": "ASK {}"})
    for _ in range(240):
        try:
            with urllib.request.urlopen(f"{url}?{ask}", timeout=2):
                return process, url
        except OSError:
            time.sleep(0.25)
    process.kill()
    raise SystemExit("oxigraph serve did not answer within 60 s")


def memory_pool(kb_file: Path, schema) -> str:
    """The pool file explored from the KB in memory (what in-memory mode takes by itself)."""
    from koplc.kopl.exploration import pool_path
    from koplc.llm.symkgqa.kb_pool import explored_pool

    kb = api.load_kb(kb_file, schema=schema)
    explored_pool(kb, kb.source)
    return str(pool_path(kb.source))


def predictions(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "predictions.jsonl").open(encoding="utf-8")]


def table(memory: list[dict], endpoint: list[dict]) -> str:
    kinds: dict[str, list[tuple[dict, dict]]] = {}
    for a, b in zip(memory, endpoint, strict=True):
        kinds.setdefault(a["kind"], []).append((a, b))
    kinds["all"] = [pair for pairs in list(kinds.values()) for pair in pairs]
    lines = ["| kind | questions | same answers | Hits@1 in memory | Hits@1 on endpoint | "
             "median s in memory | median s on endpoint |", "|---|---|---|---|---|---|---|"]
    for kind, pairs in kinds.items():
        same = sum(sorted(a["answer"] or []) == sorted(b["answer"] or []) for a, b in pairs)
        hits = [100 * sum(p[i]["hits1"] for p in pairs) / len(pairs) for i in (0, 1)]
        secs = [median(p[i]["seconds"].get("total", 0.0) for p in pairs) for i in (0, 1)]
        lines.append(f"| {kind} | {len(pairs)} | {same} | {hits[0]:.1f} | {hits[1]:.1f} | "
                     f"{secs[0]:.2f} | {secs[1]:.2f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frontend", default="byokg")
    parser.add_argument("--kb", choices=list(KBS), default="metaqa")
    parser.add_argument("--limit", type=int, help="questions of each kind (default: all)")
    parser.add_argument("--hops", type=int, nargs="+", choices=(1, 2, 3),
                        help="MetaQA: these hops' questions only (default: all three)")
    parser.add_argument("--set", choices=("questions", "more", "absent"), default="questions",
                        help="a development KB's question file: questions.jsonl (both "
                        "halves), more_questions.jsonl or absent_questions.jsonl")
    parser.add_argument("--agent-k", type=int, help="the agent's candidate actions a round "
                        "(1: greedy; default: the agent's own)")
    parser.add_argument("--same-pool", action="store_true", help="llm, agent: both modes take "
                        "the demonstrations explored from the KB in memory (by default the "
                        "endpoint explores its own, on a fragment around sampled entities)")
    args = parser.parse_args()
    settings = {}
    if args.agent_k:
        from koplc.llm.agent.frontend import AgentSettings
        from koplc.llm.agent.loop import AgentOptions

        settings["options"] = AgentSettings(loop=AgentOptions(k=args.agent_k))
    kb_file, schema, files, encoding = KBS[args.kb]
    if args.set != "questions" and args.kb != "metaqa":
        files = [f.with_name(f"{args.set}_questions.jsonl") for f in files]
    if args.hops and args.kb == "metaqa":
        files = [f for f in files if any(f"qa_{h}hop" in f.name for h in args.hops)]
    if args.same_pool:
        settings["pool"] = memory_pool(kb_file, schema)
    suffix = ("" if args.set == "questions" else f"-{args.set}") + \
        ("-same-pool" if args.same_pool else "")
    out = ROOT / "build" / "endpoint-parity" / f"{args.kb}{suffix}-{args.frontend}"
    folder = Path(tempfile.mkdtemp(prefix="koplc-parity-"))
    try:
        ntriples = folder / "kb.nt"
        api.kb_export(api.load_kb(kb_file, schema=schema), encoding, ntriples)
        process, url = serve(ntriples, folder)
        try:
            runs = {}
            for mode, kb in (("memory", str(kb_file)), ("endpoint", url)):
                print(f"{mode}: koplc eval --frontend {args.frontend}", file=sys.stderr)
                api.evaluate(files, args.frontend, out=out / mode, kb_path=kb,
                             schema=schema if mode == "memory" else None, limit=args.limit,
                             progress=True, encoding=encoding if mode == "endpoint" else None,
                             response_cache="off", **settings)
                runs[mode] = predictions(out / mode)
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    text = table(runs["memory"], runs["endpoint"])
    (out / "parity.md").write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
