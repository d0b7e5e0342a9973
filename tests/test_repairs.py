"""Every repair pass against its before/after fixtures (tests/fixtures/repairs/<pass>.jsonl),
and the driver: a replacement after a run is kept only when it answers."""

from __future__ import annotations

import pytest

from conftest import FIXTURES, read_jsonl
from koplc.kopl.answering.repairs.context import RepairContext, SearchBest
from koplc.kopl.answering.repairs.driver import REPAIRS, repair
from koplc.kopl.answering.stages import Run, run
from koplc.kopl.grounding.mentions import Linked
from koplc.kopl.kb.kopl_json import load_kopl_json
from koplc.kopl.syntax import steps as steps_syntax

FOLDER = FIXTURES / "repairs"
CASES = [(step, i, case) for step in REPAIRS
         for i, case in enumerate(read_jsonl(FOLDER / f"{step.name}.jsonl"))]


@pytest.fixture(scope="module")
def kb():
    return load_kopl_json(FIXTURES / "kopl" / "example_kb.json")


def program(text: str):
    """The program of one call a line (the fixtures' form)."""
    steps = "\n".join(f"Step {i}: {line}" for i, line in enumerate(text.splitlines(), 1))
    return steps_syntax.parse(steps + "\nDone").program


def context(case: dict, kb) -> RepairContext:
    linked = Linked(case["question"], tuple(case["entities"]), (), ())
    scores, fits = case.get("scores", {}), case.get("fits", {})
    search = SearchBest(program(case["search"]), case["search_fit"]) if "search" in case else None
    return RepairContext(
        linked, kb, grounding=tuple(case.get("grounding", ())),
        answered=case.get("answered", True),
        score=lambda node: scores.get(_calls(node), 0.0),
        fit=lambda node: fits.get(_calls(node), 0.0), search=search)


def _calls(node) -> str:
    return "\n".join(line.split(": ", 1)[1] for line in
                     steps_syntax.print_program(node).splitlines() if line.startswith("Step"))


def test_every_pass_has_fixtures():
    for step in REPAIRS:
        assert read_jsonl(FOLDER / f"{step.name}.jsonl"), step.name


@pytest.mark.parametrize(("step", "i", "case"), CASES,
                         ids=[f"{s.name}-{i}" for s, i, _ in CASES])
def test_pass_fixture(step, i, case, kb):
    ctx = context(case, kb)
    before = program(case["program"])
    after, changes = step.apply(before, ctx)
    assert _calls(after) == case["expected"]
    assert bool(changes) == (after != before)


def test_driver_keeps_a_replacement_only_when_it_answers(kb):
    case = read_jsonl(FOLDER / "search.jsonl")[0]
    ctx = context(case, kb)
    kept = repair(program(case["program"]), ctx, "ran", lambda node: run(node, kb))
    assert kept.by == "search" and kept.run.answers == ("Akron",)
    refused = repair(program(case["program"]), ctx, "ran", lambda node: Run(failed="empty"))
    assert refused.by is None and _calls(refused.program) == case["program"]


def test_switches_turn_passes_off(kb):
    case = read_jsonl(FOLDER / "answer-type.jsonl")[0]
    ctx = context(case, kb)
    off = repair(program(case["program"]), RepairContext(ctx.linked, kb, switches=frozenset()),
                 "ran", lambda node: run(node, kb))
    assert off.by is None
    on = repair(program(case["program"]), ctx, "ran", lambda node: run(node, kb))
    assert on.by == "answer-type" and on.run.answers == ("1",)
