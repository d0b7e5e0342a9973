"""Train and eval files from MetaQA's dev questions, so that no question is both.

MetaQA's dev set (``dev_all/qa_{h}hop_dev_all.tsv``) is the only labelled data here (its test split
stays held out). The verified files (``qa_{h}hop_dev.tsv``, column 0 the line index in dev_all)
are the questions whose type chain gives exactly the gold set. On the whole KB every 2-hop
question is verified, so "dev_all minus verified" leaves no 2-hop question to train on. The split:
train on every unverified question plus the verified ones whose line index is 0 mod `every`;
evaluate on the other verified questions only.

    python -m koplc.gnn.splits --dev-all DIR --verified DIR --out DIR [--every 5]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HOPS = (1, 2, 3)


def split_hop(dev_all: Path, verified: Path, every: int) -> tuple[list[str], list[str]]:
    """(train lines in dev_all's format, eval lines in the verified format) of one hop."""
    lines = dev_all.read_text(encoding="utf-8").splitlines()
    checked = {int(line.split("\t", 1)[0]): line
               for line in verified.read_text(encoding="utf-8").splitlines() if line.strip()}
    train = [line for i, line in enumerate(lines)
             if line.strip() and (i not in checked or i % every == 0)]
    held = [line for i, line in sorted(checked.items()) if i % every != 0]
    return train, held


def write_splits(dev_all_dir: Path, verified_dir: Path, out: Path, every: int = 5) -> dict:
    """Write out/train_{h}hop.tsv and out/eval_{h}hop.tsv; the counts per file."""
    out.mkdir(parents=True, exist_ok=True)
    counts = {}
    for hop in HOPS:
        train, held = split_hop(dev_all_dir / f"qa_{hop}hop_dev_all.tsv",
                                verified_dir / f"qa_{hop}hop_dev.tsv", every)
        for kind, lines in (("train", train), ("eval", held)):
            (out / f"{kind}_{hop}hop.tsv").write_text("".join(f"{x}\n" for x in lines),
                                                       encoding="utf-8")
            counts[f"{kind}_{hop}hop"] = len(lines)
    return counts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dev-all", type=Path, required=True, help="folder of dev_all tsv files")
    parser.add_argument("--verified", type=Path, required=True,
                        help="folder of the verified qa_{h}hop_dev.tsv files of the KB")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--every", type=int, default=5,
                        help="verified questions with line index 0 mod this go to training")
    args = parser.parse_args(argv)
    for name, n in write_splits(args.dev_all, args.verified, args.out, args.every).items():
        sys.stdout.write(f"{name}: {n}\n")


if __name__ == "__main__":
    main()
