"""Syntaxes by name: detection, parsing and printing through the IR.

A syntax is a module with `NAME`, `looks_like(text)`, `parse(text) -> Parsed` and
`print_program(program) -> str`. `KOPL_SYNTAXES` holds KoPL's; a syntax from another package
joins with `SyntaxTable.adding`, which says where it is listed and where detection tries it
(`koplc.syntaxes` adds the S-expressions that way).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from koplc.kopl.diagnostics import Span
from koplc.kopl.errors import KoplcError, ParseError
from koplc.kopl.ir import Node
from koplc.kopl.program import Parsed
from koplc.kopl.syntax import bart, engine_pair, ir_json, kqapro_json, nested, steps


@dataclass(frozen=True)
class SyntaxTable:
    """Syntax modules by name, in the order they are listed, and the order detection tries."""

    modules: dict[str, ModuleType]
    detection_order: tuple[str, ...]

    def adding(self, module: ModuleType, *, listed_before: str,
               detected_before: str) -> SyntaxTable:
        """This table and `module`, listed before syntax `listed_before` and tried by detection
        before syntax `detected_before`."""
        names = list(self.modules)
        names.insert(names.index(listed_before), module.NAME)
        order = list(self.detection_order)
        order.insert(order.index(detected_before), module.NAME)
        modules = {**self.modules, module.NAME: module}
        return SyntaxTable({name: modules[name] for name in names}, tuple(order))

    def detect(self, text: str) -> str:
        """The name of the syntax `text` is written in, judged from how it starts.

        >>> KOPL_SYNTAXES.detect("Step 1: FindAll()\\nStep 2: Count()\\nDone")
        'kopl-steps'
        """
        for name in self.detection_order:
            if self.modules[name].looks_like(text):
                return name
        raise ParseError("cannot tell which syntax this is; name it with --from "
                         f"({', '.join(self.modules)})", code="unknown-syntax",
                         span=Span.at_offset(text, len(text) - len(text.lstrip())), source=text)

    def module(self, name: str) -> ModuleType:
        """The module implementing syntax `name`; raises KoplcError for an unknown name."""
        if name not in self.modules:
            raise KoplcError(f"unknown syntax {name!r}; choose one of {', '.join(self.modules)}",
                             code="unknown-syntax")
        return self.modules[name]

    def parse(self, text: str, syntax: str = "auto") -> Parsed:
        """Parse a program written in `syntax` (or detected) into the IR."""
        name = self.detect(text) if syntax == "auto" else syntax
        return self.module(name).parse(text)

    def print_program(self, program: Node, syntax: str) -> str:
        """The canonical text of a program in `syntax`; UnsupportedConstruct if it cannot say
        it."""
        return self.module(syntax).print_program(program)


KOPL_SYNTAXES = SyntaxTable(
    {module.NAME: module for module in (steps, nested, kqapro_json, engine_pair, bart, ir_json)},
    ("ir-json", "kqapro-json", "kopl-engine", "kopl-steps", "kopl-bart", "kopl-nested"))
