"""The KQA Pro program list: ``[{"function": "Find", "dependencies": [], "inputs": ["X"]}, ...]``.

Dependencies are 0-based indexes of earlier records and are taken as given. Inputs are strings;
a JSON number is accepted as the text it was written with.

Two readers. `parse` keeps a span for every value so that errors point at the text.
`program_from_kqapro` reads lists in bulk (for execution) without spans: the text goes through
`json.loads` and, when every step is regular (known function, right arity, earlier dependencies,
string inputs, every step used), into the IR's interchange dict, validated in one pydantic call.
Anything irregular is handed to `parse`, which builds the same tree or raises its ParseError with
spans: the result never differs from `parse`'s.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

from koplc.kopl import registry
from koplc.kopl.diagnostics import Diagnostic
from koplc.kopl.errors import ParseError
from koplc.kopl.ir import Node
from koplc.kopl.program import MAX_DEPTH, Parsed, program_from_data
from koplc.kopl.syntax import located_json as jp
from koplc.kopl.syntax.step_list import Step, args_to_fields, build_tree, linearize

NAME = "kqapro-json"

_KEYS = ("function", "dependencies", "inputs")
_KEY_SET = frozenset(_KEYS)
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
    return build_tree([s for s in steps if s is not None], text)  # a None left a diagnostic


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


def program_from_kqapro(text: str) -> Node:
    """The program of a KQA Pro JSON list, without spans; ParseError (from `parse`) if malformed.

    >>> program_from_kqapro('[{"function": "FindAll", "dependencies": [], "inputs": []}]')
    FindAll(op='FindAll')
    """
    try:
        steps = json.loads(text)
    except ValueError:
        steps = None
    program = program_from_steps(steps) if isinstance(steps, list) else None
    return program if program is not None else parse(text).program


def program_from_steps(steps: list) -> Node | None:
    """The program of decoded KQA Pro steps, or None when any step is irregular."""
    built: list[dict] = []  # each step as the interchange dict; validated once at the end
    depths: list[int] = []
    used = [False] * len(steps)
    try:
        for index, step in enumerate(steps):
            if type(step) is not dict or step.keys() != _KEY_SET:
                return None
            deps, inputs = step["dependencies"], step["inputs"]
            if type(deps) is not list or type(inputs) is not list:
                return None
            shape = _shape(step["function"], tuple(inputs))
            if shape is None or len(deps) != len(shape[1]):
                return None
            for dep in deps:
                if type(dep) is not int or not 0 <= dep < index:
                    return None
                used[dep] = True
            # Plain loops: max(default=) and zip(strict=) are slow in this hot path.
            depth = 1
            for dep in deps:
                if depths[dep] >= depth:
                    depth = depths[dep] + 1
            if depth > MAX_DEPTH:
                return None
            data, child_names = shape[0].copy(), shape[1]
            for name, dep in zip(child_names, deps):  # noqa: B905 - lengths checked above
                data[name] = built[dep]
            built.append(data)
            depths.append(depth)
    except (TypeError, ValueError):
        return None
    if not built or not all(used[:-1]):
        return None
    return program_from_data(built[-1])


@lru_cache(maxsize=1 << 16)
def _shape(function: str, inputs: tuple) -> tuple[dict, tuple[str, ...]] | None:
    """The step's interchange dict without its children, and the child field names; None if
    the step is irregular."""
    info = registry.lookup(function)
    if info is None or any(type(x) is not str for x in inputs):
        return None
    fields = args_to_fields(info, list(inputs))
    if isinstance(fields, str):
        return None
    return {"op": info.name, **fields}, tuple(name for name, _ in info.inputs)
