"""The syntaxes koplc reads and prints, by name: detection, parsing and printing through the IR.

`koplc.api` re-exports these; they live apart so that modules below the API can use them.
"""

from __future__ import annotations

from types import ModuleType

import koplc.sexpr as sexpr_syntax
from koplc.kopl.diagnostics import Span
from koplc.kopl.errors import KoplcError, ParseError
from koplc.kopl.ir import Node
from koplc.kopl.program import Parsed
from koplc.kopl.syntax import bart as bart_syntax
from koplc.kopl.syntax import engine_pair, ir_json, kqapro_json
from koplc.kopl.syntax import nested as nested_syntax
from koplc.kopl.syntax import steps as steps_syntax

SYNTAXES: dict[str, ModuleType] = {
    module.NAME: module
    for module in (steps_syntax, nested_syntax, kqapro_json, engine_pair, bart_syntax,
                   sexpr_syntax, ir_json)
}
_DETECTION_ORDER = ("ir-json", "kqapro-json", "kopl-engine", "kopl-steps", "kopl-bart",
                    "sexpr", "kopl-nested")


def detect_syntax(text: str) -> str:
    """The name of the syntax `text` is written in, judged from how it starts.

    >>> detect_syntax("Step 1: FindAll()\\nStep 2: Count()\\nDone")
    'kopl-steps'
    >>> detect_syntax("(COUNT (JOIN r m.01))")
    'sexpr'
    """
    for name in _DETECTION_ORDER:
        if SYNTAXES[name].looks_like(text):
            return name
    raise ParseError("cannot tell which syntax this is; name it with --from "
                     f"({', '.join(SYNTAXES)})", code="unknown-syntax",
                     span=Span.at_offset(text, len(text) - len(text.lstrip())), source=text)


def syntax_module(name: str) -> ModuleType:
    """The module implementing syntax `name`; raises KoplcError for an unknown name."""
    if name not in SYNTAXES:
        raise KoplcError(f"unknown syntax {name!r}; choose one of {', '.join(SYNTAXES)}",
                         code="unknown-syntax")
    return SYNTAXES[name]


def parse(text: str, syntax: str = "auto") -> Parsed:
    """Parse a program written in `syntax` (or detected) into the IR."""
    name = detect_syntax(text) if syntax == "auto" else syntax
    return syntax_module(name).parse(text)


def print_program(program: Node, syntax: str) -> str:
    """The canonical text of a program in `syntax`; UnsupportedConstruct if it cannot say it."""
    return syntax_module(syntax).print_program(program)
