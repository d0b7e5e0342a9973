"""The schema of a KB in a SPARQL endpoint, with counts, from grouped queries.

Concepts count their entities, direct or inherited (as `KB.concept_members` holds them);
relations and attribute keys count the triples that state them (Wikidata's ``wdt:``, plain
triples); qualifier keys count their values. Every listing is paged and bounded as all of
`EndpointKB`'s are.

A KB in the Wikidata model lists its properties (``wikibase:directClaim``,
``wikibase:qualifier``, as Wikidata and koplc's export write them): its facts and qualifiers
are then counted a batch of predicates at a time (``VALUES``), each count an index range of
the endpoint's, and its concepts by their direct members, a concept with subconcepts by its own
query. Without such a list, one grouped count reads every triple (at 10^8 triples Virtuoso
ends that past its transaction timeout).
"""

from __future__ import annotations

import re

from koplc.kopl.kb.access import Schema
from koplc.sparql_backend.encodings import KEY_TYPE, P31, P279, WDT, WIKIBASE
from koplc.sparql_backend.patterns import values
from koplc.sparql_backend.terms import iri, string

# Predicates a counting query names in its VALUES.
BATCH = 50
CODE = r"[A-Z][A-Za-z]{0,3}"  # a code: an element's symbol, an airport's letters


def read_schema(kb) -> Schema:
    """The schema of the endpoint KB `kb`."""
    relations, attributes = facts(kb)
    return Schema(relations=relations, attributes=attributes, kinds=kinds(kb),
                  concepts=concepts(kb), qualifiers=qualifiers(kb))


def concepts(kb) -> dict[str, int]:
    """Each concept's name -> how many entities it has, its subconcepts' included: one grouped
    count of the direct members, then one count a batch of the concepts that have
    subconcepts."""
    e = kb.encoding
    names = kb.concept_iris()
    found = dict.fromkeys(names.values(), 0)

    def count(path: str, values: str = "") -> None:
        body = (f"{{ SELECT ?c (COUNT(DISTINCT ?x) AS ?n) WHERE {{ {values}?x {path} ?c .\n"
                f"{kb.entity_pattern('?x')} }} GROUP BY ?c }}")
        for rows in kb.paged(body, "?c ?n", "?c", "counting the concepts' members"):
            for r in rows:
                if r["c"].value in names:
                    found[names[r["c"].value]] = int(r["n"].value)

    if not e.statements:
        count(iri(e.type_predicate))
        return found
    count(iri(P31))
    parents = {r["parent"].value for rows in kb.paged(
        f"?c {iri(P279)} ?parent", "DISTINCT ?parent", "?parent", "listing the superconcepts")
        for r in rows}
    for batch in _batches(sorted(parents & set(names))):
        count(f"{iri(P31)}/{iri(P279)}*", values("?c", batch) + " ")
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
    declared = _declared(kb, "directClaim") if e.statements else []
    for prefix, attribute in prefixes:
        for rows in _grouped(kb, "?p", declared, prefix, lambda pattern: (
                f"{{ SELECT ?p ?value (COUNT(*) AS ?n) WHERE {{ ?s ?p ?o . {pattern} "
                f"BIND(isLiteral(?o) AS ?value) }} GROUP BY ?p ?value }}"),
                "?p ?value ?n", "counting the relations"):
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
    declared = sorted({*_declared(kb, "qualifier"), *_declared(kb, "qualifierValue")})
    found: dict[str, int] = {}
    for rows in _grouped(kb, "?q", declared, qualifier, lambda pattern: (
            f"{{ SELECT ?q (COUNT(*) AS ?n) WHERE {{ ?st ?q ?v . {pattern} }} GROUP BY ?q }}"),
            "?q ?n", "counting the qualifier keys"):
        for r in rows:
            name = e.qualifier_name(r["q"].value)
            if name is not None:
                found[name] = found.get(name, 0) + int(r["n"].value)
    return found


def _declared(kb, link: str) -> list[str]:
    """The predicates the KB's properties declare by ``wikibase:<link>`` (directClaim: their
    ``wdt:``, qualifier and qualifierValue: their ``pq:`` and ``pqv:``), sorted; empty where
    it declares none."""
    body = f"?property {iri(WIKIBASE + link)} ?p"
    return sorted({r["p"].value for rows in kb.paged(
        body, "DISTINCT ?p", "?p", "listing the declared properties", limit=10 ** 9,
        keyset=True) for r in rows})


def _grouped(kb, var: str, declared: list[str], prefix: str, query, variables: str,
             purpose: str):
    """The pages of the grouped count `query(pattern)` over the predicates `var`: the
    `declared` ones, a batch a query; with none declared, every predicate under `prefix` in one
    query that reads every triple. Pages go in the order of `variables` less the count."""
    patterns = [values(var, batch) for batch in _batches(declared)] if declared else [
        f"FILTER(STRSTARTS(STR({var}), {string(prefix)}))"]
    order = variables.rsplit(" ", 1)[0]
    for pattern in patterns:
        yield from kb.paged(query(pattern), variables, order, purpose)


def _batches(items: list[str]) -> list[list[str]]:
    return [items[i:i + BATCH] for i in range(0, len(items), BATCH)]


def codes(kb, least: int, most: int = 5000) -> dict[str, str]:
    """Each code -> the name of the one entity that holds it: the values of a key of strings
    that `least` to `most` entities hold, each a word of at most four letters beginning with a
    capital and held by one entity alone (an element's symbol, an airport's letters: what
    `koplc.kopl.answering.linking` reads in memory); one listing a key of that kind."""
    e, schema = kb.encoding, kb.schema()
    found: dict[str, str] = {}
    for key, count in sorted(schema.attributes.items()):
        if schema.kinds.get(key) != "string" or not least <= count <= most:
            continue
        predicate = _truthy(e, e.key(key), e.key_prefix)
        rows = kb.select(f"SELECT ?x ?v ?name WHERE {{ ?x {iri(predicate)} ?v . "
                         f"?x {iri(e.name_predicate)} ?name }} LIMIT {most + 1}",
                         f"listing the values of {key!r}")
        kb.require(rows, ["x", "v", "name"], f"listing the values of {key!r}")
        held = {r["v"].value: r["name"].value for r in rows}
        if len(held) >= least and len(held) == len({r["x"].value for r in rows}) and all(
                re.fullmatch(CODE, v) for v in held):
            found.update(held)
    return found


def reaches_one(kb, relation: str, direction: str, least: int) -> bool:
    """Whether `relation`, followed in `direction`, reaches one thing from each entity that
    has it, `least` or more of them (what `koplc.llm.byokg.space.one_each` reads in memory):
    one query for an entity it reaches two things from (found at once for most relations),
    then one listing `least` of its holders."""
    predicate = iri(_truthy(kb.encoding, kb.encoding.relation(relation),
                            kb.encoding.relation_prefix))
    one, two = ((f"?h {predicate} ?x .", f"?h {predicate} ?y .") if direction == "forward"
                else (f"?x {predicate} ?h .", f"?y {predicate} ?h ."))
    purpose = f"asking whether {relation!r} ({direction}) reaches one thing from each"
    if kb.select(f"SELECT ?h WHERE {{ {one} {two} FILTER(?x != ?y) }} LIMIT 1", purpose):
        return False
    return len(kb.select(f"SELECT DISTINCT ?h WHERE {{ {one} }} LIMIT {least}", purpose)) \
        >= least


def _truthy(e, predicate: str, prefix: str) -> str:
    """The predicate of a fact's triple: Wikidata's ``wdt:`` where facts are statements."""
    return WDT + predicate[len(e.base + prefix):] if e.statements else predicate


def relation_values(kb, most: int) -> list[tuple[str, str, str]]:
    """(id, name, relation) of each entity that facts of one relation point at from two or
    more subjects, for the relations that point at no more than `most` entities (a class, a
    status, a maker: what `koplc.kopl.answering.meant_values` reads in memory): for each
    relation one listing of at most `most` + 1 objects, then one count of their subjects."""
    e = kb.encoding
    found = []
    for relation in sorted({r for r, _ in kb.schema().relations}):
        predicate = _truthy(e, e.relation(relation), e.relation_prefix)
        listed = kb.select(f"SELECT DISTINCT ?o WHERE {{ ?s {iri(predicate)} ?o . "
                           f"FILTER(isIRI(?o)) }} LIMIT {most + 1}",
                           f"listing the values of {relation!r}")
        if not listed or len(listed) > most:
            continue
        counted = kb.select(
            f"SELECT ?o ?name (COUNT(?s) AS ?n) WHERE {{ "
            f"{values('?o', [r['o'].value for r in listed])} ?s {iri(predicate)} ?o . "
            f"?o {iri(e.name_predicate)} ?name }} GROUP BY ?o ?name",
            f"counting the values of {relation!r}")
        kb.require(counted, ["o", "name", "n"], f"counting the values of {relation!r}")
        found += [(e.node_id(r["o"].value), r["name"].value, relation) for r in counted
                  if int(r["n"].value) >= 2 and r["name"].value]
    return sorted(set(found))
