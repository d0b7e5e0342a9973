"""Every case of tests/fixtures/conformance/kopl_engine_cases.json, as the official Python engine
answered it (`cpp_diff` cases included: where the C++ engine disagrees we match Python)."""

from __future__ import annotations

import json

import pytest

from conftest import FIXTURES
from kb_fixtures import kb_for_fixture  # noqa: F401 - the kb_for fixture
from koplc.kopl.answer import agrees_with_engine, engine_entity_ids
from koplc.kopl.errors import ExecutionError
from koplc.kopl.execution.executor import execute
from koplc.kopl.syntax.kqapro_json import parse

CASES = json.loads((FIXTURES / "conformance/kopl_engine_cases.json").read_text())["cases"]


def run_case(case, kb_for):
    program = parse(json.dumps(case["program"])).program
    try:
        return execute(program, kb_for(case["kb"]))
    except ExecutionError:
        return None


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_case(case, kb_for):
    answer = run_case(case, kb_for)
    assert agrees_with_engine(answer, case["expected"], case["order_sensitive"]), (
        answer.render() if answer else "raised", case["expected"])
    if case.get("program_form") == "raw_entity_set":
        assert answer.is_entities
        assert answer.entity_ids == engine_entity_ids(case["expected"])


def test_every_raising_case_raises_an_execution_error_naming_the_step(kb_for):
    raising = [c for c in CASES if c["expected"] is None]
    assert raising
    for case in raising:
        program = parse(json.dumps(case["program"])).program
        with pytest.raises(ExecutionError, match=r"step \d+ \(\w+\)"):
            execute(program, kb_for(case["kb"]))


@pytest.mark.parametrize("case", [c for c in CASES if c.get("cpp_diff")],
                         ids=[c["name"] for c in CASES if c.get("cpp_diff")])
def test_where_the_cpp_engine_differs_we_match_the_python_engine(case, kb_for):
    """The C++ engine (kopl-engine 0.1.1) reduces lists to one element, reports an empty list
    as "no", derives backward relations, etc.; the reference is the Python engine."""
    answer = run_case(case, kb_for)
    assert agrees_with_engine(answer, case["expected"], case["order_sensitive"])
    if case["cpp_diff"] in ("different_answer", "python_raises"):
        assert not agrees_with_engine(answer, case["cpp_output"], False) or answer is None


def test_the_file_has_the_cases_its_meta_promises():
    meta = json.loads((FIXTURES / "conformance/kopl_engine_cases.json").read_text())["_meta"]
    assert len(CASES) == meta["counts"]["from_test_example"] + meta["counts"]["own"]
    assert sum(1 for c in CASES if c.get("cpp_diff")) == meta["counts"]["cpp_disagreements"]
