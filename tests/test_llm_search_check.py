"""The BYOKG search's check on the few-shot model (CompileOptions.fit_margin), by fault
injection: an LM that writes a fixed program, on the official KoPL example KB."""

from __future__ import annotations

from pathlib import Path

import pytest

from koplc import api
from koplc.llm.symkgqa.pipeline import CompileOptions, Compiler

pytestmark = pytest.mark.model

EXAMPLE = Path(__file__).resolve().parent / "fixtures" / "kopl" / "example_kb.json"
CHILD = "Find(LeBron James)\nRelate(child, forward)\nQueryName()"
HEIGHT = "Find(LeBron James)\nQueryAttr(height)"


class Writes:
    """Fault injection: an LM that writes one fixed program, whatever the prompt."""

    name = "writes"

    def __init__(self, program: str):
        self.program = program

    def generate(self, prompt, n, *args, **kwargs):
        return [self.program] * n

    def score(self, prompt, continuation):
        return -float(len(continuation))


@pytest.fixture(scope="module")
def kb():
    return api.load_kb(EXAMPLE)


def test_a_program_that_fits_worse_than_the_search_gives_way(kb):
    compiler = Compiler(kb, Writes(CHILD))
    trace = compiler.compile("How tall is LeBron James?")
    assert trace.attempts[0].source == "greedy" and trace.attempts[0].answer == [
        "LeBron James Jr."]
    assert trace.best.source == "search" and trace.answer == ["206 centimetre"]
    unchecked = compiler.compile("How tall is LeBron James?", CompileOptions(repair=False))
    assert unchecked.best.source == "greedy" and unchecked.answer == ["LeBron James Jr."]


def test_the_model_program_stays_when_it_fits_as_well(kb):
    trace = Compiler(kb, Writes(HEIGHT)).compile("How tall is LeBron James?")
    assert trace.best.source == "greedy" and trace.answer == ["206 centimetre"]
    assert [a.source for a in trace.attempts] == ["greedy"]
