"""The step list form shared by the linear syntaxes (steps text, KQA Pro JSON, engine pair, BART).

A step is a function name plus flat textual arguments. `build_tree` turns a step list into the
IR tree, inferring dependencies with the official engine's branch stack (an op with no
functional input opens a branch, one with two closes the newest) or taking them as given, and
reports every structural problem at once. `linearize` is the inverse: the post-order step list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from koplc.kopl import registry
from koplc.kopl.diagnostics import Diagnostic, Span
from koplc.kopl.errors import ParseError
from koplc.kopl.ir import Hop, Node
from koplc.kopl.program import MAX_DEPTH, Parsed, SourceMap
from koplc.kopl.registry import OpInfo
from koplc.kopl.types import AmongOp, ArgKind, BetweenOp, Comparator, Direction

_ENUMS = {ArgKind.DIRECTION: Direction, ArgKind.COMPARATOR: Comparator,
          ArgKind.BETWEEN: BetweenOp, ArgKind.AMONG: AmongOp}


@dataclass
class Step:
    """One step as written: function name, textual arguments, and their spans."""

    function: str
    args: list[str]
    span: Span
    function_span: Span | None = None
    arg_spans: list[Span] = field(default_factory=list)
    dependencies: list[int] | None = None
    dependencies_span: Span | None = None


@dataclass
class _Built:
    node: Node
    spans: SourceMap  # relative to this subtree's root
    depth: int = 1


def build_tree(steps: list[Step], source: str) -> Parsed:
    """The IR tree of a step list; raises ParseError listing every structural problem."""
    diagnostics: list[Diagnostic] = []
    if not steps:
        raise ParseError("the program has no steps", code="empty-program",
                         span=Span.at_offset(source, 0), source=source)
    if all(s.dependencies is None for s in steps):
        root = _by_branch_stack(steps, diagnostics)
    else:
        root = _by_dependencies(steps, diagnostics)
    if diagnostics or root is None:
        raise ParseError(diagnostics, source=source)
    return Parsed(root.node, root.spans, source)


def _by_branch_stack(steps: list[Step], diagnostics: list[Diagnostic]) -> _Built | None:
    current: _Built | None = None
    current_step: Step | None = None
    stack: list[tuple[_Built | None, Step]] = []
    broken = False
    for step in steps:
        info = _lookup(step, diagnostics)
        arity = info.arity if info else 1
        if arity == 0:
            if current_step is not None:
                stack.append((current, current_step))
            inputs: list[_Built | None] = []
        elif current_step is None:
            diagnostics.append(Diagnostic(
                "missing-input", f"{step.function} needs {_inputs_phrase(arity)} but no "
                "earlier step produces one", step.span))
            broken = True
            inputs = []
        elif arity == 1:
            inputs = [current]
        elif not stack:
            diagnostics.append(Diagnostic(
                "missing-input", f"{step.function} needs two inputs but only one branch is "
                "open: start the other with Find or FindAll", step.span))
            broken = True
            inputs = [current]
        else:
            left, _ = stack.pop()
            inputs = [left, current]
        current = _make(info, step, inputs, diagnostics) if info else None
        current_step = step
    for _, unused in stack:
        diagnostics.append(Diagnostic(
            "unused-step", f"the result of {unused.function} is never used", unused.span))
    return None if broken else current


def _by_dependencies(steps: list[Step], diagnostics: list[Diagnostic]) -> _Built | None:
    built: list[_Built | None] = []
    used: set[int] = set()
    for index, step in enumerate(steps):
        info = _lookup(step, diagnostics)
        deps = step.dependencies or []
        span = step.dependencies_span or step.span
        if info and len(deps) != info.arity:
            diagnostics.append(Diagnostic(
                "arity", f"{info.name} takes {_inputs_phrase(info.arity)}, "
                f"got {len(deps)} dependencies", span))
        inputs: list[_Built | None] = []
        for dep in deps:
            if not 0 <= dep < index:
                diagnostics.append(Diagnostic(
                    "dangling-dependency", f"step {index + 1} depends on step {dep + 1}, which "
                    "is not an earlier step", span))
                inputs.append(None)
            else:
                used.add(dep)
                inputs.append(built[dep])
        if info is not None and len(deps) == info.arity:
            built.append(_make(info, step, inputs, diagnostics))
        else:
            built.append(None)
    for index, step in enumerate(steps[:-1]):
        if index not in used:
            diagnostics.append(Diagnostic(
                "unused-step", f"the result of step {index + 1} ({step.function}) is never used",
                step.span))
    return built[-1]


def _lookup(step: Step, diagnostics: list[Diagnostic]) -> OpInfo | None:
    info = registry.lookup(step.function)
    if info is None:
        hint = registry.suggest(step.function)
        message = f"unknown function {step.function!r}"
        if hint:
            message += f"; did you mean {hint!r}?"
        diagnostics.append(Diagnostic("unknown-function", message,
                                      step.function_span or step.span))
    return info


def _inputs_phrase(arity: int) -> str:
    return {0: "no functional input", 1: "one functional input"}.get(arity, f"{arity} inputs")


def _make(info: OpInfo, step: Step, inputs: list[_Built | None],
          diagnostics: list[Diagnostic]) -> _Built | None:
    fields = args_to_fields(info, step.args)
    if isinstance(fields, str):
        diagnostics.append(Diagnostic("arity", fields, step.span))
        return None
    present = [built for built in inputs if built is not None]
    if len(present) != len(inputs) or len(inputs) != info.arity:
        return None
    children = {name: built.node for (name, _), built in zip(info.inputs, present, strict=True)}
    depth = 1 + max((built.depth for built in present), default=0)
    if depth > MAX_DEPTH:
        diagnostics.append(Diagnostic(
            "too-deep", f"the program nests more than {MAX_DEPTH} levels deep", step.span))
        return None
    node = info.cls(**children, **fields)
    spans = SourceMap({(): step.span})
    for i, built in enumerate(present):
        for path, span in built.spans.nodes.items():
            spans.nodes[(i, *path)] = span
        for (path, name), span in built.spans.args.items():
            spans.args[((i, *path), name)] = span
    for (name, _), span in zip(info.args, step.arg_spans, strict=False):
        spans.args[((), name)] = span
    return _Built(node, spans, depth)


def args_to_fields(info: OpInfo, args: list[str]) -> dict[str, object] | str:
    """Map flat textual arguments onto the op's fields, or say why they do not fit.

    >>> args_to_fields(registry.OPS["Relate"], ["place_of_birth", "Forward"])
    {'relation': 'place_of_birth', 'direction': <Direction.FORWARD: 'forward'>}
    """
    fixed = [(n, k) for n, k in info.args if k is not ArgKind.PATH]
    has_path = len(fixed) < len(info.args)
    too_many = len(args) > len(fixed) and not has_path
    if len(args) < info.min_args or too_many or (has_path and (len(args) - len(fixed)) % 2):
        return (f"{info.name} takes {_args_phrase(info)} "
                f"({', '.join(str(k) for _, k in info.args) or 'none'}), got {len(args)}")
    fields: dict[str, object] = {}
    for (name, kind), text in zip(fixed, args, strict=False):
        fields[name] = _fold_enum(kind, text)
    if has_path:
        rest = args[len(fixed):]
        fields["path"] = tuple(Hop(relation=r, direction=_fold_enum(ArgKind.DIRECTION, d))
                               for r, d in zip(rest[::2], rest[1::2], strict=True))
    return fields


def _args_phrase(info: OpInfo) -> str:
    if info.max_args is None:
        return f"{info.min_args} textual inputs then relation/direction pairs"
    if info.min_args == info.max_args:
        return f"{info.min_args} textual input{'s' if info.min_args != 1 else ''}"
    return f"{info.min_args} to {info.max_args} textual inputs"


def _fold_enum(kind: ArgKind, text: str) -> StrEnum | str:
    """Enum-valued arguments tolerate case and surrounding space; anything else stays text."""
    enum = _ENUMS.get(kind)
    if enum is None:
        return text
    folded = text.strip().lower()
    return enum(folded) if folded in enum._value2member_map_ else text


def node_args(node: Node) -> list[str]:
    """The node's textual inputs flattened back to strings (a missing direction is left out).

    >>> from koplc.kopl.ir import Find, Relate
    >>> node_args(Relate(input=Find(name="x"), relation="r", direction="backward"))
    ['r', 'backward']
    """
    out: list[str] = []
    for name, kind in type(node).arg_fields():
        value = getattr(node, name)
        if kind is ArgKind.PATH:
            for hop in value:
                out += [hop.relation, str(hop.direction)]
        elif value is not None:
            out.append(str(value))
    return out


@dataclass(frozen=True)
class LinearStep:
    """One step of a linearised program: function, flat arguments, 0-based dependencies."""

    function: str
    args: list[str]
    dependencies: list[int]


def linearize(program: Node) -> list[LinearStep]:
    """The post-order step list of a program; the branch stack infers the same dependencies.

    >>> from koplc.kopl.ir import Count, Find
    >>> [s.function for s in linearize(Count(input=Find(name="x")))]
    ['Find', 'Count']
    """
    steps: list[LinearStep] = []

    def visit(node: Node) -> int:
        deps = [visit(child) for child in node.children]
        steps.append(LinearStep(type(node).__name__, node_args(node), deps))
        return len(steps) - 1

    visit(program)
    return steps
