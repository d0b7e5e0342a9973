"""Train and eval files from MetaQA's dev questions, so that no question is both.

MetaQA's dev set (``dev_all/qa_{h}hop_dev_all.tsv``) is the only labelled data here (its test split
stays held out). The verified files (``qa_{h}hop_dev.tsv``, column 0 the line index in dev_all)
are the questions whose type chain gives exactly the gold set. On the whole KB every 2-hop
question is verified, so "dev_all minus verified" leaves no 2-hop question to train on. The split:
train on every unverified question plus the verified ones whose line index is 0 mod `every`;
evaluate on the other verified questions only.

On the whole KB the verified 3-hop questions are exactly those whose gold set is the plain type
chain, so they say nothing about the questions whose gold leaves out what the chain reaches back
through the topic. `train_mix.tsv` (what `koplc gnn train` is given) therefore takes every 1- and
2-hop training question but only every `mix_3hop`-th 3-hop one (3-hop questions are plentiful and
easy), and the unverified 3-hop questions left out of it are held out in `eval_3hop_inexact.tsv`.

    python -m koplc.gnn.splits --dev-all DIR --verified DIR --out DIR [--every 5] [--mix-3hop 7]
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


def write_splits(dev_all_dir: Path, verified_dir: Path, out: Path, every: int = 5,
                 mix_3hop: int = 7) -> dict:
    """Write out/train_{h}hop.tsv, out/eval_{h}hop.tsv, out/train_mix.tsv and
    out/eval_3hop_inexact.tsv; the counts per file."""
    files: dict[str, list[str]] = {"train_mix": []}
    for hop in HOPS:
        verified = verified_dir / f"qa_{hop}hop_dev.tsv"
        train, held = split_hop(dev_all_dir / f"qa_{hop}hop_dev_all.tsv", verified, every)
        files[f"train_{hop}hop"], files[f"eval_{hop}hop"] = train, held
        if hop < 3:
            files["train_mix"] += train
            continue
        mixed = train[mix_3hop - 1::mix_3hop]
        files["train_mix"] += mixed
        exact = {line.split("\t")[1] for line in verified.read_text(encoding="utf-8").splitlines()
                 if line.strip()}
        left = set(mixed)
        files["eval_3hop_inexact"] = [line for line in train
                                      if line not in left and line.split("\t")[0] not in exact]
    out.mkdir(parents=True, exist_ok=True)
    for name, lines in files.items():
        (out / f"{name}.tsv").write_text("".join(f"{x}\n" for x in lines), encoding="utf-8")
    return {name: len(lines) for name, lines in files.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dev-all", type=Path, required=True, help="folder of dev_all tsv files")
    parser.add_argument("--verified", type=Path, required=True,
                        help="folder of the verified qa_{h}hop_dev.tsv files of the KB")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--every", type=int, default=5,
                        help="verified questions with line index 0 mod this go to training")
    parser.add_argument("--mix-3hop", type=int, default=7,
                        help="train_mix.tsv takes every this-th 3-hop training question")
    args = parser.parse_args(argv)
    counts = write_splits(args.dev_all, args.verified, args.out, args.every, args.mix_3hop)
    for name, n in counts.items():
        sys.stdout.write(f"{name}: {n}\n")


if __name__ == "__main__":
    main()
