"""The official KoPL engine's input: ``{"functions": [...], "inputs": [[...], ...]}``.

The pair may also be a two-element array ``[functions, inputs]``. No dependencies are written:
`build_tree` infers them with the engine's branch stack.
"""

from __future__ import annotations

import json
import re

from koplc.kopl.diagnostics import Diagnostic
from koplc.kopl.errors import ParseError
from koplc.kopl.ir import Node
from koplc.kopl.program import Parsed
from koplc.kopl.syntax import located_json as jp
from koplc.kopl.syntax.step_list import Step, build_tree, linearize

NAME = "kopl-engine"

_KEYS = ("functions", "inputs")
_OBJECT_START = re.compile(r"\s*\{")
_PAIR_START = re.compile(r"\s*\[\s*\[")


def looks_like(text: str) -> bool:
    """Whether the text starts like an object with "functions" or an array of two lists."""
    return ((_OBJECT_START.match(text) is not None and '"functions"' in text)
            or _PAIR_START.match(text) is not None)


def parse(text: str) -> Parsed:
    """Parse an engine (functions, inputs) pair into the IR; dependencies by branch stack."""
    root = jp.load(text)
    diagnostics: list[Diagnostic] = []
    pair = _pair(root, diagnostics)
    if pair is None:
        raise ParseError(diagnostics, source=text)
    functions_value, inputs_value = pair
    functions = jp.strings(functions_value, '"functions"', diagnostics)
    input_lists = jp.array(inputs_value, '"inputs"', diagnostics)
    args = [jp.strings(item, f"the inputs of step {i + 1}", diagnostics)
            for i, item in enumerate(input_lists or [])]
    if functions is not None and input_lists is not None and len(functions) != len(input_lists):
        diagnostics.append(Diagnostic(
            "length-mismatch", f"{_count(len(functions), 'function')} but "
            f"{_count(len(input_lists), 'input list')}: each function needs its own list",
            inputs_value.span))
    if diagnostics:
        raise ParseError(diagnostics, source=text)
    # Each None above left a diagnostic.
    assert functions is not None
    steps = [Step(name, [value for value, _ in step_args], span, function_span=span,
                  arg_spans=[s for _, s in step_args])
             for (name, span), step_args in zip(functions, args, strict=True)
             if step_args is not None]
    return build_tree(steps, text)


def _pair(root: jp.Located, diagnostics: list[Diagnostic]
          ) -> tuple[jp.Located, jp.Located] | None:
    if isinstance(root.value, list) and len(root.value) == 2:
        return root.value[0], root.value[1]
    if isinstance(root.value, list):
        diagnostics.append(Diagnostic(
            "wrong-type", f"an engine pair array must have two elements [functions, inputs], "
            f"not {len(root.value)}", root.span))
        return None
    members = jp.fields(root, _KEYS, "an engine pair", diagnostics)
    return None if members is None else (members["functions"], members["inputs"])


def print_program(program: Node) -> str:
    """The canonical engine pair of a program.

    >>> from koplc.kopl.ir import Count, FindAll
    >>> print_program(Count(input=FindAll()))
    '{"functions": ["FindAll", "Count"], "inputs": [[], []]}'
    """
    steps = linearize(program)
    return json.dumps({"functions": [s.function for s in steps],
                       "inputs": [s.args for s in steps]}, ensure_ascii=False)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
