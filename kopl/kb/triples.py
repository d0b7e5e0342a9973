"""KBs from triples: pipe files (``subject|relation|object``, MetaQA's form) and RDF (N-Triples,
Turtle).

Pipe files: every distinct string is one entity named by it (MetaQA identifies entities by
surface string), numbered ``E00000``… in sorted-name order. A `TripleSchema` says which concept
the subjects belong to and which concept each relation's objects belong to; concepts are ids
``C_<name>``. The schema is the caller's to name (MetaQA's is `koplc.kopl.datasets.metaqa`'s
``KB_SCHEMA``); without one, the file gets the neutral schema read from its own triples
(`triple_schema.neutral_schema`: one concept ``entity``, value-only relations as attributes).
Each triple is stored twice, forward on the subject and backward on the object, in file order:
exactly how MetaQA's kopl_kb.json was built by another converter, so both give the same answers
under MetaQA's schema (tests/test_kb_triples.py compares them on a cut of both). A relation named
in `attributes` becomes an attribute of the subject instead.

RDF, a plain mapping: IRIs and blank nodes are entities (id = the IRI, ``_:b`` for blank
nodes); ``rdf:type C`` makes C a concept and the subject its instance; ``rdfs:subClassOf``
links concepts; ``rdfs:label`` is the name (the IRI's local name when there is none: the part
after its last ``/`` or ``#``, or after its last ``:`` in a ``urn:``-like IRI); a triple
with an IRI object is a relation fact stored forward on the subject and backward on the object;
a literal object is an attribute (numbers → unitless quantities, xsd:date/dateTime → dates,
xsd:gYear → years, anything else → strings). The relation or attribute name is the predicate's
label, else its local name. Properties (``rdf:type rdf:Property`` or ``owl:*Property``, or any
predicate IRI) are not entities; triples about concepts other than labels and subclass links are
ignored. Plain RDF has no qualifiers; a file in Wikidata's model (a predicate in
``http://www.wikidata.org/prop/``) is read by `koplc.kopl.kb.wikidata_rdf` instead, statement
nodes and qualifiers included.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from koplc.kopl.kb.model import KB, KBBuilder
from koplc.kopl.kb.triple_schema import TripleSchema, neutral_schema
from koplc.kopl.kb.wikidata_rdf import is_wikidata, wikidata_to_kb
from koplc.kopl.naming import local_name
from koplc.kopl.values import QUANTITY, STRING, Value, parse_time


def concept_id(name: str) -> str:
    return "C_" + name.replace(" ", "_")


def load_pipe_triples(path: str | Path, schema: TripleSchema | None = None) -> KB:
    """Load a ``subject|relation|object`` file under `schema` (None: the file's neutral
    schema); KBError for a malformed line."""
    path = Path(path)
    builder = KBBuilder(str(path))
    triples = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            parts = line.split("|")
            if len(parts) != 3 or not all(parts):
                raise builder.error(f"line {number}", "expected subject|relation|object, "
                                    f"got {line[:80]!r}")
            triples.append(parts)
    return triples_to_kb(triples, schema, builder)


def triples_to_kb(triples: list[list[str]], schema: TripleSchema | None,
                  builder: KBBuilder) -> KB:
    """Build the KB of (subject, relation, object) string triples under a schema (None: their
    neutral schema)."""
    if schema is None:
        schema = neutral_schema(triples)
    concepts = schema.concepts()
    order = {name: i for i, name in enumerate(concepts)}
    for name in concepts:
        builder.add_concept(concept_id(name), name, [])
    member: dict[str, set[str]] = {}
    for s, r, o in triples:
        member.setdefault(s, set()).add(schema.subject_of(r))
        if r in schema.attributes:
            continue
        objects = member.setdefault(o, set())
        if r in schema.object_concepts:
            objects.add(schema.object_concepts[r])
    width = max(5, len(str(len(member))))
    ids = {name: f"E{i:0{width}d}" for i, name in enumerate(sorted(member))}
    for name, eid in ids.items():
        kinds = sorted(member[name], key=order.__getitem__)
        builder.add_entity(eid, name, [concept_id(k) for k in kinds])
    for number, (s, r, o) in enumerate(triples, start=1):
        if r in schema.attributes:
            builder.add_attribute(ids[s], r, _attribute(builder, number, o, schema.attributes[r]))
            continue
        builder.add_relation(ids[s], r, "forward", ids[o])
        builder.add_relation(ids[o], r, "backward", ids[s])
    return builder.build()


def _attribute(builder: KBBuilder, number: int, text: str, kind: str) -> Value:
    try:
        if kind == STRING:
            return Value(STRING, text)
        if kind == QUANTITY:
            return Value(QUANTITY, float(text), "1")
        return parse_time(text)
    except ValueError:
        raise builder.error(f"triple {number}", f"{text!r} is not a {kind}") from None


_RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
_RDFS = "http://www.w3.org/2000/01/rdf-schema#"
_OWL = "http://www.w3.org/2002/07/owl#"
_XSD = "http://www.w3.org/2001/XMLSchema#"
TYPE, LABEL, SUBCLASS = _RDF + "type", _RDFS + "label", _RDFS + "subClassOf"
_PROPERTY_CLASSES = {_RDF + "Property", _OWL + "ObjectProperty", _OWL + "DatatypeProperty",
                     _OWL + "AnnotationProperty"}
_SCHEMA_PREDICATES = {_RDFS + "domain", _RDFS + "range", _RDFS + "subPropertyOf",
                      _OWL + "inverseOf"}
_NUMBERS = {_XSD + t for t in ("integer", "decimal", "double", "float", "int", "long", "short",
                               "byte", "nonNegativeInteger", "positiveInteger",
                               "negativeInteger", "nonPositiveInteger", "unsignedInt",
                               "unsignedLong", "unsignedShort", "unsignedByte")}


def load_rdf(path: str | Path) -> KB:
    """Load an N-Triples (.nt) or Turtle (.ttl) file with pyoxigraph (see the module notes;
    Wikidata's model goes to `koplc.kopl.kb.wikidata_rdf`)."""
    import pyoxigraph

    path = Path(path)
    builder = KBBuilder(str(path))
    fmt = pyoxigraph.RdfFormat.TURTLE if path.suffix == ".ttl" else pyoxigraph.RdfFormat.N_TRIPLES
    try:
        quads = list(pyoxigraph.parse(path=str(path), format=fmt))
    except SyntaxError as err:
        raise builder.error("RDF syntax", str(err)) from None
    triples = [(_term(q.subject), q.predicate.value, q.object) for q in quads]
    if is_wikidata(triples):
        return wikidata_to_kb(triples, builder)
    return rdf_to_kb(triples, builder)


def _term(term) -> str:
    return f"_:{term.value}" if type(term).__name__ == "BlankNode" else term.value


def rdf_to_kb(triples: list, builder: KBBuilder) -> KB:
    """Build the KB of parsed RDF triples (subject id, predicate IRI, pyoxigraph object)."""
    labels: dict[str, str] = {}
    concepts: dict[str, list[str]] = {}
    properties: set[str] = {p for _, p, _ in triples}
    for s, p, o in triples:
        if p == LABEL and _is_literal(o):
            labels.setdefault(s, o.value)
        elif p == TYPE and not _is_literal(o):
            if o.value in _PROPERTY_CLASSES:
                properties.add(s)
            else:
                concepts.setdefault(_term(o), [])
        elif p == SUBCLASS and not _is_literal(o):
            concepts.setdefault(s, []).append(_term(o))
            concepts.setdefault(_term(o), [])
    entities: dict[str, list[str]] = {}
    for s, p, o in triples:
        if s in concepts or (s in properties and p in (LABEL, TYPE)) or p in _SCHEMA_PREDICATES:
            continue
        kinds = entities.setdefault(s, [])
        if p == TYPE and not _is_literal(o):
            kinds.append(_term(o))
        elif p not in (LABEL, TYPE, SUBCLASS) and not _is_literal(o) and _term(o) not in concepts:
            entities.setdefault(_term(o), [])
    for c, parents in concepts.items():
        builder.add_concept(c, labels.get(c, _unlabelled(c)), parents)
    for e, kinds in entities.items():
        builder.add_entity(e, labels.get(e, _unlabelled(e)), list(dict.fromkeys(kinds)))
    for s, p, o in triples:
        if s not in entities or p in (LABEL, TYPE, SUBCLASS) or p in _SCHEMA_PREDICATES:
            continue
        name = labels.get(p, local_name(p))
        if _is_literal(o):
            builder.add_attribute(s, name, _literal_value(o))
            continue
        target = _term(o)
        builder.add_relation(s, name, "forward", target)
        if target in entities:
            builder.add_relation(target, name, "backward", s)
    return builder.build()


def _is_literal(term) -> bool:
    return type(term).__name__ == "Literal"


def _unlabelled(term: str) -> str:
    """The name of a node without a label: its IRI's local name, a blank node's id."""
    return term if term.startswith("_:") else local_name(term)


def _literal_value(literal) -> Value:
    datatype, text = literal.datatype.value, literal.value
    try:
        if datatype in _NUMBERS:
            return Value(QUANTITY, float(text), "1")
        if datatype in (_XSD + "date", _XSD + "dateTime"):
            return Value("date", date.fromisoformat(text[:10]))
        if datatype == _XSD + "gYear":
            return Value("year", int(text[:5] if text.startswith("-") else text[:4]))
    except ValueError:
        pass
    return Value(STRING, text)
