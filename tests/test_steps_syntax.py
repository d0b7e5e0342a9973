"""The KoPL steps syntax: identity corpus, tolerance of real LLM output, printing."""

from __future__ import annotations

from koplc.kopl import ir
from koplc.kopl.syntax import steps as steps_syntax
from koplc.kopl.types import Direction


def test_sloppy_forms_parse_to_the_same_program():
    canonical = "Step 1: Find(The Grey)\nStep 2: Relate(written by, forward)\nStep 3: QueryName()\nDone"
    sloppy = [
        "Step# 1: Find(The Grey)\nStep# 2: Relate(written by,forward)\nStep# 3: What()\nDone",
        "  step #1 - Find('The Grey')\n\nSTEP 2. Relate(\"written by\", Forward)\nStep 3: What()\ndone.\n",
        "Step 1: Find( The Grey )\r\nStep 2: Relate(written by ,  forward )\r\nStep 3: What()\r\nDone\r\n",
    ]
    expected = steps_syntax.parse(canonical).program
    for text in sloppy:
        assert steps_syntax.parse(text).program == expected


def test_names_with_commas_merge_into_the_free_text_argument():
    text = "Step 1: Find(Facebook, Inc.)\nStep 2: QFilterStr(statement is subject of, A, B)\nDone"
    program = steps_syntax.parse(text).program
    assert program.input == ir.Find(name="Facebook, Inc.")
    assert program.qvalue == "A, B"


def test_missing_direction_is_kept_as_none():
    program = steps_syntax.parse("Step# 1: Find(X)\nStep# 2: Relate(release_year)\nDone").program
    assert program.direction is None
    assert steps_syntax.print_program(program).splitlines()[1] == "Step 2: Relate(release_year)"


def test_branch_stack_dependencies():
    text = ("Step 1: Find(Washington)\nStep 2: Relate(located in, backward)\nStep 3: Find(Pierce)\n"
            "Step 4: And()\nStep 5: Find(Grays Harbor)\nStep 6: SelectBetween(area, less)\nDone")
    program = steps_syntax.parse(text).program
    assert program.right == ir.Find(name="Grays Harbor")
    assert program.left.right == ir.Find(name="Pierce")
    assert program.left.left.direction is Direction.BACKWARD


def test_spans_point_at_steps_and_arguments():
    text = "Step 1: Find(X)\nStep 2: Relate(written_by, forward)\nStep 3: What()\nDone"
    parsed = steps_syntax.parse(text)
    assert parsed.source_map.node(()).line == 3
    arg = parsed.source_map.arg((0,), "direction")
    assert (arg.line, arg.column) == (2, 28)
    assert text[arg.start:arg.end] == "forward"
