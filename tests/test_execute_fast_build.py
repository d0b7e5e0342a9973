"""The fast KQA Pro list builder used for bulk execution gives exactly the full parser's tree,
and defers to the full parser (and its errors) for anything irregular."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings

from budget import examples
from koplc.kopl.errors import ParseError
from koplc.kopl.syntax.kqapro_json import (
    parse,
    print_program,
    program_from_kqapro,
    program_from_steps,
)
from strategies import WILD_NAMES, programs


@settings(max_examples=examples(300), deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(programs(names=WILD_NAMES))
def test_the_fast_builder_gives_the_full_parsers_tree(program):
    text = print_program(program)
    assert program_from_kqapro(text) == program == parse(text).program
    assert program_from_steps(json.loads(text)) == program


FIND = {"function": "Find", "dependencies": [], "inputs": ["x"]}
IRREGULAR = [
    [{"function": "Fnd", "dependencies": [], "inputs": ["x"]}],
    [FIND, {"function": "Count", "dependencies": [1], "inputs": []}],
    [FIND, {"function": "Count", "dependencies": [], "inputs": []}],
    [FIND, FIND, {"function": "Count", "dependencies": [0], "inputs": []}],
    [{"function": "Find", "dependencies": [], "inputs": ["x", "y"]}],
    [{"function": "Find", "dependencies": [], "inputs": ["x"], "extra": 1}],
    [],
]


@pytest.mark.parametrize("steps", IRREGULAR)
def test_irregular_lists_get_the_full_parsers_error(steps):
    assert program_from_steps(steps) is None
    text = json.dumps(steps)
    with pytest.raises(ParseError) as fast:
        program_from_kqapro(text)
    with pytest.raises(ParseError) as full:
        parse(text)
    assert str(fast.value) == str(full.value)


def test_numbers_as_inputs_go_through_the_full_parser():
    text = '[{"function": "Find", "dependencies": [], "inputs": [1984]}]'
    assert program_from_steps(json.loads(text)) is None
    assert program_from_kqapro(text) == parse(text).program
