"""Laws over generated well-typed programs (at least 500 examples each)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings

from budget import examples
from koplc import api
from koplc.kopl.check import check
from koplc.kopl.ir import Find, QueryName
from koplc.kopl.program import program_from_json, program_to_json
from strategies import PLAIN_NAMES, WILD_NAMES, programs, sexpr_programs

LAWS = settings(max_examples=examples(500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
NAMES_FOR = {"kopl-steps": WILD_NAMES, "kopl-nested": WILD_NAMES, "kqapro-json": WILD_NAMES,
             "kopl-engine": WILD_NAMES, "ir-json": WILD_NAMES, "kopl-bart": PLAIN_NAMES}


@pytest.mark.parametrize("syntax", list(NAMES_FOR))
def test_print_then_parse_is_the_identity(syntax):
    @LAWS
    @given(programs(names=NAMES_FOR[syntax]))
    @example(QueryName(input=Find(name="op")))  # an argument spelled like IR JSON's key
    def law(program):
        text = api.print_program(program, syntax)
        assert api.parse(text, syntax).program == program
        assert api.detect_syntax(text) == syntax

    law()


@LAWS
@given(programs(names=WILD_NAMES))
def test_json_dump_then_load_is_the_identity(program):
    assert program_from_json(program_to_json(program)) == program
    assert type(program).model_validate(program.model_dump()) == program


@LAWS
@given(programs())
def test_every_generated_program_passes_the_checker(program):
    assert [d for d in check(program) if d.is_error] == []


@LAWS
@given(sexpr_programs())
def test_sexpr_print_then_parse_is_stable(program):
    text = api.print_program(program, "sexpr")
    again = api.parse(text, "sexpr").program
    assert api.print_program(again, "sexpr") == text
    assert api.parse(api.print_program(again, "sexpr"), "sexpr").program == again


@LAWS
@given(sexpr_programs())
def test_kopl_to_ir_to_sexpr_to_ir_is_stable(program):
    kopl = api.parse(api.print_program(program, "kopl-steps"), "kopl-steps").program
    assert kopl == program
    sexpr_text = api.print_program(kopl, "sexpr")
    via_sexpr = api.parse(sexpr_text, "sexpr").program
    back_to_kopl = api.parse(api.print_program(via_sexpr, "kopl-steps"), "kopl-steps").program
    assert back_to_kopl == via_sexpr
    assert api.print_program(back_to_kopl, "sexpr") == sexpr_text
    assert [d for d in check(via_sexpr) if d.is_error] == []
