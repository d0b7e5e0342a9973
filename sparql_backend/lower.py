"""Lower an IR program to SPARQL 1.1 for one RDF encoding, with the native executor's semantics.

`lower(program, encoding, options)` dispatches on the node class to the method the op registry
names (`OpInfo.visitor`: `visit_<Op>`, or `visit_<family>` for the Filter*, QFilter* and Verify*
families), the executor's name for it too (entity sets in `lower_sets`, answers in
`lower_queries`, S-expression extensions in `lower_extensions`, as `OpInfo.module` says).
An entity-set visitor returns a `Sub`: a group pattern binding one variable once per element of
the engine's list (duplicates kept: SPARQL's multisets are the engine's lists), plus how to reach
the facts behind each element. Everything the engine filters or joins is filtered or joined in
SPARQL. What one query cannot say is done by the few documented steps of `results`: the
majority unit and the pick of SelectBetween/SelectAmong, and reading values back.

Where the engine raises depending on the data (``<=``/``>=`` meeting a comparable value without
`inclusive_comparators`, a qualifier key the KB lacks), the lowering adds a `Guard`: an ASK
that, when true, makes the backend raise as the engine would. What the engine refuses whatever
the data (an ill-typed input, an unknown operator word, an unreadable literal) is refused first
by `koplc.kopl.runnable`, the executor's own pre-check, as a LoweringError with the executor's
code and message; so the visits take their inputs as well-formed.
"""

from __future__ import annotations

from dataclasses import dataclass

from koplc.kopl.answer import ENTITY_TYPES
from koplc.kopl.errors import LoweringError, UnsupportedConstruct
from koplc.kopl.execution.executor import DEFAULT, ExecOptions
from koplc.kopl.ir import OP_CLASSES, Node
from koplc.kopl.registry import OPS
from koplc.kopl.runnable import require_runnable
from koplc.kopl.step_names import label_in
from koplc.kopl.types import Comparator, Type
from koplc.kopl.values import STRING, Value, parse_literal
from koplc.sparql_backend.encodings import (
    ATTRIBUTE,
    BACKWARD,
    FORWARD,
    KEY_TYPE,
    RECORD,
    Encoding,
    encoding_named,
)
from koplc.sparql_backend.lower_extensions import ExtensionLowering
from koplc.sparql_backend.lower_queries import QueryLowering, select
from koplc.sparql_backend.lower_sets import SetLowering
from koplc.sparql_backend.patterns import Guard, Shape, Sub, indent
from koplc.sparql_backend.terms import RDF_TYPE, XSD, iri
from koplc.sparql_backend.value_patterns import ValuePatterns

PROLOGUE = f"PREFIX xsd: <{XSD}>\n"
# Ops with no SPARQL lowering, and why. Every op of the registry is lowered today; the
# completeness test fails for an op that is neither here nor has its visitor (`OpInfo.visitor`).
UNSUPPORTED: dict[str, str] = {}


@dataclass(frozen=True)
class Lowered:
    """A lowered program: the query, its row shape, the guards to check first."""

    query: str
    shape: Shape
    guards: tuple[Guard, ...]
    encoding: Encoding
    output: Type

    def text(self) -> str:
        """The query, then each guard as comment lines (what `koplc lower` prints)."""
        parts = [self.query]
        for guard in self.guards:
            lines = "\n".join(f"#   {line}" for line in guard.ask.splitlines())
            when = "when" if guard.raises else "unless"
            parts.append(f"# guard: raise {guard.message!r} {when}\n{lines}")
        return "\n".join(parts)


def lower(program: Node, encoding: str | Encoding = "kqapro",
          options: ExecOptions = DEFAULT, units: tuple[str, ...] | None = None) -> Lowered:
    """SPARQL for `program` in `encoding`, meaning what `execute(program, kb, options)` means
    on a KB exported in that encoding; LoweringError where the executor would raise whatever
    the data (with its code and message), UnsupportedConstruct where SPARQL cannot follow an
    option. `options.unit_conversion` needs `units`, every unit the KB's quantities use.

    >>> from koplc.kopl.ir import Count, Find
    >>> print(lower(Count(input=Find(name="Akron"))).query)
    PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
    SELECT (COUNT(*) AS ?count) WHERE {
      { SELECT DISTINCT ?x1 WHERE {
          ?x1 <pred:name> "Akron" .
      } }
    }
    """
    require_runnable(program, options, LoweringError)
    if options.unit_conversion and units is None:
        raise UnsupportedConstruct("unit conversion in SPARQL needs the KB's units (`units`): "
                                   "the query converts each of them", code="unsupported-option")
    return Lowering(encoding_named(encoding), options, program,
                    units if options.unit_conversion else None).root()


class Vocab:
    """An encoding's fixed vocabulary as SPARQL terms, built once per encoding."""

    def __init__(self, e: Encoding):
        self.name, self.type = iri(e.name_predicate), iri(e.type_predicate)
        self.fact_h, self.fact_r, self.fact_t = iri(e.fact_h), iri(e.fact_r), iri(e.fact_t)
        self.record, self.key_type = iri(RECORD), iri(KEY_TYPE)
        self.forward, self.backward = iri(FORWARD), iri(BACKWARD)
        self.attribute, self.concept = iri(ATTRIBUTE), iri(e.concept_marker)
        self.marker = iri(e.marker_predicate or e.type_predicate)
        self.concept_link, self.concept_parent = e.concept_link, e.concept_parent
        self.node = f" ; {iri(RDF_TYPE)} {iri(e.node_class)}" if e.node_class else ""


_VOCABS: dict[int, tuple[Encoding, Vocab]] = {}
_COMPARATORS = {c: str(c) for c in Comparator}


class Lowering(SetLowering, QueryLowering, ExtensionLowering):
    """Lowers one program; holds the variable counter and the guards found so far."""

    def __init__(self, encoding: Encoding, options: ExecOptions, program: Node,
                 units: tuple[str, ...] | None = None):
        self.e, self.options, self.program = encoding, options, program
        cached = _VOCABS.get(id(encoding))
        if cached is None or cached[0] is not encoding:
            cached = _VOCABS[id(encoding)] = (encoding, Vocab(encoding))
        self.v = cached[1]
        self.n = 0
        self.guards: list[Guard] = []
        self.quiet = 0
        self.vp = ValuePatterns(encoding, self.fresh, units)

    def fresh(self, prefix: str) -> str:
        self.n += 1
        return f"?{prefix}{self.n}"

    def root(self) -> Lowered:
        program = self.program
        if program.output in ENTITY_TYPES:
            body, shape = self.entity_answer(program)
        elif program.output in (Type.VALUES, Type.QUALIFIER_VALUES):
            values = self.values_of(program, self.fresh("v"))
            pattern, variables, columns = self.vp.describe(values.var, "value")
            values = values.joinable()
            body, shape = select(" ".join(columns), values.distinct(pattern, *variables)), \
                Shape("values")
        else:
            body, shape = _FINAL[program.__class__](self, program)
        return Lowered(PROLOGUE + body, shape, tuple(self.guards), self.e, program.output)

    def entity_answer(self, program: Node) -> tuple[str, Shape]:
        x = self.fresh("x")
        sub = self.set_of(program, x)
        columns, fact = [f"({x} AS ?entity)"], sub.fact
        pattern, variables = "", []
        if fact and fact[0] == "node":
            columns.append(f"({fact[1]} AS ?fact)")
            variables, fact = [fact[1]], ("node",)
        elif fact and fact[0] == "attribute":
            pattern, variables, more = self.vp.describe(fact[2], "fact")
            columns += more
            fact, sub = fact[:2], sub.joinable()
        return select(" ".join(columns), sub.distinct(pattern, *variables)), \
            Shape("entities", fact)

    # Children, literals and operators: the pre-check has made sure of each.

    def set_of(self, node: Node, var: str) -> Sub:
        """The lowered entity set of a child that gives entities."""
        return _SETS[node.__class__](self, node, var)

    def values_of(self, node: Node, var: str) -> Sub:
        """The values a values-giving child yields, each bound to `var`."""
        return _VALUES[node.__class__](self, node, var)

    def literal(self, text: str, kind: str) -> Value:
        return parse_literal(text, kind, self.options.today)

    def comparator(self, node: Node) -> str:
        return _COMPARATORS[node.comparator]

    def comparison(self, node: Node, text: str) -> tuple[str, Value]:
        """(operator, target) of the node's value literal `text`, read as the node's value kind
        (a string is only ever compared by "=")."""
        kind = node.value_kind()
        op = "=" if kind == STRING else self.comparator(node)
        return op, self.literal(text, kind)

    # Errors.

    def guard(self, node: Node, where: str, message: str, raises: bool = True) -> None:
        """Raise `message` at run time when `where` has a solution (when it has none, if not
        `raises`)."""
        if not self.quiet:
            ask = f"{PROLOGUE}ASK {{\n{indent(where)}\n}}"
            self.guards.append(Guard(ask, f"{self.step(node)}: {message}", raises))

    def step(self, node: Node) -> str:
        """`step N (Op)`: the node's place in the post-order step list, as the executor says."""
        return label_in(self.program, node)


def _table(types: tuple[Type, ...]) -> dict[type[Node], object]:
    table = {}
    for cls in OP_CLASSES:
        if cls.output in types:
            table[cls] = _visitor(cls)
    return table


def _visitor(cls: type[Node]):
    return getattr(Lowering, OPS[cls.__name__].visitor, None) or _missing


def _missing(self: Lowering, node: Node, *args):
    reason = UNSUPPORTED.get(type(node).__name__, "no SPARQL lowering")
    raise UnsupportedConstruct(f"{self.step(node)}: {reason}", code="unsupported-op")


_SETS = _table(ENTITY_TYPES)
_VALUES = _table((Type.VALUES, Type.QUALIFIER_VALUES))
_FINAL = {cls: _visitor(cls) for cls in OP_CLASSES}
