"""Zero-shot MetaQA: the GNN trained only on an explored pool of the whole MetaQA KB (no MetaQA
question in training), then Hits@1 per hop on MetaQA's dev questions.

    OMP_NUM_THREADS=1 /usr/bin/time -v .venv/bin/python benchmarks/gnn_pool_metaqa.py \\
        --pool build/gnn-pool/metaqa-pool.jsonl --out build/gnn-pool/metaqa --half tune

`--pool` is a `koplc explore ... --schema metaqa` pool (without it, the KB's cached pool,
explored first when there is none). Training resumes in `--out`; `--eval-only` evaluates the
model there. Prints one JSON line per epoch, then per hop the dev questions used and Hits@1 of
the GNN, of its emitted program and of the front end's answer, on one half of each
qa_{1,2,3}hop_dev.tsv (`in_half`: constants are set on the tune half, figures reported on the
report half).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from koplc import api

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "metaqa" / "full"


def in_half(hop: int, index: int, half: str) -> bool:
    """Whether the hop's dev question at line `index` is in `half`: "tune" is the first 1,000
    lines of each hop, and of the 1-hop file, which is sorted by question type (its first 1,000
    are two types of 17), also every 10th line after them; "report" is every other line; "all"
    is every line."""
    tune = index < 1000 or (hop == 1 and index % 10 == 0)
    return half == "all" or tune == (half == "tune")


def dev_sample(hop: int, half: str, folder: Path, limit: int = 0) -> Path:
    """The hop's dev questions in `half`, the first `limit` of them (all for 0), as a file."""
    lines = (DATA / f"qa_{hop}hop_dev.tsv").read_text(encoding="utf-8").splitlines()
    kept = [line for i, line in enumerate(lines) if in_half(hop, i, half)]
    path = folder / f"qa_{hop}hop_dev.tsv"
    path.write_text("\n".join(kept[:limit] if limit else kept) + "\n", encoding="utf-8")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kb", default=str(DATA / "kb.txt"))
    parser.add_argument("--pool")
    parser.add_argument("--out", default="build/gnn-pool/metaqa")
    parser.add_argument("--half", choices=("tune", "report", "all"), default="tune",
                        help="which of each hop's dev questions (`in_half`)")
    parser.add_argument("--limit-dev", type=int, default=0, help="the first N of them (0: all)")
    parser.add_argument("--eval-only", action="store_true")
    parser.add_argument("--epochs", type=int)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--size", type=int)
    parser.add_argument("--members", type=int, help="networks answering as one (default 4)")
    parser.add_argument("--seed", type=int, default=0, help="the training's seed (shuffling, "
                        "initial weights): 3-hop Hits@1 moves by up to 20 points from seed to "
                        "seed, so compare over several")
    args = parser.parse_args()
    from koplc.gnn.frontend import eval_model
    from koplc.gnn.pool_training import train_from_pool

    kb = api.load_kb(args.kb, schema="metaqa")
    if not args.eval_only:
        clock = time.perf_counter()
        record = train_from_pool(kb, args.kb, args.out, pool=args.pool, epochs=args.epochs,
                                 limit=args.limit, size=args.size, seed=args.seed,
                                 members=args.members,
                                 log=lambda row: print(json.dumps(row), flush=True))
        print(json.dumps({"training_seconds": round(time.perf_counter() - clock, 1),
                          "questions": record["questions"], "examples": record["examples"]}),
              flush=True)
    folder = Path(tempfile.mkdtemp(prefix="gnn-dev-"))
    files = [dev_sample(hop, args.half, folder, args.limit_dev) for hop in (1, 2, 3)]
    clock = time.perf_counter()
    metrics = eval_model(kb, args.out, files)
    print(json.dumps({"eval_seconds": round(time.perf_counter() - clock, 1)}))
    for split, row in metrics.items():
        print(split, json.dumps({k: row[k] for k in ("n", "hits1", "program_hits1", "final_f1",
                                                     "reachable")}))


if __name__ == "__main__":
    main()
