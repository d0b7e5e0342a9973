"""The repair driver: runs the passes of one point in a program's life, in `REPAIRS` order.

A program meets the repairs at three points: as written (before grounding), as grounded, and
once it has run (an unanswered program, or the one chosen to answer). Passes of the first two
points always apply their change; a pass at "ran" may replace the program with another, and
the driver keeps the replacement only when it answers (the caller's `run`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from koplc.kopl.answering.repairs.context import RepairContext
from koplc.kopl.answering.repairs.count_answers import count_names
from koplc.kopl.answering.repairs.path_repair import repair_path
from koplc.kopl.answering.repairs.pin_entities import pin_question_entities
from koplc.kopl.answering.repairs.question_entities import point_finds_at_question
from koplc.kopl.answering.repairs.search_check import defer_to_search
from koplc.kopl.answering.stages import Run
from koplc.kopl.ir import Node

Pass = Callable[[Node, RepairContext], tuple[Node, list[dict]]]


@dataclass(frozen=True)
class Repair:
    """A pass, the point where it applies ("written", "grounded", "ran"), the switch that
    enables it (RepairContext.switches) and, for a pass after a run, the stage an answer it
    makes is credited to (Provenance.stage: how `koplc eval` counts who answered)."""

    name: str
    point: str
    switch: str
    apply: Pass
    stage: str = ""


REPAIRS = (
    Repair("question-entities", "written", "quack", point_finds_at_question),
    Repair("pin-entities", "grounded", "quack", pin_question_entities),
    Repair("path-repair", "ran", "repair", repair_path, "repair"),
    Repair("answer-type", "ran", "repair", count_names, "answer-type"),
    Repair("search", "ran", "repair", defer_to_search, "search"),
)


@dataclass(frozen=True)
class Repaired:
    """What the repairs made of a program: the program, the changes (JSON records), the stage
    of the pass that last replaced it at "ran" and that program's run."""

    program: Node
    changes: tuple[dict, ...] = ()
    by: str | None = None
    run: Run | None = None


def repair(program: Node, ctx: RepairContext, point: str,
           run: Callable[[Node], Run] | None = None) -> Repaired:
    """Run the enabled passes of `point` over `program`. At "ran", a changed program is run
    (`run`) and kept only when it answers; later passes see it as answered."""
    out = Repaired(program)
    for step in REPAIRS:
        if step.point != point or step.switch not in ctx.switches:
            continue
        new, changes = step.apply(out.program, ctx)
        if not changes:
            continue
        if point != "ran":
            out = replace(out, program=new, changes=out.changes + tuple(changes))
            continue
        assert run is not None, "repairs after a run need the caller's run"
        result = run(new)
        if result.answers:
            out = Repaired(new, out.changes + tuple(changes), step.stage, result)
            ctx = replace(ctx, answered=True)
    return out
