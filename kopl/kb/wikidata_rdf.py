"""KBs from RDF in Wikidata's model (N-Triples or Turtle), qualifiers included.

`is_wikidata` says whether parsed triples use Wikidata's vocabulary (a predicate in
``http://www.wikidata.org/prop/``); `koplc.kopl.kb.triples.load_rdf` then builds the KB here.

- Nodes are the items: subjects of ``wdt:`` and ``p:`` triples, items they link to,
  ``wikibase:Item``\\ s and classes. A node is a concept when it is the object of ``wdt:P31``,
  either end of ``wdt:P279`` or typed ``<urn:koplc:Concept>``; an entity's concepts are its
  ``wdt:P31``, a concept's parents its ``wdt:P279``. Its id is the IRI's local name
  (``Q42``), its name its ``rdfs:label`` (``@en`` first), else its id.
- Every statement node (``?s p:X ?st``) is a fact: ``ps:``/``psv:`` give its value (an item makes
  it a relation, anything else an attribute; a ``psv:`` value node wins over the ``ps:`` simple
  value Wikidata writes beside it), ``pq:``/``pqv:`` its qualifiers. Deprecated statements are
  left out. A ``wdt:`` triple counts only where its subject has no statement of the property.
- A property's name is its ``rdfs:label`` (``wd:X`` for ``p:X``), else its P-id (the local
  name, read back from koplc's minted form).
- Values: ``wikibase:quantityAmount`` with ``quantityUnit`` (Q199 is unit "1"; another unit is
  named by its label, else its local name); ``wikibase:timeValue`` with ``timePrecision`` 11 or
  more is a date, else a year; literals as in plain RDF (numbers are unitless quantities).
- Where koplc wrote the file (`koplc.sparql_backend.wikidata_export`), ``<urn:koplc:record>``
  says where the KB stored each fact (forward, backward or both; attribute) and the KB comes
  back as it was. Without it a relation is stored forward on its subject and backward on its
  object, as plain RDF's are.
"""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import date
from urllib.parse import unquote

from koplc.kopl.kb.model import KB, KBBuilder
from koplc.kopl.values import DATE, QUANTITY, STRING, YEAR, Value

WD = "http://www.wikidata.org/"
ENTITY, STATEMENTS, PROP = WD + "entity/", WD + "entity/statement/", WD + "prop/"
WDT, PS, PSV = PROP + "direct/", PROP + "statement/", PROP + "statement/value/"
PQ, PQV = PROP + "qualifier/", PROP + "qualifier/value/"
WIKIBASE = "http://wikiba.se/ontology#"
KOPLC = "urn:koplc:"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
XSD = "http://www.w3.org/2001/XMLSchema#"
P31, P279 = WDT + "P31", WDT + "P279"
UNITS, UNITLESS = ENTITY + "unit/", ENTITY + "Q199"
_P_ID = re.compile(r"P[1-9][0-9]*")
_DAY_PRECISION = 11
_CLASSES = ("P31", "P279")  # instance of, subclass of: read as concepts, not as facts


def is_wikidata(triples: list) -> bool:
    """Whether (subject, predicate, object) triples use Wikidata's property namespaces."""
    return any(p.startswith(PROP) for _, p, _ in triples)


def _is_literal(term) -> bool:
    return type(term).__name__ == "Literal"


def _local(text: str) -> str:
    """A local name as koplc mints it (``_`` for a space, percent-escapes) read back."""
    return unquote(text.replace("_", " "))


class _Graph:
    """The triples by subject, labels, and the kinds of node the model distinguishes."""

    def __init__(self, triples: list):
        self.out: dict[str, list] = defaultdict(list)
        self.labels: dict[str, str] = {}
        english: set[str] = set()
        for s, p, o in triples:
            self.out[s].append((p, o))
            if p == LABEL and _is_literal(o) and (s not in self.labels or
                                                  (o.language == "en" and s not in english)):
                self.labels[s] = o.value
                if o.language == "en":
                    english.add(s)

    def objects(self, s: str, p: str) -> list:
        return [o for q, o in self.out.get(s, ()) if q == p]

    def one(self, s: str, p: str):
        found = self.objects(s, p)
        return found[0] if found else None


def wikidata_to_kb(triples: list, builder: KBBuilder) -> KB:
    """Build the KB of parsed triples (subject id, predicate IRI, pyoxigraph object)."""
    g = _Graph(triples)
    concepts, entities = _nodes(triples, g)
    ids = {n: _node_id(n) for n in [*concepts, *entities]}
    for c, parents in concepts.items():
        builder.add_concept(ids[c], g.labels.get(c, ids[c]), [ids[p] for p in parents])
    for e, kinds in entities.items():
        builder.add_entity(ids[e], g.labels.get(e, ids[e]), [ids[k] for k in kinds])
    reader = _Facts(g, ids, set(concepts), builder)
    for s, p, o in triples:
        local = p[len(PROP):]
        if s in ids and p.startswith(PROP) and "/" not in local and local not in _CLASSES:
            reader.statement(s, local, o.value)
    for s, p, o in triples:
        if s in ids and p.startswith(WDT) and p not in (P31, P279) \
                and (s, p[len(WDT):]) not in reader.stated:
            reader.truthy(s, p[len(WDT):], o)
    return builder.build()


def _node_id(text: str) -> str:
    return _local(text[len(ENTITY):]) if text.startswith(ENTITY) else text


def _nodes(triples: list, g: _Graph) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(concept -> parents, entity -> concepts), each in the file's order."""
    concepts: dict[str, list[str]] = {}
    items: dict[str, None] = {}
    for s, p, o in triples:
        if p == P279 and not _is_literal(o):
            concepts.setdefault(s, []).append(o.value)
            concepts.setdefault(o.value, [])
        elif p == P31 and not _is_literal(o):
            concepts.setdefault(o.value, [])
        elif p == RDF_TYPE and o.value == KOPLC + "Concept":
            concepts.setdefault(s, [])
        elif p == RDF_TYPE and o.value == WIKIBASE + "Item":
            items.setdefault(s)
        elif p.startswith(WDT) or (p.startswith(PROP) and "/" not in p[len(PROP):]):
            items.setdefault(s)
            if p.startswith(WDT) and not _is_literal(o) and o.value.startswith(ENTITY):
                items.setdefault(o.value)
        elif p.startswith(PS) and not p.startswith(PSV) and not _is_literal(o) \
                and o.value.startswith(ENTITY):
            items.setdefault(o.value)
    # In the file's order of subjects (koplc writes nodes in the KB's order), then the rest.
    order = {s: n for n, s in enumerate(g.out)}
    late = len(order)
    concepts = dict(sorted(concepts.items(), key=lambda c: order.get(c[0], late)))
    entities = {i: [o.value for o in g.objects(i, P31) if not _is_literal(o)]
                for i in sorted(items, key=lambda i: order.get(i, late)) if i not in concepts}
    return concepts, entities


class _Facts:
    """Reads statements and truthy triples into the builder."""

    def __init__(self, g: _Graph, ids: dict[str, str], concepts: set[str], builder: KBBuilder):
        self.g, self.ids, self.concepts, self.builder = g, ids, concepts, builder
        self.stated: set[tuple[str, str]] = set()

    def name(self, local: str) -> str:
        """A property's name: the label of ``wd:<local>`` (or of ``wd:property/<local>``, where
        koplc's export puts a property minted from a name), else its P-id or minted name."""
        for where in (ENTITY, ENTITY + "property/"):
            label = self.g.labels.get(where + local)
            if label is not None:
                return label
        return local if _P_ID.fullmatch(local) else _local(local)

    def statement(self, head: str, local: str, st: str) -> None:
        self.stated.add((head, local))
        g = self.g
        if g.one(st, WIKIBASE + "rank") is not None and \
                g.one(st, WIKIBASE + "rank").value == WIKIBASE + "DeprecatedRank":
            return
        node = g.one(st, PSV + local)
        value = self.value_node(node.value) if node is not None else None
        simple = g.one(st, PS + local)
        if value is None and simple is None:
            return
        qualifiers = self.qualifiers(st)
        records = {o.value for o in g.objects(st, KOPLC + "record")}
        name = self.name(local)
        if value is None and not _is_literal(simple) and simple.value in self.ids:
            self.relation(head, name, simple.value, qualifiers, records)
        elif head not in self.concepts:  # the engine keeps no attributes on concepts
            if value is None:
                value = literal_value(simple) if _is_literal(simple) else \
                    Value(STRING, self.g.labels.get(simple.value, _node_id(simple.value)))
            self.builder.add_attribute(self.ids[head], name, value, qualifiers)

    def relation(self, head: str, name: str, tail: str, qualifiers: dict,
                 records: set[str]) -> None:
        forward = not records or KOPLC + "forward" in records
        backward = not records or KOPLC + "backward" in records
        # The builder adds a concept's records itself (the engine's mirror of a relation).
        if forward and head not in self.concepts:
            self.builder.add_relation(self.ids[head], name, "forward", self.ids[tail], qualifiers)
        if backward and tail not in self.concepts:
            self.builder.add_relation(self.ids[tail], name, "backward", self.ids[head],
                                      qualifiers)

    def truthy(self, head: str, local: str, o) -> None:
        name = self.name(local)
        if _is_literal(o):
            if head in self.concepts:
                return
            self.builder.add_attribute(self.ids[head], name, literal_value(o))
        elif o.value in self.ids:
            self.relation(head, name, o.value, {}, set())

    def qualifiers(self, st: str) -> dict[str, tuple[Value, ...]]:
        found: dict[str, list[Value]] = {}
        triples = self.g.out.get(st, ())
        nodes = {p[len(PQV):] for p, _ in triples if p.startswith(PQV)}
        for p, o in triples:
            if p.startswith(PQV) and "/" not in p[len(PQV):]:
                value = self.value_node(o.value)
            elif p.startswith(PQ) and "/" not in p[len(PQ):] and p[len(PQ):] not in nodes:
                value = literal_value(o) if _is_literal(o) else \
                    Value(STRING, self.g.labels.get(o.value, _node_id(o.value)))
            else:
                continue
            if value is not None:
                found.setdefault(p[len(PQV if p.startswith(PQV) else PQ):], []).append(value)
        return {self.name(local): tuple(values) for local, values in found.items()}

    def value_node(self, node: str) -> Value | None:
        g = self.g
        helper = g.one(node, KOPLC + "time")
        if helper is not None:
            return literal_value(helper)
        amount = g.one(node, WIKIBASE + "quantityAmount")
        if amount is not None:
            unit = g.one(node, WIKIBASE + "quantityUnit")
            return Value(QUANTITY, float(amount.value), self.unit(unit.value if unit else None))
        stamp = g.one(node, WIKIBASE + "timeValue")
        if stamp is None:
            return None
        precision = g.one(node, WIKIBASE + "timePrecision")
        return time_value(stamp.value, int(precision.value) if precision else _DAY_PRECISION)

    def unit(self, text: str | None) -> str:
        if text is None or text == UNITLESS:
            return "1"
        if text.startswith(UNITS):
            return _local(text[len(UNITS):])
        return self.g.labels.get(text, _node_id(text))


def time_value(stamp: str, precision: int) -> Value:
    """A ``wikibase:timeValue`` (``+1984-12-30T00:00:00Z``) at a precision: a date at day
    precision or finer, else a year."""
    text = stamp.lstrip("+")
    negative = text.startswith("-")
    year_text, _, rest = text.lstrip("-").partition("-")
    year = -int(year_text) if negative else int(year_text)
    if precision >= _DAY_PRECISION:
        month, day = rest[:2], rest[3:5]
        return Value(DATE, date(year, int(month), int(day)))
    return Value(YEAR, year)


_NUMBERS = {XSD + t for t in ("integer", "decimal", "double", "float", "int", "long")}


def literal_value(literal) -> Value:
    """A literal as a value: numbers are unitless quantities, dateTimes dates, gYears years."""
    datatype, text = literal.datatype.value, literal.value
    try:
        if datatype in _NUMBERS:
            return Value(QUANTITY, float(text), "1")
        if datatype == XSD + "date":
            return Value(DATE, date.fromisoformat(text[:10]))
        if datatype == XSD + "dateTime":
            return time_value(text, _DAY_PRECISION)
        if datatype == XSD + "gYear":
            return Value(YEAR, int(text))
    except ValueError:
        pass
    return Value(STRING, text)
