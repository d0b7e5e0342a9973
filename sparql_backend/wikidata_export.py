"""Write a KB as N-Triples in Wikidata's RDF model (the `wikidata` encoding).

Every node is a ``wikibase:Item`` with an ``rdfs:label`` (``@en``); an entity is ``wdt:P31`` of
its concepts, a concept ``wdt:P279`` of its parents and ``rdf:type <urn:koplc:Concept>``. Every
stored fact is a statement node (``wds:``) with ``wikibase:rank wikibase:NormalRank``, its value
(``ps:`` for an item or a string, ``psv:`` for a ``wikibase:`` quantity or time value node),
its qualifiers (``pq:`` / ``pqv:``) and a ``wdt:`` truthy triple beside it. A property is
``wd:X`` with the KB's name as its ``rdfs:label``, where ``X`` is the name itself when it is a
P-id and a local name minted from it otherwise.

What Wikidata's model does not say and the engine needs travels as ``urn:koplc:`` triples, as
in the other encodings: each statement's ``<urn:koplc:record>`` (forward, backward or attribute;
the forward and backward records of one fact with equal qualifiers share one statement, which
then carries both), each key's ``<urn:koplc:keyType>``, and on a time value node its year
(``<urn:koplc:year>``) and the value as one typed literal (``<urn:koplc:time>``, xsd:gYear or
xsd:date) for comparisons. Quantity amounts are xsd:decimal, as in Wikidata, where the number
has a short decimal form, else xsd:double (`amount_literal`).
"""

from __future__ import annotations

import re
from collections import defaultdict, deque
from collections.abc import Iterator
from decimal import Decimal

from koplc.kopl.kb.model import KB
from koplc.kopl.values import DATE, QUANTITY, STRING, YEAR, Value
from koplc.sparql_backend.encodings import (
    ATTRIBUTE,
    BACKWARD,
    ENTITY,
    FORWARD,
    KEY_TYPE,
    KOPLC,
    P31,
    P279,
    PQ,
    PQV,
    PROP,
    PROPERTIES,
    PS,
    PSV,
    RDFS_LABEL,
    RECORD,
    STATEMENT_NODES,
    VALUE_NODES,
    WDT,
    WIKIBASE,
    Encoding,
    unit_iri,
)
from koplc.sparql_backend.terms import RDF_TYPE, XSD, double_text, gyear_text, iri, nt_string

P_ID = re.compile(r"P[1-9][0-9]*")
YEAR_PRECISION, DAY_PRECISION = 9, 11
_ITEM, _PROPERTY = iri(WIKIBASE + "Item"), iri(WIKIBASE + "Property")
_TYPE, _LABEL = iri(RDF_TYPE), iri(RDFS_LABEL)
_RANK = f"{iri(WIKIBASE + 'rank')} {iri(WIKIBASE + 'NormalRank')}"


def property_iris(kb: KB, encoding: Encoding) -> dict[str, str]:
    """The ``wd:`` IRI of each relation and key name of the KB: ``wd:Pn`` for a P-id, else
    one under `PROPERTIES`, apart from every node's."""
    names = {*kb.relation_names, *kb.key_type, *kb.qualifier_keys}
    return {name: property_entity(_local(encoding, name)) for name in sorted(names)}


def property_entity(local: str) -> str:
    """The ``wd:`` IRI of the property whose ``p:`` local name is `local`."""
    return (ENTITY if P_ID.fullmatch(local) else PROPERTIES) + local


def _local(encoding: Encoding, name: str) -> str:
    return encoding.key(name)[len(PROP):]


def wikidata_ntriples(kb: KB, encoding: Encoding) -> Iterator[str]:
    """The KB's lines in the Wikidata model (export has checked that it can be written)."""
    writer = _Writer(kb, encoding)
    for n in kb.all_nodes:
        yield from writer.node(n)
    for name, prop in property_iris(kb, encoding).items():
        yield from property_lines(encoding, name, prop)
    for key, kind in sorted(kb.key_type.items()):
        yield f"{iri(encoding.key(key))} <{KEY_TYPE}> {nt_string(kind)} .\n"


def property_lines(encoding: Encoding, name: str, prop: str) -> Iterator[str]:
    """The lines of property `prop` (its ``wd:`` IRI) named `name`: its label and links."""
    local = _local(encoding, name)
    yield f"{iri(prop)} {_TYPE} {_PROPERTY} .\n"
    yield f"{iri(prop)} {_LABEL} {nt_string(name)}@en .\n"
    for link, namespace in (("directClaim", WDT), ("claim", PROP), ("statementProperty", PS),
                            ("statementValue", PSV), ("qualifier", PQ), ("qualifierValue", PQV)):
        yield f"{iri(prop)} {iri(WIKIBASE + link)} {iri(namespace + local)} .\n"


class StatementWriter:
    """Writes statements and value nodes, numbering them; needs no KB (a generator streams
    through it too)."""

    def __init__(self, encoding: Encoding):
        self.e = encoding
        self.values = 0
        self.statements = 0
        self.record = iri(RECORD)

    def node_lines(self, me: str, name: str, parents: list[str], concept: bool) -> Iterator[str]:
        """A node's label, item type, concepts (``wdt:P31``) or parents (``wdt:P279``) and, for
        a concept, its marker; IRIs as N-Triples terms."""
        yield f"{me} {_LABEL} {nt_string(name)}@en .\n"
        yield f"{me} {_TYPE} {_ITEM} .\n"
        link = iri(P279 if concept else P31)
        for parent in parents:
            yield f"{me} {link} {parent} .\n"
        if concept:
            yield f"{me} {_TYPE} {iri(self.e.concept_marker)} .\n"

    def statement(self, head: str, name: str, tail: str | Value, qualifiers: dict,
                  record: str, also_backward: bool = False) -> Iterator[str]:
        self.statements += 1
        local = _local(self.e, name)
        me = iri(f"{STATEMENT_NODES}S{self.statements}")
        yield f"{head} {iri(PROP + local)} {me} .\n"
        if isinstance(tail, Value):
            simple, node, lines = self.value(tail)
            yield from lines
            yield f"{me} {iri(PSV + local)} {node} .\n" if node else \
                f"{me} {iri(PS + local)} {simple} .\n"
            yield f"{head} {iri(WDT + local)} {simple} .\n"
        else:
            yield f"{me} {iri(PS + local)} {tail} .\n"
            yield f"{head} {iri(WDT + local)} {tail} .\n"
        yield f"{me} {_RANK} .\n"
        yield f"{me} {self.record} <{record}> .\n"
        if also_backward:
            yield f"{me} {self.record} <{BACKWARD}> .\n"
        for key, values in qualifiers.items():
            qlocal = _local(self.e, key)
            for value in values:
                simple, node, lines = self.value(value)
                yield from lines
                yield f"{me} {iri(PQV + qlocal)} {node} .\n" if node else \
                    f"{me} {iri(PQ + qlocal)} {simple} .\n"

    def value(self, value: Value) -> tuple[str, str | None, list[str]]:
        """The value's simple form (a literal, as ``wdt:`` holds it), its ``wikibase:`` value
        node and that node's lines (None and none for a string)."""
        if value.type == STRING:
            return nt_string(value.value), None, []
        self.values += 1
        me = iri(f"{VALUE_NODES}V{self.values}")
        if value.type == QUANTITY:
            amount = amount_literal(float(value.value))
            return amount, me, [f"{me} {_TYPE} {iri(WIKIBASE + 'QuantityValue')} .\n",
                            f"{me} {iri(WIKIBASE + 'quantityAmount')} {amount} .\n",
                            f"{me} {iri(WIKIBASE + 'quantityUnit')} {iri(unit_iri(value.unit))} .\n"]
        if value.type == YEAR:
            stamp, precision = f"{gyear_text(value.value)}-01-01", YEAR_PRECISION
            helper = f'"{gyear_text(value.value)}"^^<{XSD}gYear>'
        else:
            stamp, precision = value.value.isoformat(), DAY_PRECISION
            helper = f'"{value.value.isoformat()}"^^<{XSD}date>'
        time = f'"{stamp}T00:00:00Z"^^<{XSD}dateTime>'
        year = value.year if value.type == DATE else value.value
        return time, me, [f"{me} {_TYPE} {iri(WIKIBASE + 'TimeValue')} .\n",
                      f"{me} {iri(WIKIBASE + 'timeValue')} {time} .\n",
                      f'{me} {iri(WIKIBASE + "timePrecision")} "{precision}"^^<{XSD}integer> .\n',
                      f'{me} <{KOPLC}year> "{year}"^^<{XSD}integer> .\n',
                      f"{me} <{KOPLC}time> {helper} .\n"]


class _Writer(StatementWriter):
    """Writes one node's triples at a time."""

    def __init__(self, kb: KB, encoding: Encoding):
        super().__init__(encoding)
        self.kb = kb
        self.iris = [iri(encoding.node(i)) for i in kb.ids]
        # Forward records waiting for their backward twin: (head, relation, tail, qualifiers
        # as a key) -> the statement IRIs written for them, in order.
        self.twins = _pair_records(kb)

    def node(self, n: int) -> Iterator[str]:
        kb, me = self.kb, self.iris[n]
        parents = [self.iris[p] for p in dict.fromkeys(kb.parents[n]) if p != n]
        yield from self.node_lines(me, kb.names[n], parents, kb.is_concept(n))
        for key, value, qualifiers in kb.attributes[n]:
            yield from self.statement(me, key, value, qualifiers, ATTRIBUTE)
        for index, (_, relation, direction, obj, qualifiers) in enumerate(kb.relations[n]):
            if direction == "forward":
                twin = self.twins.get((n, index))
                yield from self.statement(me, relation, self.iris[obj], qualifiers, FORWARD,
                                          also_backward=twin is not None)
            elif (obj, n, relation, index) not in self.twins.paired:
                yield from self.statement(self.iris[obj], relation, me, qualifiers, BACKWARD)


def amount_literal(number: float) -> str:
    """A quantity amount: xsd:decimal where the number has a short decimal form (at most 15
    digits before the point and 15 after: stores keep decimals in fixed precision, Oxigraph's
    up to about 1.7e20), else xsd:double."""
    text = double_text(number)
    if text not in ("NaN", "INF", "-INF"):
        plain = format(Decimal(text), "f")
        whole, _, fraction = plain.lstrip("-").partition(".")
        if len(whole) <= 15 and len(fraction) <= 15:
            return f'"{plain}"^^<{XSD}decimal>'
    return f'"{text}"^^<{XSD}double>'


class _Twins(dict):
    """(node, record index) of a forward record -> True when a backward record shares its
    statement; `paired` holds the (head, tail, relation, index) of those backward records."""

    paired: set


def _pair_records(kb: KB) -> _Twins:
    """Pair each backward record with one unpaired forward record of the same fact and
    qualifiers, in node order, so the two share one statement."""
    waiting: dict[tuple, deque] = defaultdict(deque)
    for n in kb.all_nodes:
        for index, (_, relation, direction, obj, qualifiers) in enumerate(kb.relations[n]):
            if direction == "forward":
                waiting[(n, relation, obj, _frozen(qualifiers))].append((n, index))
    twins = _Twins()
    twins.paired = set()
    for n in kb.all_nodes:
        for index, (_, relation, direction, obj, qualifiers) in enumerate(kb.relations[n]):
            if direction == "backward":
                queue = waiting.get((obj, relation, n, _frozen(qualifiers)))
                if queue:
                    twins[queue.popleft()] = True
                    twins.paired.add((obj, n, relation, index))
    return twins


def _frozen(qualifiers: dict) -> tuple:
    return tuple(sorted((key, tuple(values)) for key, values in qualifiers.items()))
