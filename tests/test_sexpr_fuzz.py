"""Random and mutated S-expressions: parse raises nothing but KoplcError, and what parses prints."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from budget import examples
from conftest import FIXTURES
from koplc.kopl.errors import KoplcError, UnsupportedConstruct
from koplc.sexpr import parse, print_program
from strategies import mutated

FUZZ = settings(max_examples=examples(1500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
EXTRA_SEEDS = ["(TC (JOIN r m.01) p.q NOW)", '(JOIN k "a \\" b"@en)', "(ARGMIN a.b (JOIN (R c) d))",
          "(lt k 1990-01-01^^xsd:date)", "m.01", "law.constitution"]
TOKENS = ["(", ")", "((", "))", '"', "\\", "\n", " ", "\t", "\x0b", "\u00a0", "^^", "@en",
          "xsd:gYear", "xsd:dateTime", "AND", "JOIN", "R", "COUNT", "ARGMAX", "ARGMIN", "lt",
          "le", "gt", "ge", "TC", "NOW", "m.0", "a.b", "_inv", "1990", "2.5e3", "\x00", "é"]


def _must_only_raise_koplc_errors(text: str) -> None:
    try:
        parsed = parse(text)
    except KoplcError as error:
        assert error.diagnostics and str(error)
        return
    try:
        printed = print_program(parsed.program)
    except UnsupportedConstruct:
        return
    assert print_program(parse(printed).program) == printed


def _seeds() -> list[str]:
    lines = (FIXTURES / "corpus" / "sexpr_grailqa.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["s_expression"] for line in lines if line] + EXTRA_SEEDS


@FUZZ
@given(st.lists(st.sampled_from(TOKENS) | st.text(max_size=4), max_size=30).map("".join))
def test_token_soup(text):
    _must_only_raise_koplc_errors(text)


@FUZZ
@given(data=st.data())
def test_mutated_corpus(data):
    _must_only_raise_koplc_errors(data.draw(mutated(_seeds(), TOKENS, max_cut=10)))


@settings(max_examples=examples(500), deadline=None)
@given(st.text(max_size=60))
def test_any_text(text):
    _must_only_raise_koplc_errors(text)


@settings(max_examples=examples(50), deadline=None)
@given(st.integers(1, 3000), st.sampled_from(["(", "(AND a.b ", "(COUNT ", "(JOIN r "]))
def test_deep_nesting(depth, opener):
    _must_only_raise_koplc_errors(opener * depth + "m.01" + ")" * depth)
