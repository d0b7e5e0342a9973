"""One literal reader: the checker accepts exactly the literals the executor and the SPARQL
lowering run (with `strict_time_kinds` off; on, it also wants a year op's literal to be a year
and a date op's a date), the S-expression atoms read the same language, and all of it is the
official engine's `_parse_key_value`."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from budget import examples
from koplc.kopl import ir
from koplc.kopl.check import check
from koplc.kopl.errors import ExecutionError, LoweringError, ParseError
from koplc.kopl.execution.executor import execute
from koplc.kopl.kb.model import KBBuilder
from koplc.kopl.types import Comparator
from koplc.kopl.values import DATE, QUANTITY, STRING, TIME, YEAR, read_literal
from koplc.sexpr import parse as parse_sexpr
from koplc.sexpr.atoms import XSD, is_plain_atom
from koplc.sparql_backend.lower import lower
from official_engine import official_modules

KB = KBBuilder().build()
FILTERS = {STRING: ir.FilterStr, QUANTITY: ir.FilterNum, YEAR: ir.FilterYear, DATE: ir.FilterDate}
GYEAR, GDATE, INTEGER = f"{XSD}gYear", f"{XSD}date", f"{XSD}integer"

# (kind, text, whether the engine reads it). The engine reads numbers and years with Python's
# float() and int(): underscores, a sign, spaces around and nan count; a time with "/" or a
# non-leading "-" is a date, so "1999-1-1" is a date even where a year is asked for.
TABLE = [
    (QUANTITY, "270 square kilometre", True),
    (QUANTITY, "12", True),
    (QUANTITY, "-3.5e2 metre", True),
    (QUANTITY, "1_000 metre", True),
    (QUANTITY, "+5", True),
    (QUANTITY, " 12 ", True),
    (QUANTITY, "nan", True),
    (QUANTITY, "large", False),
    (QUANTITY, "two metres", False),
    (QUANTITY, "1,000 metre", False),
    (QUANTITY, "0x10", False),
    (QUANTITY, "", False),
    (QUANTITY, "   ", False),
    (YEAR, "1829", True),
    (YEAR, "+1999", True),
    (YEAR, "-44", True),
    (YEAR, "1_999", True),
    (YEAR, "1999-1-1", True),
    (YEAR, "nineteen", False),
    (YEAR, "1999.0", False),
    (YEAR, "", False),
    (DATE, "1738-01-01", True),
    (DATE, "1738/1/1", True),
    (DATE, "1999-1-1", True),
    (DATE, "30000", True),
    (DATE, "1990-13-45", False),
    (DATE, "-44-01-01", False),
    (DATE, "0000-01-01", False),
    (DATE, "1999-01", False),
    (DATE, "1999-01/01", False),
    (STRING, "male", True),
    (STRING, "", True),
    (STRING, "1_000 metre", True),
    (TIME, "NOW", True),
    (TIME, " 2003 ", True),
    (TIME, "2003-06-26", True),
    (TIME, "+2003", True),
    (TIME, "soon", False),
    (TIME, "now", False),
]
IDS = [f"{kind}-{text!r}" for kind, text, _ in TABLE]


def program(kind: str, text: str) -> ir.Node:
    if kind == TIME:
        return ir.Count(input=ir.TimeConstraint(input=ir.FindAll(), relation="r", time=text))
    extra = {} if kind == STRING else {"comparator": Comparator.EQ}
    return ir.Count(input=FILTERS[kind](input=ir.FindAll(), key="k", value=text, **extra))


def checker_accepts(kind: str, text: str, strict_time_kinds: bool) -> bool:
    return not [d for d in check(program(kind, text), strict_time_kinds=strict_time_kinds)
                if d.code == "bad-literal"]


def executor_runs(kind: str, text: str) -> bool:
    try:
        execute(program(kind, text), KB)
    except ExecutionError as err:
        assert "cannot read" in str(err), err
        return False
    return True


def lowering_runs(kind: str, text: str) -> bool:
    try:
        lower(program(kind, text))
    except LoweringError as err:
        assert "cannot read" in str(err), err
        return False
    return True


def engine_reads(kind: str, text: str) -> bool:
    engine = official_modules()["kopl"].KoPLEngine
    try:
        engine._parse_key_value(None, None, text, kind)
    except Exception:  # noqa: BLE001 - the engine raises whatever int()/float()/date() raise
        return False
    return True


def time_kind_matches(kind: str, text: str) -> bool:
    value = read_literal(text, kind)
    return kind not in (YEAR, DATE) or (value is not None and value.type == kind)


@pytest.mark.parametrize(("kind", "text", "reads"), TABLE, ids=IDS)
def test_checker_executor_and_lowering_accept_the_same_literals(kind, text, reads):
    assert executor_runs(kind, text) is reads
    assert lowering_runs(kind, text) is reads
    assert checker_accepts(kind, text, strict_time_kinds=False) is reads
    if kind != TIME:
        assert engine_reads(kind, text) is reads


@pytest.mark.parametrize(("kind", "text", "reads"), TABLE, ids=IDS)
def test_strict_time_kinds_also_wants_the_ops_own_kind(kind, text, reads):
    expected = reads and time_kind_matches(kind, text)
    assert checker_accepts(kind, text, strict_time_kinds=True) is expected


def test_the_issues_three_literals_run_and_check():
    assert checker_accepts(QUANTITY, "1_000 metre", strict_time_kinds=True)
    assert read_literal("1_000 metre", QUANTITY).value == 1000.0
    assert checker_accepts(YEAR, "+1999", strict_time_kinds=True)
    assert read_literal("+1999", YEAR).value == 1999
    # '1999-1-1' is the date 1999-01-01; as a FilterYear value it runs as a date comparison,
    # which only the strict option flags.
    assert str(read_literal("1999-1-1", YEAR)) == "1999-01-01"
    assert checker_accepts(YEAR, "1999-1-1", strict_time_kinds=False)
    assert not checker_accepts(YEAR, "1999-1-1", strict_time_kinds=True)
    assert checker_accepts(DATE, "1999-1-1", strict_time_kinds=True)


def sexpr_accepts(form: str) -> bool:
    try:
        parse_sexpr(form)
    except ParseError as err:
        assert err.diagnostics[0].code == "bad-literal", err
        return False
    return True


@pytest.mark.parametrize(("kind", "text", "reads"), TABLE, ids=IDS)
def test_sexpr_literals_are_the_plain_atoms_the_strict_checker_accepts(kind, text, reads):
    if kind not in (QUANTITY, YEAR, DATE) or "^^" in text:
        return
    datatype = {QUANTITY: INTEGER, YEAR: GYEAR, DATE: GDATE}[kind]
    expected = is_plain_atom(text) and checker_accepts(kind, text, strict_time_kinds=True)
    assert sexpr_accepts(f'(JOIN k "{text}"^^{datatype})') is expected


SETTINGS = settings(max_examples=examples(400), deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))
TEXTS = st.one_of(
    st.from_regex(r"[ +-]?\d{1,5}([-/]\d{1,3}([-/]\d{1,3})?)? ?", fullmatch=True),
    st.from_regex(r" ?[+-]?\d{0,3}[._]?\d{0,3}(e-?\d)?( [a-z]+)? ?", fullmatch=True),
    st.sampled_from(["NOW", "nan", "inf", "-inf", "1_0", "_1", "1__0", "٣", "１２"]),
    st.text(max_size=8),
)


@SETTINGS
@given(TEXTS, st.sampled_from([QUANTITY, YEAR, DATE, TIME]))
def test_checker_acceptance_is_executor_acceptance(text, kind):
    runs = executor_runs(kind, text)
    assert checker_accepts(kind, text, strict_time_kinds=False) is runs
    assert lowering_runs(kind, text) is runs
    if kind != TIME:
        assert engine_reads(kind, text) is runs
