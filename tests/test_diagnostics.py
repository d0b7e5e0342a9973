"""The fixture of ill-typed and malformed programs: each gets its expected code at its position."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from koplc import api

CASES = [json.loads(line) for line in
         (Path(__file__).parent / "fixtures" / "diagnostics.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("case", CASES, ids=[f"{c['syntax']}-{c['code']}-{i}"
                                             for i, c in enumerate(CASES)])
def test_expected_diagnostic(case):
    report = api.check(case["program"], case["syntax"])
    found = [(d.code, d.span.line, d.span.column) for d in report.diagnostics if d.span]
    assert (case["code"], case["line"], case["column"]) in found, report.diagnostics


def test_fixture_covers_every_checker_rule():
    codes = {c["code"] for c in CASES}
    checker_rules = {"type-mismatch", "bad-literal", "bad-comparator", "bad-direction",
                     "missing-direction", "bad-operator", "empty-argument", "entity-set-result"}
    parse_errors = {"unbalanced-parens", "unterminated-string", "missing-done",
                    "unknown-function", "arity", "missing-input", "unused-step"}
    assert checker_rules | parse_errors <= codes
    assert len(CASES) >= 25


def test_all_problems_reported_at_once():
    text = ("Step 1: Find(X)\nStep 2: QFilterStr(a, b)\nStep 3: FilterNum(k, big, more)\n"
            "Step 4: Relate(r)\nStep 5: Count()\nDone")
    codes = sorted(d.code for d in api.check(text).diagnostics)
    assert codes == ["bad-comparator", "bad-literal", "missing-direction", "type-mismatch"]


def test_rendering_points_at_the_text():
    text = "Step 1: Find(X)\nStep 2: Relat(r, forward)\nStep 3: QueryName()\nDone"
    rendered = api.check(text).diagnostics[0].render(text)
    assert rendered == ("error[unknown-function]: unknown function 'Relat'; did you mean "
                        "'Relate'? Line 2, Col 9\n  Step 2: Relat(r, forward)\n          ^^^^^")
