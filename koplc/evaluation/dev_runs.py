"""What the LLM benchmarks share with `koplc eval`: MetaQA dev questions, and one question
compiled by a front end and scored as `koplc eval` scores it (koplc.evaluation.scoring)."""

from __future__ import annotations

import time
from pathlib import Path

from koplc.evaluation.question_files import GoldQuestion, read_question_file, spread
from koplc.evaluation.scoring import percentiles, score
from koplc.kopl.frontend import FrontEnd
from koplc.kopl.syntax import steps as steps_syntax

__all__ = ["dev_questions", "evaluate_one", "percentiles"]


def dev_questions(folder: str | Path, hops=(1, 2, 3), limit: int | None = None
                  ) -> list[GoldQuestion]:
    """The verified dev questions of each hop; with `limit`, that many of each hop spread evenly
    over its file (the files are sorted by question type, so the first N would be one type)."""
    files = [Path(folder) / f"qa_{hop}hop_dev.tsv" for hop in hops]
    return spread([q for path in files for q in read_question_file(path)], limit)


def evaluate_one(frontend: FrontEnd, kb, q: GoldQuestion) -> dict:
    """Compile one question with `frontend` on `kb` and score it (koplc eval's record: hits1,
    f1, failure, program, answer, seconds, ...). The caller opens the front end through the
    registry (`koplc.api.open_frontend`), once for all its questions."""
    clock = time.perf_counter()
    compiled = frontend.compile(q.text, kb)
    seconds = time.perf_counter() - clock
    final = compiled.final
    return score(compiled, q, seconds, steps_syntax.print_program(final) if final is not None else None)
