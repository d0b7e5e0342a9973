"""`koplc kb generate`: a generated KB and its questions, written side by side.

>>> import tempfile, pathlib, json
>>> out = pathlib.Path(tempfile.mkdtemp()) / "kb.nt"
>>> summary = generate_kb("kopl-example", 3000, seed=1, out=out)
>>> summary["triples"] > 2000, pathlib.Path(summary["questions_file"]).exists()
(True, True)
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from koplc.kopl.atomic import atomic_file
from koplc.sparql_backend.generate import layout, write_kb
from koplc.sparql_backend.generated_questions import KINDS, QuestionMaker
from koplc.sparql_backend.kb_profiles import PROFILES

LIKES = tuple(PROFILES)


def questions_path(out: str | Path) -> Path:
    """Where the questions of the KB at `out` go: ``kb.nt.gz`` -> ``kb.questions.jsonl``."""
    out = Path(out)
    stem = out.name.removesuffix(".gz").removesuffix(".nt")
    return out.with_name(stem + ".questions.jsonl")


def generate_kb(like: str, triples: int, seed: int, out: str | Path,
                questions: int = sum(KINDS.values())) -> dict:
    """Write a KB of about `triples` triples shaped like profile `like` to `out` (.nt or
    .nt.gz) and up to `questions` questions beside it; a summary of what was written."""
    start = time.perf_counter()
    plan = layout(like, triples, seed)
    maker = QuestionMaker(plan, seed)
    maker.plan()
    written = write_kb(plan, out, maker.on_fact)
    records = maker.records(questions)
    with atomic_file(questions_path(out)) as sink:
        for record in records:
            sink.write(json.dumps(record, ensure_ascii=False) + "\n")
    return {"like": like, "seed": seed, "triples": written, "entities": plan.entities,
            "entities_per_concept": plan.counts, "questions": len(records),
            "kb_file": str(out), "questions_file": str(questions_path(out)),
            "seconds": round(time.perf_counter() - start, 2)}
