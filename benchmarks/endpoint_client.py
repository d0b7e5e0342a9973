"""The SPARQL endpoint client's cost a query: one kept-alive connection a thread (koplc's) against
a new connection a query (urllib, the anchor it replaced), on Oxigraph's server from PyPI over
a KB of 1,000 triples, each query one triple pattern.

    .venv/bin/python benchmarks/endpoint_client.py [--queries 1000] [--repeats 3]

Prints the median milliseconds a query of each, alternating, and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from endpoint_parity import serve  # Oxigraph's read-only server, as the parity benchmark runs it

from koplc.sparql_backend.endpoint import Endpoint

QUERY = "SELECT ?o WHERE {{ <urn:e{}> <urn:p> ?o }}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        chain = Path(folder) / "kb.nt"  # 1,000 triples, each node linked to the next
        chain.write_text("".join(f"<urn:e{i}> <urn:p> <urn:e{i + 1}> .\n" for i in range(1000)))
        process, url = serve(chain, Path(folder))
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
