"""The fixture of ill-typed and malformed programs (`fixtures/diagnostics.jsonl`), every syntax.

Each line: `syntax`, `program`, and the `code`, `line` and `column` of the first diagnostic;
optionally `message` (text its rendering shows), `diagnostics` (every finding as
`[code, line, column]`, in the order reported) and `why` (for the reader).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from koplc import api
from koplc.kopl.errors import ParseError

CASES = [json.loads(line) for line in
         (Path(__file__).parent / "fixtures" / "diagnostics.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("case", CASES, ids=[f"{c['syntax']}-{c['code']}-{i}"
                                             for i, c in enumerate(CASES)])
def test_expected_diagnostic(case):
    text, line, column = case["program"], case["line"], case["column"]
    report = api.check(text, case["syntax"])
    first = report.diagnostics[0]
    assert (first.code, first.span.line, first.span.column) == (case["code"], line, column)
    rendered = first.render(text)
    source_line = (text.splitlines() or [""])[line - 1]
    assert f"Line {line}, Col {column}\n  {source_line}\n  {' ' * (column - 1)}^" in rendered
    assert case.get("message", "") in rendered
    if "diagnostics" in case:
        assert [[d.code, d.span.line, d.span.column] for d in report.diagnostics] == \
            case["diagnostics"]
    if report.parsed is None:  # a parse error: raised with the text its spans point into
        with pytest.raises(ParseError) as err:
            api.parse(text, case["syntax"])
        assert err.value.source == text and rendered in str(err.value)


def test_fixture_covers_every_checker_rule():
    codes = {c["code"] for c in CASES}
    checker_rules = {"type-mismatch", "bad-literal", "bad-comparator", "bad-direction",
                     "missing-direction", "bad-operator", "empty-argument", "entity-set-result"}
    parse_errors = {"unbalanced-parens", "unterminated-string", "missing-done",
                    "unknown-function", "arity", "missing-input", "unused-step"}
    assert checker_rules | parse_errors <= codes
    assert len(CASES) >= 25


def test_rendering_points_at_the_text():
    text = "Step 1: Find(X)\nStep 2: Relat(r, forward)\nStep 3: QueryName()\nDone"
    rendered = api.check(text).diagnostics[0].render(text)
    assert rendered == ("error[unknown-function]: unknown function 'Relat'; did you mean "
                        "'Relate'? Line 2, Col 9\n  Step 2: Relat(r, forward)\n          ^^^^^")
