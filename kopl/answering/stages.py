"""The shared stages a proposed program goes through: parse and check, execute, rank and judge,
each timed into a `seconds` dict under its stage name."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from koplc.kopl.answering.ranking import topic_last
from koplc.kopl.check import check
from koplc.kopl.errors import KoplcError
from koplc.kopl.execution.judge import says_nothing
from koplc.kopl.ir import Node
from koplc.kopl.syntax import steps as steps_syntax


class StageFailure(KoplcError):
    """A program failed a stage (`stage`: one of kopl.frontend.FAILURE_STAGES)."""

    def __init__(self, stage: str, message: str):
        super().__init__(message, code=stage)
        self.stage, self.message = stage, message


@contextmanager
def timed(seconds: dict[str, float], stage: str) -> Iterator[None]:
    """Adds the block's wall time to `seconds[stage]`."""
    clock = time.perf_counter()
    try:
        yield
    finally:
        seconds[stage] = seconds.get(stage, 0.0) + time.perf_counter() - clock


def parse_program(text: str) -> Node:
    """The program of KoPL steps `text` (or one call a line); StageFailure "parse" otherwise."""
    try:
        return steps_syntax.parse(text).program
    except KoplcError as err:
        raise StageFailure("parse", err.render()) from err


def parse_checked(text: str) -> Node:
    """`parse_program`, type-checked; StageFailure "parse" or "type" otherwise."""
    return checked(parse_program(text))


def checked(node: Node) -> Node:
    """`node` when it type-checks; StageFailure "type" with every error otherwise."""
    errors = [d for d in check(node) if d.is_error]
    if errors:
        raise StageFailure("type", "; ".join(d.message for d in errors))
    return node


@dataclass(frozen=True)
class Run:
    """A program's answers, ranked and judged: `failed` is "execution" or "empty" (with
    `error` saying why) or None."""

    answers: tuple[str, ...] = ()
    failed: str | None = None
    error: str | None = None


def run(node: Node, kb, seconds: dict[str, float] | None = None, options=None) -> Run:
    """Execute `node` on `kb` with `options` (ExecOptions; default the engine's semantics),
    rank its answers (topic_last) and judge them (kopl/execution/judge.py)."""
    from koplc.kopl.execution.executor import DEFAULT, execute

    with timed(seconds if seconds is not None else {}, "execution"):
        try:
            result = execute(node, kb, options or DEFAULT)
        except KoplcError as err:
            return Run(failed="execution", error=err.render())
        # Sorted: a KoPL answer has no order, and the KB's is not the same in a file and in
        # an endpoint's fragment of it.
        answers = topic_last(node, kb, sorted(str(v) for v in result.items()))
    if not answers:
        return Run(failed="empty")
    why = says_nothing(node, answers)
    if why is not None:
        return Run(failed="empty", error=why)
    return Run(tuple(answers))
