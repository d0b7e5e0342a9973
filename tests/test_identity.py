"""The identity corpora (`fixtures/identity/`): every program of every syntax prints back
unchanged and survives the IR's JSON; the corpora cover what their printers can say, and the
four aligned KoPL corpora hold the same programs line by line."""

from __future__ import annotations

from pathlib import Path

import pytest

from koplc.kopl.program import program_from_json, program_to_json
from koplc.kopl.registry import OPS
from koplc.sexpr.printer import SUPPORTED as SEXPR_OPS
from koplc.syntaxes import detect_syntax, parse, print_program

IDENTITY = Path(__file__).parent / "fixtures" / "identity"
FILES = {"kopl-steps": "kopl_steps.txt", "kopl-nested": "kopl_nested.txt",
         "kqapro-json": "kqapro_json.txt", "kopl-engine": "kopl_engine.txt",
         "kopl-bart": "kopl_bart.txt", "sexpr": "sexpr.txt"}
ALIGNED = ("kqapro-json", "kopl-engine", "kopl-bart")
"""Line i of each of these corpora is the program on line i of the kopl-nested corpus."""

EXPRESSIBLE = {syntax: set(OPS) for syntax in FILES} | {"sexpr": SEXPR_OPS | {"FindAll"}}


def corpus(syntax: str) -> list[str]:
    """The programs of one corpus: kopl-steps programs are separated by a blank line, every
    other syntax has one program a line; lines starting with '#' are comments."""
    text = (IDENTITY / FILES[syntax]).read_text(encoding="utf-8")
    if syntax == "kopl-steps":
        return text.strip().split("\n\n")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


CASES = [(syntax, text) for syntax in FILES for text in corpus(syntax)]


@pytest.mark.parametrize(("syntax", "text"), CASES,
                         ids=[f"{s}-{i}" for s in FILES for i in range(len(corpus(s)))])
def test_prints_back_unchanged_and_through_ir_json(syntax, text):
    program = parse(text, syntax).program
    assert print_program(program, syntax) == text
    assert program_from_json(program_to_json(program)) == program
    assert detect_syntax(text) == syntax


@pytest.mark.parametrize("syntax", FILES)
def test_corpus_covers_every_op_its_printer_can_say(syntax):
    programs = corpus(syntax)
    ops = {type(node).__name__ for text in programs for _, node in parse(text, syntax).program.walk()}
    assert ops == EXPRESSIBLE[syntax]
    assert len(programs) >= 15


def test_sexpr_corpus_covers_every_construct():
    text = "\n".join(corpus("sexpr"))
    for construct in ["(AND ", "(JOIN ", "(R ", "(COUNT ", "(ARGMAX ", "(ARGMIN ", "(lt ",
                      "(le ", "(gt ", "(ge ", "(TC ", "#integer", "#float", "#gYear", "#date",
                      '"', "m.0", "canadian law"]:
        assert construct in text, construct


@pytest.mark.parametrize("syntax", ALIGNED)
def test_aligned_corpus_agrees_with_nested_calls_line_by_line(syntax):
    nested, lines = corpus("kopl-nested"), corpus(syntax)
    assert len(lines) == len(nested)
    for i, (nested_line, line) in enumerate(zip(nested, lines, strict=True)):
        program = parse(nested_line, "kopl-nested").program
        assert parse(line, syntax).program == program, i
        assert print_program(program, syntax) == line, i
