"""The pre-check both backends run first: what the engine refuses whatever the data.

`require_runnable(program, options, error)` raises, before anything runs, for the first of
these problems in post-order (each input of a step, in signature order, with its own problems
first and then whether it fits; then the step's option and its textual inputs in order):

- an extension op (Entity, ArgMax, ArgMin, TimeConstraint, Exists) while `extension_ops` is
  off;
- an input of the wrong type: entities where values are needed or the reverse, entities
  without facts fed to QFilter* (the executor accepts qualifier values where values are
  needed; the type checker is stricter);
- an operator word outside the engine's vocabulary: a comparator, Relate's or a path's
  direction, SelectBetween's or SelectAmong's word;
- a literal the engine cannot read (`koplc.kopl.values`).

The native executor raises ExecutionError and the SPARQL lowering LoweringError, with the same
code (the type checker's: ``bad-comparator``, ``type-mismatch``…) and the same message, so the
executor, pyoxigraph and any endpoint refuse a program alike by construction. What the engine
refuses only once data meets it (``<=`` without `inclusive_comparators`, a key the KB lacks,
no quantity to compare) stays with each backend: the executor raises as it runs, the lowering
adds guards.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from koplc.kopl.errors import KoplcError
from koplc.kopl.ir import OP_CLASSES, Node
from koplc.kopl.step_names import label_in
from koplc.kopl.types import AmongOp, ArgKind, BetweenOp, Comparator, Direction, Type
from koplc.kopl.values import DATE, QUANTITY, TIME, YEAR, literal_problem

if TYPE_CHECKING:
    from koplc.kopl.execution.executor import ExecOptions


@dataclass(frozen=True)
class Refusal:
    """Why the engine refuses a program: the step to blame, a diagnostic code and why."""

    node: Node
    code: str
    reason: str


def require_runnable(program: Node, options: ExecOptions,
                     error: type[KoplcError]) -> None:
    """Raise `error` (the caller's stage) for the first refusal of `program`, naming its step.

    >>> from koplc.kopl.errors import ExecutionError
    >>> from koplc.kopl.execution.executor import DEFAULT
    >>> from koplc.kopl.ir import Count, FilterNum, FindAll
    >>> bad = Count(input=FilterNum(input=FindAll(), key="k", value="1", comparator="bigger"))
    >>> require_runnable(bad, DEFAULT, ExecutionError)
    Traceback (most recent call last):
    koplc.kopl.errors.ExecutionError: error[bad-comparator]: step 2 (FilterNum): unknown comparator 'bigger'; expected one of =, !=, <, >
    """
    refusal = first_refusal(program, options)
    if refusal is not None:
        raise error(f"{label_in(program, refusal.node)}: {refusal.reason}", code=refusal.code)


def first_refusal(program: Node, options: ExecOptions) -> Refusal | None:
    """The first problem of `program` in post-order, or None when the engine would run it."""
    cls = program.__class__
    for field, accepted, facts in _INPUTS[cls]:  # plain loops: this runs before every run
        child = getattr(program, field)
        found = first_refusal(child, options)
        if found is not None:
            return found
        if child.output not in accepted or facts and child.output is not _WITH_FACTS:
            return _misfit(child, accepted, facts)
    for check in _CHECKS[cls]:
        found = check(program, options)
        if found is not None:
            return found
    return None


Check = Callable[[Node, "ExecOptions"], "Refusal | None"]
_ENTITIES = frozenset((Type.ENTITIES, Type.ENTITIES_WITH_FACTS))
_VALUES = frozenset((Type.VALUES, Type.QUALIFIER_VALUES))
_WITH_FACTS = Type.ENTITIES_WITH_FACTS


def _misfit(child: Node, accepted: frozenset, facts: bool) -> Refusal:
    """An input that does not fit: not what the step takes, or entities without facts."""
    if child.output not in accepted:
        what = "values" if accepted is _VALUES else "entities"
        return Refusal(child, "type-mismatch", f"gives {child.output}, not {what}")
    return Refusal(child, "type-mismatch", f"{type(child).__name__} gives entities without "
                   "facts; QFilter* needs the output of Relate or a Filter*")


def _inputs_of(cls: type[Node]) -> tuple[tuple[str, frozenset, bool], ...]:
    """(field, the output types the executor takes there, whether it needs facts) per input;
    the executor takes qualifier values where values are wanted."""
    return tuple((field, _VALUES if expected in _VALUES else _ENTITIES,
                  expected is _WITH_FACTS) for field, expected in cls.child_types())


def _extension(node: Node, options: ExecOptions) -> Refusal | None:
    if options.extension_ops:
        return None
    return Refusal(node, "extension-op", f"{type(node).__name__} is a koplc extension the "
                   "official KoPL engine does not have (extension_ops is off)")


def _comparator(field: str) -> Check:
    def check(node: Node, options: ExecOptions) -> Refusal | None:
        op = getattr(node, field)
        if op in _COMPARATORS:
            return None
        more = ", <=, >=" if options.inclusive_comparators else ""
        return Refusal(node, "bad-comparator",
                       f"unknown comparator {op!r}; expected one of =, !=, <, >{more}")
    return check


def _direction(field: str) -> Check:
    def check(node: Node, options: ExecOptions) -> Refusal | None:
        direction = getattr(node, field)
        if direction in _DIRECTIONS:
            return None
        if direction is None:
            return Refusal(node, "missing-direction",
                           "no direction; Relate needs forward or backward")
        return Refusal(node, "bad-direction",
                       f"unknown direction {direction!r}; Relate needs forward or backward")
    return check


def _path(field: str) -> Check:
    def check(node: Node, options: ExecOptions) -> Refusal | None:
        for hop in getattr(node, field):
            if hop.direction not in _DIRECTIONS:
                return Refusal(node, "bad-direction",
                               f"unknown direction {hop.direction!r} in the path of "
                               f"{hop.relation!r}; expected forward or backward")
        return None
    return check


def _word(words: frozenset, expected: str) -> Callable[[str], Check]:
    def for_field(field: str) -> Check:
        def check(node: Node, options: ExecOptions) -> Refusal | None:
            op = getattr(node, field)
            if op in words:
                return None
            return Refusal(node, "bad-operator",
                           f"unknown comparator {op!r}; expected {expected}")
        return check
    return for_field


def _literal(kind: str) -> Callable[[str], Check]:
    def for_field(field: str) -> Check:
        def check(node: Node, options: ExecOptions) -> Refusal | None:
            problem = literal_problem(getattr(node, field), kind)
            return None if problem is None else Refusal(node, "bad-literal", problem)
        return check
    return for_field


_COMPARATORS = frozenset(Comparator)
_DIRECTIONS = frozenset(Direction)
_ARGUMENTS: dict[ArgKind, Callable[[str], Check]] = {
    ArgKind.COMPARATOR: _comparator,
    ArgKind.DIRECTION: _direction,
    ArgKind.PATH: _path,
    ArgKind.BETWEEN: _word(frozenset(BetweenOp), "less or greater"),
    ArgKind.AMONG: _word(frozenset(AmongOp), "smallest or largest"),
    ArgKind.NUMBER: _literal(QUANTITY),
    ArgKind.YEAR: _literal(YEAR),
    ArgKind.DATE: _literal(DATE),
    ArgKind.TIME: _literal(TIME),
}


def _checks_of(cls: type[Node]) -> tuple[Check, ...]:
    checks: list[Check] = [_extension] if cls.extension else []
    checks += [_ARGUMENTS[kind](field) for field, kind in cls.arg_fields() if kind in _ARGUMENTS]
    return tuple(checks)


_INPUTS = {cls: _inputs_of(cls) for cls in OP_CLASSES}
_CHECKS = {cls: _checks_of(cls) for cls in OP_CLASSES}
