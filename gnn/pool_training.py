"""KBIGER on any KB: trained from the KB's explored pool, with no labelled question.

`train_from_pool(kb, kb_path)` reads the KB's explored pool (`koplc explore`; explored first, with
a progress bar, when the user cache has none for the KB), turns its relation-chain programs into
training questions (`pool_data`) and trains an ensemble of networks (`members`, each in its own
`member-K` folder) into the KB's model folder in the user cache (`model_folder`), or into `out`.
Training is resumable: each member's checkpoint is written atomically after every epoch, and
`training.json` records the KB's content hash, the pool and the options; once every member's
epochs are done the members are written together as the folder's own checkpoint, and the
model is ready. A KB whose content changed, or a folder trained with other options, is trained
afresh only when asked (`fresh`).
"""

from __future__ import annotations

import json
import random
import shutil
import sys
import time
from pathlib import Path

from koplc.gnn import checkpoint
from koplc.gnn.data import examples_of
from koplc.gnn.errors import GnnError
from koplc.gnn.model import Config
from koplc.gnn.pool_data import path_questions, usable
from koplc.kopl.atomic import write_atomically
from koplc.kopl.exploration import ExploreOptions, explore_to_file, pool_for, pool_path, read_pool
from koplc.kopl.exploration.pool import PoolError, content_hash
from koplc.kopl.user_cache import derived_path

RECORD = "training.json"
# Pool training's defaults, sized for a shared 2-core machine: the pool's paths teach each step,
# so the teacher (three networks' worth of work) is off; questions are read as content words.
# `members` networks are trained from seeds seed, seed + 1, ... and answer as one (their
# reasoning averaged, `model.Ensemble`): one network's 3-hop accuracy moves by up to 20 points
# from seed to seed. Four: MetaQA dev's tune half, 3-hop 52.7 (mean of four seeds) -> 60.0.
DEFAULTS = {"epochs": 3, "size": 1000, "limit": 6000, "batch_size": 32, "lr": 3e-3,
            "teacher": False, "content_words": True, "members": 4}


def model_folder(kb_path: str | Path) -> Path:
    """Where the GNN trained from the KB file at `kb_path` lives in the user cache."""
    return derived_path("gnn-models", kb_path)


def train_command(kb_path: str | Path) -> str:
    """The command that trains (or resumes training) the GNN of a KB file (a triples file is
    read under the --schema it was loaded with)."""
    schema = " [--schema NAME|FILE]" if Path(kb_path).suffix == ".txt" else ""
    return f"koplc gnn train --kb {kb_path}{schema}"


def read_record(folder: Path) -> dict | None:
    """The folder's training record, or None when it has none (or an unreadable one)."""
    try:
        return json.loads((Path(folder) / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def ready_model(kb_path: str | Path, folder: str | Path | None = None) -> Path:
    """The folder of a finished GNN trained on the KB file as it is now; GnnError saying what to
    run when there is none, its training was interrupted, or the KB has changed since."""
    folder = Path(folder) if folder else model_folder(kb_path)
    record = read_record(folder)
    command = train_command(kb_path)
    if record is None or (record.get("complete") and not (folder / checkpoint.NAME).is_file()):
        raise GnnError(f"{kb_path}: no GNN trained on this KB yet; train it from the KB's "
                       f"explored pool with `{command}` (or pass --train-if-missing)",
                       code="gnn-no-model")
    if record.get("kb_hash") != content_hash(kb_path):
        raise GnnError(f"{kb_path}: the KB has changed since its GNN was trained; train it "
                       f"again with `{command} --fresh`", code="gnn-stale-model")
    if not record.get("complete"):
        raise GnnError(f"{kb_path}: the GNN's training stopped after epoch "
                       f"{record.get('epochs_done', 0)} of {_epochs(record['options'])}; "
                       f"resume it with `{command}`", code="gnn-interrupted")
    return folder


def explored_entries(kb, kb_path: str | Path, pool: str | Path | None = None,
                     programs: int | None = None, progress: bool = True) -> tuple[list, str]:
    """(the pool's entries, where they came from): the file `pool`, else the KB's cached
    explored pool, else a pool explored now into the user cache."""
    if pool is not None:
        if not Path(pool).is_file():
            raise GnnError(f"{pool}: no such pool file", code="gnn-data")
        return read_pool(pool), str(pool)
    cached = pool_for(kb_path)
    if cached is not None and (programs is None or len(cached) >= programs):
        return cached, str(pool_path(kb_path))
    options = ExploreOptions() if programs is None else ExploreOptions(programs=programs)
    from tqdm import tqdm

    bar = tqdm(total=options.programs, desc="explore", unit="program", file=sys.stderr,
               disable=not progress or None, mininterval=0.5)
    try:
        explore_to_file(kb, pool_path(kb_path), options, kb_path=kb_path,
                        progress=lambda kept: bar.update(1))
    except PoolError as err:
        raise GnnError(f"{err.diagnostics[0].message}; the KB is too small to train the GNN on",
                       code="gnn-too-small") from err
    finally:
        bar.close()
    return pool_for(kb_path) or [], str(pool_path(kb_path))


def train_from_pool(kb, kb_path: str | Path, out: str | Path | None = None, *,
                    pool: str | Path | None = None, programs: int | None = None,
                    fresh: bool = False, seed: int = 0, valid_fraction: float = 0.03,
                    progress: bool = True, log=None, **options) -> dict:
    """Train KBIGER on the relation-path questions of the KB's explored pool (resuming an
    interrupted training in the same folder); returns the training record."""
    from koplc.gnn.frontend import setup
    from koplc.gnn.train import train

    kb_path = Path(kb_path)
    out = Path(out) if out else model_folder(kb_path)
    wanted = {**DEFAULTS, **{k: v for k, v in options.items() if v is not None}}
    training = {k: wanted.pop(k) for k in ("epochs", "limit", "batch_size", "lr", "members")}
    record = {"kb": str(kb_path.resolve()), "kb_hash": content_hash(kb_path),
              "options": {**training, **wanted, "seed": seed, "programs": programs,
                          "pool": str(pool) if pool else None}}
    _claim(out, record, fresh)
    started = time.perf_counter()
    entries, source = explored_entries(kb, kb_path, pool, programs, progress)
    config = Config(**wanted)
    parts = setup(kb, config, out)
    config.n_types, config.vocab = parts.graph.n_types, parts.tokenizer.vocab_size
    questions = usable(path_questions(entries, kb, parts.graph.relations, config.steps), source)
    random.Random(seed).shuffle(questions)
    questions = questions[:training["limit"]] if training["limit"] else questions
    parts.retriever.prepare([q.topic for q in questions])
    examples = examples_of([(q, q.topic) for q in questions], parts.retriever, parts.tokenizer)
    if len(examples) < 2:
        raise GnnError(f"{source}: no relation-path question has its answers within its "
                       f"subgraph of {config.size} nodes; the KB is too small to train on",
                       code="gnn-too-small")
    cut = max(1, int(len(examples) * valid_fraction))
    members = [out / f"member-{k}" for k in range(training["members"])]
    history: list[dict] = []
    for k, folder in enumerate(members):

        def epoch_done(row: dict, k: int = k) -> None:
            row = {"member": k + 1, **row}
            _write_record(out, {**record, "epochs_done": k * training["epochs"] + row["epoch"],
                                "complete": False})
            if log:
                log(row)

        history += [{"member": k + 1, **row} for row in train(
            examples[cut:], examples[:cut], folder, config, parts.graph.relations,
            epochs=training["epochs"], batch_size=training["batch_size"], lr=training["lr"],
            seed=seed + k, progress=progress, log=epoch_done, tokenizer=parts.tokenizer)]
    checkpoint.save_ensemble(out, members, parts.graph.relations)
    done = {**record, "pool": source, "pool_entries": len(entries), "questions": len(questions),
            "examples": len(examples), "epochs_done": len(history), "complete": True,
            "history": history, "seconds": round(time.perf_counter() - started, 1)}
    _write_record(out, done)
    return done


def _epochs(options: dict) -> int:
    """All the epochs a pool training runs: each member's."""
    return options["epochs"] * options.get("members", 1)


def _claim(out: Path, record: dict, fresh: bool) -> None:
    """Make `out` hold this training: resume one with the same KB and options, start over
    when `fresh`, else GnnError for a folder that holds another."""
    held = read_record(out)
    if fresh and out.exists():
        for name in (checkpoint.NAME, RECORD, "training.png"):
            (out / name).unlink(missing_ok=True)
        for member in out.glob("member-*"):
            shutil.rmtree(member)
        for stale in out.glob("subgraphs-*.bin"):
            stale.unlink()
    elif held is not None and (held.get("kb_hash"), held.get("options")) != (
            record["kb_hash"], record["options"]):
        why = ("the KB has changed" if held.get("kb_hash") != record["kb_hash"]
               else "it was trained with other options")
        raise GnnError(f"{out}: holds a GNN training that does not match ({why}); pass --fresh "
                       "to train afresh, or the same options to resume it",
                       code="gnn-other-training")
    elif held is None and (out / checkpoint.NAME).is_file():
        raise GnnError(f"{out}: holds a GNN checkpoint not trained from a pool; pass --fresh "
                       "to replace it, or another --out", code="gnn-other-training")
    out.mkdir(parents=True, exist_ok=True)
    if held is None or fresh:
        _write_record(out, {**record, "epochs_done": 0, "complete": False})


def _write_record(out: Path, record: dict) -> None:
    write_atomically(out / RECORD, json.dumps(record, indent=1, ensure_ascii=False) + "\n")
