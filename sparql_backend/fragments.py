"""A small in-memory KB cut from an endpoint: the bounded neighbourhood of some entities.

`fragment_of(kb, seeds)` fetches, hop by hop (at most `hops`, at most `per_hop` new entities a
hop, every listing paged and bounded), the triples of the seeds and of the entities they reach,
in the endpoint's own encoding, and loads them with the RDF loaders that read a whole file
(`koplc.kopl.kb.triples`, `koplc.kopl.kb.wikidata_rdf`). A node with a name is a KB node (an
entity or concept); a node without one is part of a fact (a statement node, a value node) and
is followed until it ends. Entities one hop past the last come with their names and concepts
only. The schema's concepts (with their names and parents) and the property descriptions are
in every fragment, so a front end sees the whole concept hierarchy.
"""

from __future__ import annotations

from koplc.kopl.kb.model import KB, KBBuilder
from koplc.kopl.kb.triples import rdf_to_kb
from koplc.kopl.kb.wikidata_rdf import is_wikidata, wikidata_to_kb
from koplc.sparql_backend.encodings import KEY_TYPE, WIKIBASE
from koplc.sparql_backend.terms import RDF_TYPE, Term, iri

Triple = tuple[str, str, Term]
CHUNK = 100  # IRIs in one VALUES block


def fragment_of(kb, seeds: list[str], *, hops: int = 2, per_hop: int = 100,
                per_query: int = 5000) -> KB:
    """The KB of the neighbourhood of the entity IRIs `seeds` on the endpoint KB `kb`."""
    cut = _Cut(kb, per_query)
    cut.add(schema_triples(kb))
    frontier = list(dict.fromkeys(seeds))
    seen = set(frontier)
    for _ in range(hops):
        reached = cut.expand(frontier[:per_hop])
        frontier = [n for n in reached if n not in seen]
        seen.update(frontier)
        if not frontier:
            break
    cut.describe(sorted(n for n, named in cut.named.items() if named and n not in cut.expanded))
    return load_triples(cut.triples, f"{kb.url} (fragment)")


def schema_triples(kb) -> list[Triple]:
    """The concepts' triples and the properties' descriptions, fetched once per endpoint."""
    held = getattr(kb, "_schema_triples", None)
    if held is not None:
        return held
    e = kb.encoding
    marker = f"?s {iri(e.marker_predicate or e.type_predicate)} {iri(e.concept_marker)} ."
    parts = [(f"{marker}\n?s ?p ?o", "fetching the concepts"),
             (f"?s {iri(KEY_TYPE)} ?o . BIND({iri(KEY_TYPE)} AS ?p)",
              "fetching the attribute keys' kinds")]
    if e.statements:
        parts.append((f"?s {iri(RDF_TYPE)} {iri(WIKIBASE + 'Property')} .\n?s ?p ?o",
                       "fetching the properties' names"))
    triples: list[Triple] = []
    for body, purpose in parts:
        for rows in kb.paged(body, "?s ?p ?o", "?s ?p ?o", purpose):
            triples.extend((r["s"].value, r["p"].value, r["o"]) for r in rows)
    kb._schema_triples = triples
    return triples


class _Cut:
    """The triples fetched so far and the nodes already expanded."""

    def __init__(self, kb, per_query: int):
        self.kb, self.per_query = kb, per_query
        self.e = kb.encoding
        self.triples: dict[Triple, None] = {}
        self.expanded: set[str] = set()
        self.named: dict[str, bool] = {}

    def add(self, triples) -> None:
        self.triples.update(dict.fromkeys(triples))

    def fetch(self, nodes: list[str], where: str, purpose: str) -> list[Triple]:
        found: list[Triple] = []
        for start in range(0, len(nodes), CHUNK):
            values = " ".join(iri(n) for n in nodes[start:start + CHUNK])
            body = f"VALUES ?n {{ {values} }}\n{where}"
            for rows in self.kb.paged(body, "?s ?p ?o", "?s ?p ?o", purpose,
                                      limit=self.per_query):
                found.extend((r["s"].value, r["p"].value, r["o"]) for r in rows)
        self.add(found)
        return found

    def expand(self, nodes: list[str]) -> list[str]:
        """Fetch the facts of `nodes` (both ways); the named nodes they reach."""
        self.expanded.update(nodes)
        kind = self.e.type_predicate
        out = self.fetch(nodes, "?n ?p ?o . BIND(?n AS ?s)", "fetching a neighbourhood")
        into = self.fetch(nodes, f"?s ?p ?n . BIND(?n AS ?o) FILTER(?p != {iri(kind)})",
                          "fetching a neighbourhood")
        targets = [o.value for _, p, o in out if _node(o) and p not in (kind, RDF_TYPE)]
        sources = [s for s, _, _ in into]
        pointing = self.unnamed(sources)  # fact nodes whose value is one of `nodes`
        # Their owners hold the facts: fetch the links to them too.
        owners = [s for s, _, _ in self.fetch(pointing, "?s ?p ?n . BIND(?n AS ?o)",
                                              "fetching the facts' owners")]
        self.unnamed(owners)
        reached = self.follow([*self.unnamed(targets), *pointing])
        named = [n for n in [*targets, *sources, *owners] if self.named.get(n)]
        return list(dict.fromkeys([*named, *reached]))

    def follow(self, facts: list[str]) -> list[str]:
        """Fetch fact nodes down to their ends; the named nodes they reach."""
        reached: list[str] = []
        facts = sorted(set(facts) - self.expanded)
        while facts:
            found = self.fetch(facts, "?n ?p ?o . BIND(?n AS ?s)", "fetching facts")
            self.expanded.update(facts)
            targets = [o.value for _, p, o in found if _node(o) and p != RDF_TYPE]
            unnamed = set(self.unnamed(targets))
            reached += [t for t in targets if self.named.get(t)]
            facts = sorted(unnamed - self.expanded)
        return reached

    def unnamed(self, nodes: list[str]) -> list[str]:
        """The nodes among `nodes` that have no name (learning who has one)."""
        ask = sorted({n for n in nodes if n not in self.named})
        for start in range(0, len(ask), CHUNK):
            chunk = ask[start:start + CHUNK]
            values = " ".join(iri(n) for n in chunk)
            rows = self.kb.select(f"SELECT DISTINCT ?n WHERE {{ VALUES ?n {{ {values} }} "
                                  f"?n {iri(self.e.name_predicate)} ?name }} "
                                  f"LIMIT {len(chunk)}", "telling nodes from facts")
            names = {r["n"].value for r in rows}
            self.named.update({n: n in names for n in chunk})
        return [n for n in dict.fromkeys(nodes) if not self.named.get(n)]

    def describe(self, nodes: list[str]) -> None:
        """The names and concepts of the nodes past the last hop."""
        e = self.e
        predicates = {e.name_predicate, e.type_predicate, RDF_TYPE}
        where = " ".join(iri(p) for p in sorted(predicates))
        self.fetch(nodes, f"VALUES ?p {{ {where} }} ?n ?p ?o . BIND(?n AS ?s)",
                   "fetching the names at a fragment's edge")


def _node(term: Term) -> bool:
    return term.kind in ("iri", "bnode")


def load_triples(triples, source: str) -> KB:
    """The KB of fetched triples, read as a file of them would be."""
    import pyoxigraph

    parsed = [(s, p, _oxigraph(o, pyoxigraph)) for s, p, o in triples]
    builder = KBBuilder(source)
    if is_wikidata(parsed):
        return wikidata_to_kb(parsed, builder)
    return rdf_to_kb(parsed, builder)


def _oxigraph(term: Term, pyoxigraph):
    if term.kind == "iri":
        return pyoxigraph.NamedNode(term.value)
    if term.kind == "bnode":
        return pyoxigraph.BlankNode(term.value)
    if term.lang:
        return pyoxigraph.Literal(term.value, language=term.lang)
    if term.datatype:
        return pyoxigraph.Literal(term.value, datatype=pyoxigraph.NamedNode(term.datatype))
    return pyoxigraph.Literal(term.value)
