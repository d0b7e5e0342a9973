"""Build the IR of a KQA Pro program list fast, without source spans, for bulk execution.

`kqapro_json.parse` tracks a span for every value so that errors point at the text; that costs
about a millisecond a program. Here the text goes through `json.loads` and, when every step is
regular (known function, right arity, earlier dependencies, string inputs, every step used),
into the IR's interchange dict, validated in one pydantic call. Anything irregular is handed to `kqapro_json.parse`, which builds the
same tree or raises its ParseError with spans: the result never differs from the full parser's.
"""

from __future__ import annotations

import json
from functools import lru_cache

from koplc.kopl import registry
from koplc.kopl.ir import Node
from koplc.kopl.program import MAX_DEPTH, program_from_data
from koplc.kopl.syntax import kqapro_json
from koplc.kopl.syntax.step_list import args_to_fields

_KEYS = {"function", "dependencies", "inputs"}


def program_from_kqapro(text: str) -> Node:
    """The program of a KQA Pro JSON list; ParseError (from the full parser) if malformed.

    >>> program_from_kqapro('[{"function": "FindAll", "dependencies": [], "inputs": []}]')
    FindAll(op='FindAll')
    """
    try:
        steps = json.loads(text)
    except ValueError:
        steps = None
    program = program_from_steps(steps) if isinstance(steps, list) else None
    return program if program is not None else kqapro_json.parse(text).program


def program_from_steps(steps: list) -> Node | None:
    """The program of decoded KQA Pro steps, or None when any step is irregular."""
    built: list[dict] = []  # each step as the interchange dict; validated once at the end
    depths: list[int] = []
    used = [False] * len(steps)
    try:
        for index, step in enumerate(steps):
            if type(step) is not dict or step.keys() != _KEYS:
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
