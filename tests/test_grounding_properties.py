"""Grounding never crashes: any well-typed program over near-miss names either grounds (and the
result still type-checks as well as the input did) or raises a GroundingError."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from budget import examples
from grounding_fixtures import context, geo_fixture  # noqa: F401 - the geo fixture
from koplc.kopl.check import check
from koplc.kopl.errors import GroundingError
from koplc.kopl.execution.executor import execute
from koplc.kopl.grounding.driver import ground
from strategies import programs

pytestmark = pytest.mark.model

NEAR_MISSES = st.sampled_from([
    "pariss", "Paris", "berlin", "located in", "location", "capital", "areas", "area", "cities",
    "human", "start date", "population", "length in country", "founded", "Seine river",
    "qxzvbw jjkq"])
SETTINGS = settings(max_examples=examples(60), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@SETTINGS
@given(program=programs(names=NEAR_MISSES, max_leaves=4), guided=st.booleans())
def test_grounding_returns_a_program_or_a_grounding_error(geo, program, guided):
    try:
        grounded = ground(program, context(geo, "where is Paris", execution_guidance=guided))
    except GroundingError as err:
        assert err.diagnostics
        return
    before = {d.code for d in check(program) if d.is_error}
    assert {d.code for d in grounded.remaining} <= before
    try:
        execute(grounded.program, geo[0])
    except Exception as err:  # the executor may refuse (ExecutionError), never crash
        assert type(err).__name__ == "ExecutionError", err
