"""The schema of a KB in a SPARQL endpoint, with counts, from grouped queries.

Concepts count their entities, direct or inherited (as `KB.concept_members` holds them);
relations and attribute keys count the triples that state them (Wikidata's ``wdt:``, plain
triples); qualifier keys count their values. Every listing is paged and bounded as all of
`EndpointKB`'s are.
"""

from __future__ import annotations

from koplc.kopl.kb.access import Schema
from koplc.sparql_backend.encodings import KEY_TYPE, P31, P279, WDT
from koplc.sparql_backend.terms import iri, string


def read_schema(kb) -> Schema:
    """The schema of the endpoint KB `kb`."""
    relations, attributes = facts(kb)
    return Schema(relations=relations, attributes=attributes, kinds=kinds(kb),
                  concepts=concepts(kb), qualifiers=qualifiers(kb))


def concepts(kb) -> dict[str, int]:
    """Each concept's name -> how many entities it has, its subconcepts' included."""
    e = kb.encoding
    names = kb.concept_iris()
    path = f"{iri(P31)}/{iri(P279)}*" if e.statements else iri(e.type_predicate)
    body = (f"{{ SELECT ?c (COUNT(DISTINCT ?x) AS ?n) WHERE {{ ?x {path} ?c .\n"
            f"{kb.entity_pattern('?x')} }} GROUP BY ?c }}")
    found = dict.fromkeys(names.values(), 0)
    for rows in kb.paged(body, "?c ?n", "?c", "counting the concepts' members"):
        for r in rows:
            if r["c"].value in names:
                found[names[r["c"].value]] = int(r["n"].value)
    return found


def kinds(kb) -> dict[str, str]:
    """Each attribute key's value kind, as koplc's export records it."""
    e = kb.encoding
    found = {}
    for rows in kb.paged(f"?k {iri(KEY_TYPE)} ?kind", "?k ?kind", "?k",
                         "reading the attribute keys' kinds"):
        found.update({e.key_name(r["k"].value) or r["k"].value: r["kind"].value for r in rows})
    return found


def facts(kb) -> tuple[dict[tuple[str, str], int], dict[str, int]]:
    """(relation, direction) -> count and attribute key -> count."""
    e = kb.encoding
    relations: dict[tuple[str, str], int] = {}
    attributes: dict[str, int] = {}
    prefixes: list[tuple[str, bool | None]]
    if e.statements:  # one namespace: a literal value makes an attribute
        prefixes = [(WDT, None)]
    else:
        prefixes = [(e.base + e.relation_prefix, False), (e.base + e.key_prefix, True)]
    for prefix, attribute in prefixes:
        body = (f"{{ SELECT ?p ?value (COUNT(*) AS ?n) WHERE {{ ?s ?p ?o . "
                f"FILTER(STRSTARTS(STR(?p), {string(prefix)})) BIND(isLiteral(?o) AS ?value) }} "
                f"GROUP BY ?p ?value }}")
        for rows in kb.paged(body, "?p ?value ?n", "?p ?value", "counting the relations"):
            for r in rows:
                p = r["p"].value
                if p in (e.type_predicate, P279):
                    continue  # concept links, not facts
                value = r["value"].value in ("true", "1") if attribute is None else attribute
                name = e.relation_name(e.base + e.relation_prefix + p[len(prefix):])
                count = int(r["n"].value)
                if value:
                    attributes[name] = attributes.get(name, 0) + count
                else:
                    for direction in ("forward", "backward"):
                        relations[(name, direction)] = relations.get((name, direction), 0) + count
    return relations, attributes


def qualifiers(kb) -> dict[str, int]:
    """Each qualifier key -> how many values it has (Wikidata's ``pq:``/``pqv:``)."""
    e = kb.encoding
    if not e.statements:
        return {}
    qualifier = e.base + e.relation_prefix + "qualifier/"
    body = (f"{{ SELECT ?q (COUNT(*) AS ?n) WHERE {{ ?st ?q ?v . FILTER(STRSTARTS(STR(?q), "
            f"{string(qualifier)})) }} GROUP BY ?q }}")
    found: dict[str, int] = {}
    for rows in kb.paged(body, "?q ?n", "?q", "counting the qualifier keys"):
        for r in rows:
            name = e.qualifier_name(r["q"].value)
            if name is not None:
                found[name] = found.get(name, 0) + int(r["n"].value)
    return found
