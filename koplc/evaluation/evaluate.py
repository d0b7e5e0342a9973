"""Running a front end over gold questions: reading the question files, compiling and scoring
each question, and the report of a run (written out by koplc.evaluation.report)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from koplc.evaluation.question_files import GoldQuestion, read_question_file, spread
from koplc.evaluation.scoring import score, summarize
from koplc.kopl.frontend import FrontEnd
from koplc.syntaxes import parse, print_program


def read_gold_questions(files: Iterable[str | Path], kind: str | None = None,
                        limit: int | None = None) -> list[GoldQuestion]:
    """The questions of MetaQA TSV or JSONL files (gold programs in any syntax); with `limit`,
    at most that many of each kind, spread evenly."""
    def program(text: str):
        return parse(text).program

    return spread([q for path in files for q in read_question_file(path, kind, program)],
                  limit)


def evaluate_questions(questions: Iterable[GoldQuestion], frontend: FrontEnd, kb, *,
                       progress: bool = False) -> Iterator[dict]:
    """Compile each question with `frontend` on `kb` and score it; yields a record per
    question (koplc.evaluation.scoring.score), with a progress bar when `progress`."""
    if progress:
        from tqdm import tqdm

        questions = tqdm(questions, desc=f"eval {frontend.name}", unit="q")
    for gold in questions:
        clock = time.perf_counter()
        compiled = frontend.compile(gold.text, kb)
        seconds = time.perf_counter() - clock
        final = compiled.final
        text = print_program(final, compiled.syntax) if final is not None else None
        yield score(compiled, gold, seconds, text)


def report_of(frontend: FrontEnd, records: list[dict], files: Iterable) -> dict:
    """The report of a run: the front end, how it ranks, the files, overall and per kind."""
    return {"frontend": frontend.name, "ranking": frontend.ranking,
            "files": [str(f) for f in files], "questions": len(records), **summarize(records)}
