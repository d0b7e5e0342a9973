"""The native executor: runs an IR program on a KB with the official KoPL engine's semantics.

`execute(program, kb)` dispatches on the node class to the method the op registry names
(`OpInfo.visitor`: `visit_<Op>`, or `visit_<family>` for the Filter*, QFilter* and Verify*
families; the set ops, query ops and S-expression extensions live in `sets`, `queries` and
`extensions`, as `OpInfo.module` says); the dispatch table is built once at import.
Intermediate results are what the engine keeps in its memory — an entity set is
``(node ids, facts or None)`` with duplicates kept, values are `Value` objects — and only the
root result is rendered into an `Answer`.
Deliberate departures from the engine are the named switches of `ExecOptions`. What the engine
refuses whatever the data (ill-typed inputs, unknown operator words, unreadable literals, an
extension op with `extension_ops` off) is refused first by `koplc.kopl.runnable`, the pre-check
the SPARQL lowering runs too, so the visits take their inputs as well-formed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from koplc.kopl.answer import ENTITY_TYPES, Answer
from koplc.kopl.errors import ExecutionError
from koplc.kopl.execution.extensions import ExtensionOps
from koplc.kopl.execution.queries import QueryOps
from koplc.kopl.execution.sets import SetOps
from koplc.kopl.ir import OP_CLASSES, Node, Relate, SelectBetween
from koplc.kopl.kb.model import KB, QUALIFIERS
from koplc.kopl.registry import OPS
from koplc.kopl.runnable import require_runnable
from koplc.kopl.step_names import label_in
from koplc.kopl.types import Comparator, Type
from koplc.kopl.values import STRING, Value, ValueProblem, compiled_test


@dataclass(frozen=True)
class ExecOptions:
    """Switches for deliberate departures from the official engine (defaults: the engine's).

    - `unit_conversion`: quantities in different but convertible units compare after
      conversion with sympy units (engine: only equal units compare), and Select*/ArgMax
      convert candidates to the majority unit instead of dropping them.
    - `findall_concepts`: FindAll returns concept nodes too, as the engine does (so a
      sub-concept counts as an instance of its super-concept); False returns entities only.
    - `inclusive_comparators`: ``<=`` and ``>=`` compare (the S-expression ``le``/``ge``);
      the engine raises once such a comparison is made.
    - `extension_ops`: Entity, ArgMax, ArgMin, TimeConstraint and Exists run; False makes them
      raise as the engine does for a function it does not have. They cannot change a KoPL
      program.
    - `today`: the date NOW means in TimeConstraint (None: the real today).
    """

    unit_conversion: bool = False
    findall_concepts: bool = True
    inclusive_comparators: bool = False
    extension_ops: bool = True
    today: date | None = None


DEFAULT = ExecOptions()
# Quantities compare after unit conversion: what byokg's answers mean, and how endpoint mode
# chooses entities by a number said in any unit.
CONVERTING = ExecOptions(unit_conversion=True)

# Where koplc, with the default options, deliberately answers otherwise than the official
# Python engine (KoPL 0.0.5). The differential test tolerates nothing outside this list.
DEVIATIONS = {
    "unknown operator word": "a comparator, direction or Select* word outside the engine's "
    "vocabulary raises ExecutionError before anything runs (so does an unreadable literal); "
    "the engine raises only once it compares, answers Relate with an empty set, and reads any "
    "SelectBetween/SelectAmong word but less/smallest as greater/largest",
    "order from hashing": "where the engine's list order comes from iterating a Python set "
    "(it varies with PYTHONHASHSEED) ours follows node numbers, so ties it breaks by that "
    "order (equal values in SelectBetween, equal unit counts in Select*) may go to another, "
    "equally valid entity; lists compare as multisets",
    "facts of a final entity set": "rendered as JSON-like records with values as strings; the "
    "engine prints its value objects' reprs (memory addresses)",
    "ill-typed programs": "an input of the wrong type raises ExecutionError naming the step, "
    "before anything runs",
    "malformed KB": "raises KBError at load (dangling ids, unknown value types, duplicate ids, "
    "non-finite numbers); the engine skips dangling concept ids, reads unknown value types as "
    "times and lets an entity replace a concept with its id",
    "extension ops": "Entity, ArgMax, ArgMin, TimeConstraint and Exists run (the engine has no "
    "such functions); ExecOptions(extension_ops=False) refuses them",
}
_COMPARATORS = {c: str(c) for c in Comparator}


def execute(program: Node, kb: KB, options: ExecOptions = DEFAULT) -> Answer:
    """Run `program` on `kb`; raises ExecutionError where the engine raises or the program is
    malformed (a missing direction, an unknown comparator word), naming the step (the codes and
    messages of the malformed are `koplc.kopl.runnable`'s, shared with the SPARQL lowering).

    >>> from koplc.kopl.ir import Count, FindAll
    >>> from koplc.kopl.kb.model import KBBuilder
    >>> execute(Count(input=FindAll()), KBBuilder().build()).render()
    '0'
    """
    global _last
    executor = _last  # an Executor holds no per-run state: reuse the last one if it fits
    if executor.kb is not kb or executor.options is not options:
        executor = _last = Executor(kb, options)
    return executor.run(program)


class StepFailure(Exception):
    """Raised inside a visit (cheaply); `Executor.run` turns it into an ExecutionError that
    names the step."""

    def __init__(self, node: Node, message: str):
        super().__init__(message)
        self.node, self.reason = node, message


class Executor(SetOps, QueryOps, ExtensionOps):
    """Runs programs on one KB with one set of options; holds no per-run state."""

    __slots__ = ("kb", "options", "convert", "inclusive", "tests")

    def __init__(self, kb: KB, options: ExecOptions = DEFAULT):
        self.kb = kb
        self.options = options
        self.inclusive = options.inclusive_comparators
        self.tests: dict[tuple, object] = {}  # compiled literal tests, by (text, kind, op)
        self.convert = None
        if options.unit_conversion:
            from koplc.kopl.units import convert

            self.convert = convert

    def run(self, program: Node) -> Answer:
        """Execute and render the root result as the engine's `forward` would."""
        require_runnable(program, self.options, ExecutionError)
        cls = program.__class__
        try:
            if cls is Relate:  # a final Relate shows its facts, as the engine's does
                raw = self.visit_Relate(program, True)
            else:
                raw = _VISITORS[cls](self, program)
            return _RENDER[cls](self, program.output, raw)
        except StepFailure as failure:
            raise _numbered(program, failure) from None

    # The pre-check has made sure that each child gives what its parent takes.

    def _entities(self, node: Node) -> tuple:
        """The (ids, facts) of an entity-valued child."""
        return _VISITORS[node.__class__](self, node)

    def _values(self, node: Node) -> list[Value]:
        """The values of a values-giving child."""
        return _VISITORS[node.__class__](self, node)

    def error(self, node: Node, message: str) -> StepFailure:
        """The error to raise for `node`; `run` adds the step number."""
        return StepFailure(node, message)

    # Literals and comparisons, as the engine reads and applies them.

    def comparator(self, node: Any) -> str:
        """The comparator of an op that has one, as text (the pre-check refused any other
        word)."""
        return _COMPARATORS[node.comparator]

    def literal_test(self, node: Node, text: str):
        """The test of the node's value literal `text`, read as the node's value kind and
        compared by its comparator (a string is only ever equal)."""
        kind = node.value_kind()
        return self.test(node, text, kind, "=" if kind == STRING else self.comparator(node))

    def test(self, node: Node, text: str, kind: str, op: str):
        """The test `value -> bool` of comparing with the literal `text` by `op`; problems
        (an unreadable literal, a comparison the engine refuses) fail `node`'s step."""
        test = self.tests.get((text, kind, op))
        if test is None:
            try:
                test = compiled_test(text, kind, op, self.inclusive, self.convert)
            except ValueProblem as problem:
                raise StepFailure(node, str(problem)) from None
            if len(self.tests) < 4096:
                self.tests[text, kind, op] = test
        if getattr(test, "may_raise", False):
            return _naming(node, test)
        return test

    def fact_data(self, fact: tuple) -> dict:
        """A fact as the engine's JSON-like record, qualifier values rendered."""
        qualifiers = {k: [str(v) for v in vs] for k, vs in fact[QUALIFIERS].items()}
        if len(fact) == 3:
            return {"key": fact[0], "value": str(fact[1]), "qualifiers": qualifiers}
        return {"relation": fact[1], "direction": fact[2], "object": self.kb.ids[fact[3]],
                "qualifiers": qualifiers}


def _naming(node: Node, test):
    """`test`, with a refused comparison failing `node`'s step."""
    def named(value: Value) -> bool:
        try:
            return test(value)
        except ValueProblem as problem:
            raise StepFailure(node, str(problem)) from None
    return named


def _numbered(program: Node, failure: StepFailure) -> ExecutionError:
    """The failure as an ExecutionError naming the step (1-based, post-order) and op."""
    return ExecutionError(f"{label_in(program, failure.node)}: {failure.reason}",
                          code="execution")


def _missing(self: Executor, node: Node):
    raise self.error(node, f"the executor has no {OPS[type(node).__name__].visitor}")


_VISITORS = {cls: getattr(Executor, OPS[cls.__name__].visitor, _missing) for cls in OP_CLASSES}
_new_answer = tuple.__new__  # builds the Answer named tuple without a Python-level __new__


def _entity_answer(self: Executor, output: Type, raw) -> Answer:
    ids, facts = raw
    names = self.kb.ids
    return _new_answer(Answer, (output, None, [names[n] for n in ids],
                                None if facts is None else [self.fact_data(f) for f in facts]))


def _values_answer(self: Executor, output: Type, raw) -> Answer:
    return _new_answer(Answer, (output, [str(v) for v in raw], None, None))


def _text_answer(self: Executor, output: Type, raw) -> Answer:
    return _new_answer(Answer, (output, str(raw), None, None))


def _list_answer(self: Executor, output: Type, raw) -> Answer:
    return _new_answer(Answer, (output, list(raw), None, None))


# How each op's raw result becomes the Answer `forward` would give: entity sets keep their ids,
# values render as strings, counts/yes-no/SelectBetween's one name as a string, the rest lists.
_RENDER = {cls: _entity_answer if cls.output in ENTITY_TYPES
           else _values_answer if cls.output in (Type.VALUES, Type.QUALIFIER_VALUES)
           else _text_answer if cls.output in (Type.COUNT, Type.BOOLEAN) or cls is SelectBetween
           else _list_answer
           for cls in OP_CLASSES}
_last = Executor(KB([], [], 0, [], [], []).index())
