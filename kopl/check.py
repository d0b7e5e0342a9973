"""The type checker: every signature rule of the op registry, all problems reported at once."""

from __future__ import annotations

from koplc.kopl.diagnostics import Diagnostic, Severity, Span
from koplc.kopl.errors import TypeCheckError
from koplc.kopl.ir import Node
from koplc.kopl.literals import literal_problem
from koplc.kopl.program import Parsed, Path, SourceMap
from koplc.kopl.types import AmongOp, ArgKind, BetweenOp, Comparator, Direction, Type

_ENUMS = {ArgKind.DIRECTION: ("bad-direction", Direction),
          ArgKind.COMPARATOR: ("bad-comparator", Comparator),
          ArgKind.BETWEEN: ("bad-operator", BetweenOp),
          ArgKind.AMONG: ("bad-operator", AmongOp)}
_NAMES = {ArgKind.ENTITY, ArgKind.ENTITY_ID, ArgKind.CONCEPT, ArgKind.RELATION,
          ArgKind.ATTRIBUTE, ArgKind.QUALIFIER}


def check(program: Node, source_map: SourceMap | None = None) -> list[Diagnostic]:
    """Every type, argument and literal problem of the program, errors and warnings."""
    source_map = source_map or SourceMap()
    steps = {path: number for number, (path, _) in enumerate(program.walk(), start=1)}
    out: list[Diagnostic] = []
    for path, node in program.walk():
        where = f"step {steps[path]} ({type(node).__name__})"
        out += _check_inputs(node, path, where, steps, source_map)
        out += _check_args(node, path, where, source_map)
    if program.output.fits(Type.ENTITIES):
        out.append(Diagnostic(
            "entity-set-result", "the program returns an entity set, not an answer; end it "
            "with QueryName (What), Count or a query", source_map.node(()), Severity.WARNING))
    return out


def check_parsed(parsed: Parsed) -> list[Diagnostic]:
    """The parser's warnings followed by the checker's findings."""
    return [*parsed.warnings, *check(parsed.program, parsed.source_map)]


def require_well_typed(parsed: Parsed) -> list[Diagnostic]:
    """The warnings of a program that checks; raises TypeCheckError listing every error."""
    diagnostics = check_parsed(parsed)
    errors = [d for d in diagnostics if d.is_error]
    if errors:
        raise TypeCheckError(errors, source=parsed.source)
    return diagnostics


def _check_inputs(node: Node, path: Path, where: str, steps: dict[Path, int],
                  source_map: SourceMap) -> list[Diagnostic]:
    out = []
    inputs = type(node).child_types()
    for index, ((field, expected), child) in enumerate(zip(inputs, node.children, strict=True)):
        if child.output.fits(expected):
            continue
        child_path = (*path, index)
        label = "its input" if len(inputs) == 1 else f"its {field} input"
        out.append(Diagnostic(
            "type-mismatch",
            f"{where}: {label} must be {_article(expected)}, but step {steps[child_path]} "
            f"({type(child).__name__}) gives {child.output}",
            source_map.node(path)))
    return out


def _check_args(node: Node, path: Path, where: str, source_map: SourceMap) -> list[Diagnostic]:
    out = []
    for field, kind in type(node).arg_fields():
        value = getattr(node, field)
        span = source_map.arg(path, field)
        if kind is ArgKind.PATH:
            for hop in value:
                out += _check_enum(ArgKind.DIRECTION, hop.direction, where, "path direction",
                                   span)
        elif kind in _ENUMS:
            out += _check_enum(kind, value, where, field, span)
        elif kind in _NAMES and not value.strip():
            out.append(Diagnostic("empty-argument", f"{where}: {field} is empty", span))
        elif problem := literal_problem(kind, value):
            out.append(Diagnostic("bad-literal",
                                  f"{where}: {field} {value!r} is not {problem}", span))
    return out


def _check_enum(kind: ArgKind, value: object, where: str, field: str,
                span: Span | None) -> list[Diagnostic]:
    code, enum = _ENUMS[kind]
    if value is None:
        return [Diagnostic("missing-direction",
                           f"{where}: the direction is missing (forward or backward)", span)]
    if isinstance(value, enum):
        return []
    allowed = ", ".join(e.value for e in enum)
    return [Diagnostic(code, f"{where}: {field} {value!r} is not one of {allowed}", span)]


def _article(expected: Type) -> str:
    return {Type.ENTITIES: "an entity set", Type.ENTITIES_WITH_FACTS:
            "an entity set with facts (from Relate or a Filter)",
            Type.VALUES: "attribute values (from QueryAttr or QueryAttrUnderCondition)"
            }.get(expected, str(expected))
