"""The SPARQL endpoint client's cost a query: one kept-alive connection a thread (koplc's) against
a new connection a query (urllib, the anchor it replaced), on Oxigraph's server from PyPI over
a KB of 1,000 triples, each query one triple pattern.

    .venv/bin/python benchmarks/endpoint_client.py [--queries 1000] [--repeats 3]

Prints the median milliseconds a query of each, alternating, and their ratio.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

from koplc.sparql_backend.endpoint import Endpoint

OXIGRAPH = str(Path(sys.executable).parent / "oxigraph")
QUERY = "SELECT ?o WHERE {{ <urn:e{}> <urn:p> ?o }}"


def serve(folder: Path) -> tuple[subprocess.Popen, str]:
    """Oxigraph's read-only server over a chain of 1,000 triples; (process, query URL)."""
    (folder / "kb.nt").write_text("".join(f"<urn:e{i}> <urn:p> <urn:e{i + 1}> .\n"
                                          for i in range(1000)))
    subprocess.run([OXIGRAPH, "load", "--location", str(folder / "db"), "--file",
                    str(folder / "kb.nt")], check=True, capture_output=True)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([OXIGRAPH, "serve-read-only", "--location", str(folder / "db"),
                                "--bind", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/query"
    for _ in range(200):
        try:
            urllib.request.urlopen(f"{url}?{urllib.parse.urlencode({'query': 'ASK {}'})}",
                                   timeout=1).close()
            return process, url
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("oxigraph serve did not answer")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        process, url = serve(Path(folder))
        try:
            endpoint = Endpoint(url)
            ways = {"kept-alive (koplc)": endpoint._send,
                    "a connection a query (urllib)": endpoint._send_following}
            seconds: dict[str, list[float]] = {name: [] for name in ways}
            for _ in range(args.repeats):
                for name, send in ways.items():
                    start = time.perf_counter()
                    for i in range(args.queries):
                        send(QUERY.format(i % 1000))
                    seconds[name].append((time.perf_counter() - start) / args.queries)
        finally:
            process.terminate()
            process.wait(timeout=30)
    medians = {name: statistics.median(s) * 1000 for name, s in seconds.items()}
    print("| client | ms a query (median of runs) |\n|---|---|")
    for name, ms in medians.items():
        print(f"| {name} | {ms:.2f} |")
    kept, anchor = medians.values()
    print(f"\nratio kept-alive / anchor: {kept / anchor:.2f}")


if __name__ == "__main__":
    main()
