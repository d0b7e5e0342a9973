"""Typed values against the official engine's `util.py`: reading literals, rendering, comparing."""

from __future__ import annotations

from datetime import date

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from budget import examples
from koplc.kopl.units import convert, factor
from koplc.kopl.values import (
    DATE,
    QUANTITY,
    STRING,
    YEAR,
    UnsupportedComparison,
    Value,
    matcher,
    parse_literal,
)
from official_engine import official_modules

SETTINGS = settings(max_examples=examples(300), deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))
UNITS = st.sampled_from(["1", "centimetre", "metre", ""])
VALUES = st.one_of(
    st.builds(lambda s: Value(STRING, s), st.sampled_from(["male", "female", "2003"])),
    st.builds(lambda n, u: Value(QUANTITY, float(n), u),
              st.one_of(st.integers(-3, 300), st.floats(-5, 5, allow_nan=False).map(
                  lambda f: round(f, 2))), UNITS),
    st.builds(lambda y: Value(YEAR, y), st.integers(1983, 1986)),
    st.builds(lambda d: Value(DATE, d), st.dates(date(1983, 12, 25), date(1986, 1, 5))),
)
OPS = st.sampled_from(["=", "!=", "<", ">", "<=", ">=", "bigger"])


def engine_value(value: Value):
    return official_modules()["util"].ValueClass(value.type, value.value, value.unit)


RAISED = "raised"


def outcome(call):
    try:
        return call()
    except Exception:  # noqa: BLE001 - both sides raise different types; raising is the outcome
        return RAISED


@SETTINGS
@given(VALUES, VALUES, OPS)
def test_comparison_is_the_engines(a, b, op):
    util = official_modules()["util"]
    ea, eb = engine_value(a), engine_value(b)
    theirs = outcome(lambda: ea.can_compare(eb) and util.comp(ea, eb, op))
    ours = outcome(lambda: matcher(b, op)(a))
    assert ours == theirs


@SETTINGS
@given(VALUES)
def test_rendering_is_the_engines(value):
    assert str(value) == str(engine_value(value))


TEXTS = st.one_of(
    st.from_regex(r"-?\d{1,4}([-/]\d{1,2}[-/]\d{1,2})?", fullmatch=True),
    st.from_regex(r" ?-?\d{1,3}(\.\d+)?( [a-z]+( [a-z]+)?)? ?", fullmatch=True),
    st.text(max_size=6),
)


@SETTINGS
@given(TEXTS, st.sampled_from([STRING, QUANTITY, YEAR, DATE]))
def test_literals_are_read_as_the_engine_reads_them(text, kind):
    engine = official_modules()["kopl"].KoPLEngine
    theirs = outcome(lambda: engine._parse_key_value(None, None, text, kind))
    ours = outcome(lambda: parse_literal(text, kind))
    if theirs is RAISED or ours is RAISED:
        assert ours is theirs
    else:
        assert (ours.type, str(ours), ours.unit) == (theirs.type, str(theirs), theirs.unit)


def test_time_equality_is_containment():
    birthday = Value(DATE, date(1984, 12, 30))
    assert matcher(Value(YEAR, 1984), "=")(birthday)
    assert not matcher(birthday, "=")(Value(YEAR, 1984))
    assert matcher(Value(YEAR, 1985), "<")(birthday)
    assert not matcher(Value(YEAR, 1984), "<")(birthday)  # compared by year


def test_inclusive_comparators_are_an_option():
    height = Value(QUANTITY, 206.0, "centimetre")
    target = Value(QUANTITY, 206.0, "centimetre")
    assert matcher(target, "<=", inclusive=True)(height)
    assert matcher(target, ">=", inclusive=True)(height)
    assert not matcher(Value(QUANTITY, 205.0, "centimetre"), "<=", inclusive=True)(height)
    try:
        matcher(target, "<=")(height)
    except UnsupportedComparison:
        pass
    else:
        raise AssertionError("without the option, <= raises once it compares, as the engine")
    assert matcher(target, "<=")(Value(QUANTITY, 1.0, "metre")) is False  # never compared


def test_unit_conversion_converts_what_sympy_can():
    assert factor("centimetre", "metre") == 0.01
    assert factor("United States dollar", "euro") is None
    assert factor("kilogram", "metre") is None
    metres = Value(QUANTITY, 2.06, "metre")
    assert convert(Value(QUANTITY, 206.0, "centimetre"), metres).value == 2.06
    test = matcher(metres, "=", convert=convert)
    assert test(Value(QUANTITY, 206.0, "centimetre"))
    assert not matcher(metres, "=")(Value(QUANTITY, 206.0, "centimetre"))
    assert matcher(Value(QUANTITY, 2.0, "metre"), ">", convert=convert)(
        Value(QUANTITY, 206.0, "centimetre"))
