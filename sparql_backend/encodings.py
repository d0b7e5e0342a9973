"""RDF encodings of a KB: the vocabulary and shape that export writes and the lowering reads.

An `Encoding` is data: which predicates name nodes and link them to concepts, how names become
IRIs, whether facts are reified (one node per stored fact, carrying its direction and
qualifiers) and whether values are nodes (KQA Pro's ``<pred:value>``/``<pred:unit>``/
``<pred:year>``/``<pred:date>``) or plain typed literals (Freebase).

- `KQAPRO`: KQA Pro's encoding, so its published SPARQL runs on our exports: ``<pred:name>``,
  ``<pred:instance_of>`` to every ancestor concept, value nodes, direct ``<s> <r> <o>`` and
  ``<e> <key> <value node>`` triples, and reified facts ``<pred:fact_h|r|t>`` with qualifiers.
- `PLAIN`: plain triples for KBs like MetaQA: ``rdfs:label``, ``rdf:type``, one ``<s> <r> <o>``
  per fact. It cannot say a fact's direction, duplicates or qualifiers, so export refuses a KB
  that has them (every backward record must mirror a forward one, as MetaQA's do).
- `FREEBASE`: Freebase's ``type.object.name`` (``@en``) and ``type.object.type`` with classes
  named by IRI (``ns:music.album``), typed literals, and reified facts for qualifiers.
- `WIKIDATA`: Wikidata's own RDF model (`WikidataEncoding`): ``rdfs:label`` (``@en``),
  ``wdt:P31``/``wdt:P279``, ``wdt:`` truthy triples, ``p:``/``ps:``/``psv:``/``pq:``/``pqv:``
  statement nodes and ``wikibase:`` quantity and time value nodes (`koplc.sparql_backend.wikidata`).

Reified facts carry ``<urn:koplc:record>`` (forward, backward or attribute), which says where the
KB stores the fact: the engine's Relate reads records, not triples. A year or date value node also
carries ``<urn:koplc:time>``, the value as one typed literal (xsd:gYear or xsd:date), so that a
comparison reads one triple instead of asking whether a date exists (EXISTS inside
expressions is where Virtuoso's optimizer goes wrong). Each key records its type
(``<urn:koplc:keyType>``), which the engine uses to read the literals compared with it.
"""

from __future__ import annotations

from dataclasses import dataclass

from koplc.kopl.errors import LoweringError
from koplc.sparql_backend.terms import RDF_TYPE, iri, lang_string, local_name, name_of, string

KOPLC = "urn:koplc:"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
RDFS_CLASS = "http://www.w3.org/2000/01/rdf-schema#Class"
RDF_VALUE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#value"


@dataclass(frozen=True)
class Encoding:
    """How a KB is written as RDF; see the module notes for the three instances."""

    name: str
    description: str
    base: str
    name_predicate: str
    type_predicate: str
    node_prefix: str = ""
    relation_prefix: str = ""
    key_prefix: str = ""
    underscores: bool = False
    name_lang: str | None = None
    concepts_by_name: bool = False
    reified: bool = True
    value_nodes: bool = True
    value: str = "pred:value"
    unit: str = "pred:unit"
    year: str = "pred:year"
    date: str = "pred:date"
    time: str = "urn:koplc:time"
    fact_h: str = "pred:fact_h"
    fact_r: str = "pred:fact_r"
    fact_t: str = "pred:fact_t"
    concept_marker: str = KOPLC + "Concept"
    # Wikidata's shape (`WikidataEncoding`): statement nodes instead of fact_h/fact_r/fact_t.
    statements: bool = False
    node_class: str = ""  # when set, every node is an rdf:type of it (and nothing else is)
    # When set, the predicates from a node to the concepts it is an instance of and from a
    # concept to its parents: a node is in each concept these reach (Wikidata: P31, P279), a
    # concept in each of its ancestors.
    concept_link: str = ""
    concept_parent: str = ""
    marker_predicate: str = ""  # what links a concept to `concept_marker` (else type_predicate)

    # IRIs of names (full IRI text, without angle brackets).

    def node(self, node_id: str) -> str:
        return self.base + self.node_prefix + local_name(node_id, self.underscores)

    def relation(self, name: str) -> str:
        return self.base + self.relation_prefix + local_name(name, self.underscores)

    def key(self, name: str) -> str:
        """The IRI of an attribute or qualifier key."""
        return self.base + self.key_prefix + local_name(name, self.underscores)

    def concept(self, name: str) -> str:
        """The IRI a concept of this name has (only where concepts are named by IRI)."""
        if not self.concepts_by_name:
            raise LoweringError(f"the {self.name} encoding does not name concepts by IRI")
        return self.node(name)

    def name_literal(self, name: str) -> str:
        """The SPARQL literal a node's name is stored as."""
        return lang_string(name, self.name_lang) if self.name_lang else string(name)

    # Back from IRIs.

    def node_id(self, text: str) -> str:
        return name_of(_strip(text, self.base + self.node_prefix), self.underscores)

    def relation_name(self, text: str) -> str:
        return name_of(_strip(text, self.base + self.relation_prefix), self.underscores)

    def key_name(self, text: str) -> str | None:
        """The key an IRI names, or None when it is not a key IRI of this encoding."""
        prefix = self.base + self.key_prefix
        if not text.startswith(prefix) or "/" in text[len(prefix):]:
            return None
        return name_of(text[len(prefix):], self.underscores)

    def fact_iri(self, number: int) -> str:
        """Reserved: a `/` after the base never comes out of `local_name`."""
        return f"{self.base}~fact/{number}"

    def qualifier(self, name: str) -> str:
        """The SPARQL predicate (an IRI or a path) from a fact to its `name` qualifier values."""
        return iri(self.key(name))

    def qualifier_name(self, text: str) -> str | None:
        """The qualifier key an IRI names, or None."""
        return self.key_name(text)

    def unit_term(self, unit: str) -> str:
        """The SPARQL term a quantity's unit is stored as."""
        return string(unit)

    def fact_link(self, f: str, h: str, r: str, t: str) -> str:
        """A pattern binding `h`, `r` and `t` to the head, predicate and tail of fact `f`."""
        return f"{f} {iri(self.fact_h)} {h} ; {iri(self.fact_r)} {r} ; {iri(self.fact_t)} {t} ."

    def statement(self, f: str, head: str, prop: str, tail: str, record: str,
                  value: bool = False) -> str:
        """A Wikidata statement pattern (`WikidataEncoding`); others reify with fact_h/r/t."""
        raise LoweringError(f"the {self.name} encoding has no statement nodes")

    # Fixed vocabulary, as SPARQL terms.

    def term(self, name: str) -> str:
        return iri(getattr(self, name))


def _strip(text: str, prefix: str) -> str:
    return text[len(prefix):] if text.startswith(prefix) else text


# Wikidata's namespaces.
WD = "http://www.wikidata.org/"
ENTITY = WD + "entity/"
STATEMENT_NODES = ENTITY + "statement/"
VALUE_NODES = WD + "value/"
UNITS = ENTITY + "unit/"
PROPERTIES = ENTITY + "property/"
"""Where a property minted from a KB's name (not a P-id) has its ``wd:`` node: no node's IRI
(``entity/`` and one percent-encoded segment) can be the same."""
UNITLESS = ENTITY + "Q199"  # Wikidata's unit "1"
PROP = WD + "prop/"
WDT = PROP + "direct/"
PS, PSV = PROP + "statement/", PROP + "statement/value/"
PQ, PQV = PROP + "qualifier/", PROP + "qualifier/value/"
WIKIBASE = "http://wikiba.se/ontology#"
P31, P279 = WDT + "P31", WDT + "P279"


def unit_iri(unit: str) -> str:
    """The IRI of a unit: Wikidata's Q199 for "1", else one minted from the name."""
    return UNITLESS if unit == "1" else UNITS + local_name(unit, True)


def unit_name(text: str) -> str:
    """The unit an IRI stands for (`unit_iri` backwards; a Q-id for any other item)."""
    if text == UNITLESS:
        return "1"
    return name_of(text[len(UNITS):], True) if text.startswith(UNITS) else \
        name_of(_strip(text, ENTITY), True)


class WikidataEncoding(Encoding):
    """Wikidata's model: a property's IRIs share one local name (``p:X``, ``ps:X``, ``pq:X``,
    ``wdt:X``), minted from the KB's name (its rdfs:label) unless the name is a P-id.

    The lowering reads statement nodes (``?s p:R ?st . ?st ps:R ?o``), not ``wdt:`` triples,
    because the engine counts the records a fact is stored as; string values are literals
    (``ps:``/``pq:``), quantities and times value nodes (``psv:``/``pqv:``), so each statement
    has one value and ``(ps:K|psv:K)`` binds it once."""

    def qualifier(self, name: str) -> str:
        local = local_name(name, True)
        return f"({iri(PQ + local)}|{iri(PQV + local)})"

    def qualifier_name(self, text: str) -> str | None:
        for prefix in (PQV, PQ):
            if text.startswith(prefix) and "/" not in text[len(prefix):]:
                return name_of(text[len(prefix):], True)
        return None

    def unit_term(self, unit: str) -> str:
        return iri(unit_iri(unit))

    def fact_link(self, f: str, h: str, r: str, t: str) -> str:
        return (f"{h} {r} {f} . {f} ?statement_value {t} .\n"
                f"  FILTER(STRSTARTS(STR({r}), {string(PROP)}) && "
                f"STRSTARTS(STR(?statement_value), {string(PS)}))")

    def statement(self, f: str, head: str, prop: str, tail: str, record: str,
                  value: bool = False) -> str:
        """Statement `f` of property `prop` (a ``p:`` IRI term) from `head` to `tail`, stored
        as `record`; `value`: the tail is an attribute value (``ps:`` or ``psv:``)."""
        local = prop[1 + len(PROP):-1]
        ps = iri(PS + local)
        if value:
            ps = f"({ps}|{iri(PSV + local)})"
        return f"{head} {prop} {f} .\n{f} {ps} {tail} ; {iri(RECORD)} {record} ."


RECORD = KOPLC + "record"
FORWARD, BACKWARD, ATTRIBUTE = KOPLC + "forward", KOPLC + "backward", KOPLC + "attribute"
KEY_TYPE = KOPLC + "keyType"

KQAPRO = Encoding(
    name="kqapro",
    description="KQA Pro's RDF: <pred:name>, <pred:instance_of>, value nodes, reified facts",
    base="http://kqapro.invalid/",
    name_predicate="pred:name",
    type_predicate="pred:instance_of",
    underscores=True,
)

PLAIN = Encoding(
    name="plain",
    description="plain triples (rdfs:label, rdf:type, <s> <r> <o>) for KBs like MetaQA",
    base="http://kb.invalid/",
    name_predicate=RDFS_LABEL,
    type_predicate=RDF_TYPE,
    node_prefix="node/",
    relation_prefix="relation/",
    key_prefix="key/",
    reified=False,
    value=RDF_VALUE,
    unit="http://kb.invalid/value/unit",
    year="http://kb.invalid/value/year",
    date="http://kb.invalid/value/date",
    concept_marker=RDFS_CLASS,
)

FREEBASE = Encoding(
    name="freebase",
    description="Freebase: type.object.name@en, type.object.type, typed literals",
    base="http://rdf.freebase.com/ns/",
    name_predicate="http://rdf.freebase.com/ns/type.object.name",
    type_predicate="http://rdf.freebase.com/ns/type.object.type",
    name_lang="en",
    concepts_by_name=True,
    value_nodes=False,
    fact_h=KOPLC + "fact_h",
    fact_r=KOPLC + "fact_r",
    fact_t=KOPLC + "fact_t",
)

WIKIDATA = WikidataEncoding(
    name="wikidata",
    description="Wikidata: rdfs:label@en, wdt:P31/P279, wdt: truthy triples, p:/ps:/pq: "
                "statement nodes, wikibase: quantity and time values",
    base=WD,
    name_predicate=RDFS_LABEL,
    type_predicate=P31,
    node_prefix="entity/",
    relation_prefix="prop/",
    key_prefix="prop/",
    underscores=True,
    name_lang="en",
    value=WIKIBASE + "quantityAmount",
    unit=WIKIBASE + "quantityUnit",
    year=KOPLC + "year",
    date=KOPLC + "time",
    statements=True,
    node_class=WIKIBASE + "Item",
    concept_link=iri(P31),
    concept_parent=iri(P279),
    marker_predicate=RDF_TYPE,
)

ENCODINGS: dict[str, Encoding] = {e.name: e for e in (KQAPRO, PLAIN, FREEBASE, WIKIDATA)}


def encoding_named(name: str | Encoding) -> Encoding:
    """The encoding called `name` (an Encoding passes through); LoweringError if unknown."""
    if isinstance(name, Encoding):
        return name
    if name not in ENCODINGS:
        raise LoweringError(f"unknown RDF encoding {name!r}; choose one of "
                            f"{', '.join(ENCODINGS)}", code="unknown-encoding")
    return ENCODINGS[name]
