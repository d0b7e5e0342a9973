"""Golden fixtures of the operator, function-repair and units passes, and of all passes
together (names.jsonl): before/after programs, including programs that must be left alone
(tests/fixtures/grounding/*.jsonl)."""

from __future__ import annotations

import pytest

from grounding_fixtures import context, geo_fixture, read_cases  # noqa: F401 - geo fixture
from koplc import api
from koplc.kopl.grounding.driver import ground
from koplc.kopl.grounding.operators import normalise_operators
from koplc.kopl.grounding.repair import repair_functions
from koplc.kopl.grounding.unit_conversion import convert_units

OPERATORS = read_cases("operators.jsonl")
REPAIRS = read_cases("repair.jsonl")
UNITS = read_cases("units.jsonl")
GROUNDING = read_cases("names.jsonl")


def parsed(text: str):
    return api.parse(text).program


def check_case(case: dict, grounded, changes) -> None:
    assert grounded == parsed(case["after"]), api.print_program(grounded, "kopl-nested")
    if case["before"] == case["after"]:
        assert changes == []
    else:
        assert changes and all(c.reason for c in changes)


def test_each_fixture_has_ten_cases_and_cases_to_leave_alone():
    for cases in (OPERATORS, REPAIRS, UNITS):
        assert len(cases) >= 10
        assert sum(c["before"] == c["after"] for c in cases) >= 3


@pytest.mark.parametrize("case", OPERATORS, ids=[c["name"] for c in OPERATORS])
def test_operators(case):
    check_case(case, *normalise_operators(parsed(case["before"])))


@pytest.mark.model
@pytest.mark.parametrize("case", REPAIRS, ids=[c["name"] for c in REPAIRS])
def test_repair(geo, case):
    ctx = context(geo, case.get("question"))
    check_case(case, *repair_functions(parsed(case["before"]), ctx))


@pytest.mark.model
@pytest.mark.parametrize("case", UNITS, ids=[c["name"] for c in UNITS])
def test_units(geo, case):
    check_case(case, *convert_units(parsed(case["before"]), context(geo)))


@pytest.mark.model
@pytest.mark.parametrize("case", GROUNDING, ids=[c["name"] for c in GROUNDING])
def test_all_passes(geo, case):
    grounded = ground(parsed(case["before"]), context(geo, case.get("question")))
    check_case(case, grounded.program, grounded.changes)
    assert grounded.remaining == []


def test_a_pass_builds_new_nodes_and_leaves_its_input_alone():
    before = parsed(OPERATORS[0]["before"])
    copy = before.model_copy(deep=True)
    after, _ = normalise_operators(before)
    assert before == copy and after != before


@pytest.mark.model
def test_changes_name_the_step_of_the_program_returned(geo):
    after, changes = repair_functions(parsed("QueryAttr(Find('Paris'), 'located in')"),
                                      context(geo))
    assert [(c.step, c.op, c.original, c.replacement) for c in changes] == [
        (2, "Relate", "QueryAttr", "Relate"), (3, "QueryName", None, "QueryName")]
    assert after.input.relation == "located in"
