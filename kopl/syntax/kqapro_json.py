"""The KQA Pro program list: ``[{"function": "Find", "dependencies": [], "inputs": ["X"]}, ...]``.

Dependencies are 0-based indexes of earlier records and are taken as given. Inputs are strings;
a JSON number is accepted as the text it was written with.
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

NAME = "kqapro-json"

_KEYS = ("function", "dependencies", "inputs")
_START = re.compile(r"\s*\[\s*\{")


def looks_like(text: str) -> bool:
    """Whether the text starts like a JSON list of objects naming a "function"."""
    return _START.match(text) is not None and '"function"' in text


def parse(text: str) -> Parsed:
    """Parse a KQA Pro program list into the IR; raises ParseError with every problem found."""
    root = jp.load(text)
    diagnostics: list[Diagnostic] = []
    records = jp.array(root, "a KQA Pro program", diagnostics)
    steps = [_step(i, record, diagnostics) for i, record in enumerate(records or [])]
    if diagnostics:
        raise ParseError(diagnostics, source=text)
    return build_tree(steps, text)


def _step(index: int, record: jp.Located, diagnostics: list[Diagnostic]) -> Step | None:
    what = f"step {index + 1}"
    members = jp.fields(record, _KEYS, what, diagnostics)
    if members is None:
        return None
    function = jp.string(members["function"], f"the function of {what}", diagnostics)
    deps = jp.indexes(members["dependencies"], f"the dependencies of {what}", diagnostics)
    inputs = jp.strings(members["inputs"], f"the inputs of {what}", diagnostics)
    if function is None or deps is None or inputs is None:
        return None
    return Step(function, [value for value, _ in inputs], record.span,
                function_span=members["function"].span,
                arg_spans=[span for _, span in inputs],
                dependencies=deps, dependencies_span=members["dependencies"].span)


def print_program(program: Node) -> str:
    """The canonical KQA Pro list of a program.

    >>> from koplc.kopl.ir import Count, FindAll
    >>> print_program(Count(input=FindAll()))
    '[{"function": "FindAll", "dependencies": [], "inputs": []}, {"function": "Count", "dependencies": [0], "inputs": []}]'
    """
    return json.dumps([{"function": s.function, "dependencies": s.dependencies, "inputs": s.args}
                       for s in linearize(program)], ensure_ascii=False)
