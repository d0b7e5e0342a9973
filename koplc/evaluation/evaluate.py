"""Running a front end over gold questions: reading the question files, compiling and scoring
each question, and the report of a run (written out by koplc.evaluation.report)."""

from __future__ import annotations

import time
import traceback
from collections.abc import Iterable, Iterator
from pathlib import Path

from koplc.evaluation.question_files import GoldQuestion, read_question_file, spread
from koplc.evaluation.scoring import score, summarize
from koplc.kopl.errors import (
    ExecutionError,
    GroundingError,
    KoplcError,
    LoweringError,
    ParseError,
    TypeCheckError,
    UnsupportedConstruct,
)
from koplc.kopl.frontend import Compiled, FrontEnd
from koplc.syntaxes import parse, print_program

ERROR = "error"
"""The failure of a question whose compiling raised (a bug, the LM failing on its prompt):
no stage of kopl.frontend.FAILURES, since the front end did not get to say where it failed."""

# KoplcErrors about one question's program or prompt, not about the front end: they fail that
# question. Any other KoplcError says the front end cannot work at all (a missing model, an
# LM server that is down), and stops the run.
QUESTION_ERRORS = (ParseError, TypeCheckError, UnsupportedConstruct, GroundingError,
                   LoweringError, ExecutionError)
QUESTION_CODES = frozenset({"lm-context"})  # the prompt does not fit the LM's context


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
        try:
            compiled = frontend.compile(gold.text, kb)
        except Exception as err:  # one question's failure never ends the run
            if isinstance(err, KoplcError) and not of_the_question(err):
                raise
            yield error_record(gold, frontend, err, time.perf_counter() - clock)
            continue
        seconds = time.perf_counter() - clock
        final = compiled.final
        text = print_program(final, compiled.syntax) if final is not None else None
        yield score(compiled, gold, seconds, text)


def of_the_question(err: KoplcError) -> bool:
    """Whether a KoplcError is about one question (its program or its prompt), not about the
    front end."""
    return isinstance(err, QUESTION_ERRORS) or any(d.code in QUESTION_CODES
                                                   for d in err.diagnostics)


def error_record(gold: GoldQuestion, frontend: FrontEnd, err: Exception,
                 seconds: float) -> dict:
    """The record of a question whose compiling raised `err`: failed at ERROR, scored 0, with
    the exception and where it was raised as the error."""
    compiled = Compiled(gold.text, frontend.name, error=describe(err))
    return {**score(compiled, gold, seconds), "hits1": 0, "hits1_set": 0, "f1": 0.0,
            "failure": ERROR, "wrong_program": "no program" if gold.program is not None else None}


def describe(err: Exception) -> str:
    """An exception as a record's error: its class and message (a KoplcError as it renders),
    and the file and line that raised it.

    >>> describe(RuntimeError("llama_decode returned 1"))
    'RuntimeError: llama_decode returned 1'
    """
    text = err.render() if isinstance(err, KoplcError) else f"{type(err).__name__}: {err}"
    frames = traceback.extract_tb(err.__traceback__)
    if frames:
        text += f" (raised at {Path(frames[-1].filename).name}:{frames[-1].lineno})"
    return text


def report_of(frontend: FrontEnd, records: list[dict], files: Iterable) -> dict:
    """The report of a run: the front end, how it ranks, the files, overall and per kind."""
    return {"frontend": frontend.name, "ranking": frontend.ranking,
            "files": [str(f) for f in files], "questions": len(records), **summarize(records)}
