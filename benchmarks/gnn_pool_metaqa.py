"""Zero-shot MetaQA: the GNN trained only on an explored pool of the whole MetaQA KB (no MetaQA
question in training), then Hits@1 per hop on MetaQA's dev questions.

    OMP_NUM_THREADS=1 /usr/bin/time -v .venv/bin/python benchmarks/gnn_pool_metaqa.py \\
        --pool build/gnn-pool/metaqa-pool.jsonl --out build/gnn-pool/metaqa --limit-dev 1000

`--pool` is a `koplc explore ... --schema metaqa` pool (without it, the KB's cached pool,
explored first when there is none). Training resumes in `--out`; `--eval-only` evaluates the
model there. Prints one JSON line per epoch, then per hop the dev questions used and Hits@1 of
the GNN, of its emitted program and of the front end's answer (the first `--limit-dev` lines of
each qa_{1,2,3}hop_dev.tsv; 0 for all).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from koplc import api

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "metaqa" / "full"


def dev_sample(hop: int, limit: int, folder: Path, skip: int = 0) -> Path:
    """The hop's dev questions after the first `skip`, the first `limit` of them (all for 0),
    as a file."""
    lines = (DATA / f"qa_{hop}hop_dev.tsv").read_text(encoding="utf-8").splitlines()[skip:]
    path = folder / f"qa_{hop}hop_dev.tsv"
    path.write_text("\n".join(lines[:limit] if limit else lines) + "\n", encoding="utf-8")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kb", default=str(DATA / "kb.txt"))
    parser.add_argument("--pool")
    parser.add_argument("--out", default="build/gnn-pool/metaqa")
    parser.add_argument("--limit-dev", type=int, default=1000)
    parser.add_argument("--skip-dev", type=int, default=0, help="leave out the first N dev "
                        "questions of each hop (1000: the report half, past the tune half)")
    parser.add_argument("--eval-only", action="store_true")
    parser.add_argument("--epochs", type=int)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--size", type=int)
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
                                 log=lambda row: print(json.dumps(row), flush=True))
        print(json.dumps({"training_seconds": round(time.perf_counter() - clock, 1),
                          "questions": record["questions"], "examples": record["examples"]}),
              flush=True)
    folder = Path(tempfile.mkdtemp(prefix="gnn-dev-"))
    files = [dev_sample(hop, args.limit_dev, folder, args.skip_dev) for hop in (1, 2, 3)]
    clock = time.perf_counter()
    metrics = eval_model(kb, args.out, files)
    print(json.dumps({"eval_seconds": round(time.perf_counter() - clock, 1)}))
    for split, row in metrics.items():
        print(split, json.dumps({k: row[k] for k in ("n", "hits1", "program_hits1", "final_f1",
                                                     "reachable")}))


if __name__ == "__main__":
    main()
