"""Random and mutated text never makes the nested, JSON, engine or BART parser raise anything
but KoplcError; whatever parses prints back to text that parses to the same program."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from budget import examples
from koplc.kopl.errors import KoplcError, UnsupportedConstruct
from koplc.kopl.syntax import bart as bart_syntax
from koplc.kopl.syntax import engine_pair, kqapro_json
from koplc.kopl.syntax import nested as nested_syntax
from strategies import mutated

MODULES = [nested_syntax, kqapro_json, engine_pair, bart_syntax]
IDENTITY = Path(__file__).parent / "fixtures" / "identity"
SEEDS = [line for name in ("kopl_nested.txt", "kqapro_json.txt", "kopl_engine.txt",
                           "kopl_bart.txt")
         for line in (IDENTITY / name).read_text(encoding="utf-8").splitlines()]
SEEDS += ["engine.QueryAttr(\n  engine.Find('1985 \\'x\\''),\n  -1.5e3\n)",
          '[["Find", "Count"], [["X"], []]]']
TOKENS = ["(", ")", '"', "'", ",", "\\", "\\u12", "\\N{", "\n", "<arg>", "<func>", "[", "]",
          "{", "}", ":", "engine.", "Find(", "FindAll()", "What", "-1e5", "true", "null",
          '"function"', '"inputs"', '"dependencies"', "\x00", "\ud800", "é", " ", "0", "-3"]
FUZZ = settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def parse_or_fail_cleanly(module, text: str) -> None:
    try:
        parsed = module.parse(text)
    except KoplcError:
        return
    try:
        printed = module.print_program(parsed.program)
    except UnsupportedConstruct:
        assert module is bart_syntax
        return
    assert module.parse(printed).program == parsed.program


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.NAME)
def test_random_text(module):
    FUZZ(given(st.text(max_size=80))(lambda text: parse_or_fail_cleanly(module, text)))()


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.NAME)
def test_mutated_programs(module):
    FUZZ(given(mutated(SEEDS, TOKENS, max_cut=6))(lambda text: parse_or_fail_cleanly(module, text)))()


@pytest.mark.parametrize("text", [
    "Count(" * 3000 + "FindAll()" + ")" * 3000,
    "Count(" * 3000,
    "[" * 5000 + "]" * 5000,
    '{"a":' * 3000,
    "[" + ",".join(['{"function": "FindAll", "dependencies": [], "inputs": []}'] +
                   [f'{{"function": "Count", "dependencies": [{i}], "inputs": []}}'
                    for i in range(400)]) + "]",
    " <func> ".join(["FindAll"] + ["Count"] * 400),
    '"' + "\\" * 5000,
    "<arg>" * 2000,
])
def test_pathological_inputs_fail_cleanly(text):
    for module in MODULES:
        parse_or_fail_cleanly(module, text)
