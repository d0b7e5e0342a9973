"""The GNN front end on the development KBs (tests/fixtures/devkbs), trained from each KB's own
explored pool (no labelled question): Hits@1 per question kind on one half, what it hands on.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/gnn_devkbs.py --half report

Each KB's GNN is trained on first use into the user cache (`--train-if-missing`; pool-training
defaults), then benchmarks/devkbs.py's run (koplc eval's report files under
build/devkbs/gnn-<half>/) gives the table; below it, per KB, the questions handed on (failure
`unfit`: a shape a relation path does not answer) and those with no topic (failure `link`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from devkbs import DEVKBS, KBS, ROOT, run, table  # noqa: E402

from koplc.gnn.frontend import GnnOptions  # noqa: E402


def failures(out: Path, kb: str) -> dict[str, Counter]:
    """Per failure stage, the kinds of the questions that failed there."""
    found: dict[str, Counter] = {}
    for line in (out / kb / "predictions.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("failure") in ("unfit", "link"):
            found.setdefault(record["failure"], Counter())[record.get("kind", "?")] += 1
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--half", choices=("tune", "report"), required=True)
    parser.add_argument("--kbs", nargs="+", choices=sorted(KBS), default=list(KBS))
    args = parser.parse_args()
    out = ROOT / "build" / "devkbs" / f"gnn-{args.half}"
    options = GnnOptions(train_if_missing=True)
    reports, seconds = {}, {}
    for kb in args.kbs:
        clock = time.perf_counter()
        reports[kb] = run(kb, "gnn", args.half, out, options=options)
        seconds[kb] = round(time.perf_counter() - clock, 1)
    text = table(reports)
    (out / "table.md").write_text(text + "\n", encoding="utf-8")
    print(text)
    for kb in args.kbs:
        print(kb, json.dumps({"seconds (training on first use included)": seconds[kb],
                              **{k: dict(v) for k, v in failures(out, kb).items()}}))
    print(f"questions: {DEVKBS}/*/questions.jsonl")


if __name__ == "__main__":
    main()
