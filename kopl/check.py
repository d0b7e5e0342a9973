"""The type checker: every signature rule of the op registry, all problems reported at once.

Literals are read by `koplc.kopl.values`, the executor's reader, so a literal the checker
accepts is one the executor runs. The checker is stricter in one named respect,
`strict_time_kinds` (on by default): a year op (FilterYear, QFilterYear, VerifyYear) must be
given a year and a date op a date. The engine reads any time literal by its shape, so
``FilterYear(k, '1999-1-1', '<')`` runs as a date comparison: a slip worth flagging, not an
unreadable literal. With the option off the checker accepts exactly the literals that run.
"""

from __future__ import annotations

from koplc.kopl.diagnostics import Diagnostic, Severity, Span
from koplc.kopl.errors import TypeCheckError
from koplc.kopl.ir import Node
from koplc.kopl.program import Parsed, Path, SourceMap
from koplc.kopl.step_names import step_label
from koplc.kopl.types import (
    VALUE_KINDS,
    AmongOp,
    ArgKind,
    BetweenOp,
    Comparator,
    Direction,
    Type,
)
from koplc.kopl.values import DATE, QUANTITY, STRING, TIME, YEAR, read_literal

_ENUMS = {ArgKind.DIRECTION: ("bad-direction", Direction),
          ArgKind.COMPARATOR: ("bad-comparator", Comparator),
          ArgKind.BETWEEN: ("bad-operator", BetweenOp),
          ArgKind.AMONG: ("bad-operator", AmongOp)}
_NAMES = {ArgKind.ENTITY, ArgKind.ENTITY_ID, ArgKind.CONCEPT, ArgKind.RELATION,
          ArgKind.ATTRIBUTE, ArgKind.QUALIFIER}
# The literals read without the KB: any string is a string, and a keyed value's type is the KB's.
_LITERALS = {arg: kind for arg, kind in VALUE_KINDS.items() if kind not in (STRING, "keyed")}
_WHAT = {QUANTITY: "a number, optionally followed by a unit (e.g. '270 square kilometre')",
         YEAR: "a year (e.g. '1829')", DATE: "a date written yyyy-mm-dd",
         TIME: "a year, a date written yyyy-mm-dd, or NOW"}
_A_TIME = "a year or a date (e.g. '1829' or '1829-04-30')"


def check(program: Node, source_map: SourceMap | None = None, *,
          strict_time_kinds: bool = True) -> list[Diagnostic]:
    """Every type, argument and literal problem of the program, errors and warnings."""
    source_map = source_map or SourceMap()
    steps = {path: number for number, (path, _) in enumerate(program.walk(), start=1)}
    out: list[Diagnostic] = []
    for path, node in program.walk():
        where = step_label(steps[path], node)
        out += _check_inputs(node, path, where, steps, source_map)
        out += _check_args(node, path, where, source_map, strict_time_kinds)
    if program.output.fits(Type.ENTITIES):
        out.append(Diagnostic(
            "entity-set-result", "the program returns an entity set, not an answer; end it "
            "with QueryName (What), Count or a query", source_map.node(()), Severity.WARNING))
    return out


def check_parsed(parsed: Parsed, *, strict_time_kinds: bool = True) -> list[Diagnostic]:
    """The parser's warnings followed by the checker's findings."""
    return [*parsed.warnings, *check(parsed.program, parsed.source_map,
                                     strict_time_kinds=strict_time_kinds)]


def require_well_typed(parsed: Parsed, *, strict_time_kinds: bool = True) -> list[Diagnostic]:
    """The warnings of a program that checks; raises TypeCheckError listing every error."""
    diagnostics = check_parsed(parsed, strict_time_kinds=strict_time_kinds)
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
            f"{where}: {label} must be {_article(expected)}, but "
            f"{step_label(steps[child_path], child)} gives {child.output}",
            source_map.node(path)))
    return out


def _check_args(node: Node, path: Path, where: str, source_map: SourceMap,
                strict_time_kinds: bool) -> list[Diagnostic]:
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
        elif kind in _LITERALS and (
                wanted := _literal_problem(_LITERALS[kind], value, strict_time_kinds)):
            out.append(Diagnostic("bad-literal",
                                  f"{where}: {field} {value!r} is not {wanted}", span))
    return out


def _literal_problem(kind: str, text: str, strict_time_kinds: bool) -> str | None:
    """What `text` should have been, or None when it is a literal of `kind`."""
    value = read_literal(text, kind)
    if kind not in (YEAR, DATE):
        return _WHAT[kind] if value is None else None
    if not strict_time_kinds:
        return _A_TIME if value is None else None
    return _WHAT[kind] if value is None or value.type != kind else None


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
