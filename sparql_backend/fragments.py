"""A small in-memory KB cut from an endpoint: the bounded neighbourhood of some entities.

`fragment_of(kb, seeds)` fetches, hop by hop (at most `hops`, at most `per_hop` new entities a
hop, every listing paged and bounded), the triples of the seeds and of the entities they reach,
in the endpoint's own encoding, and loads them with the RDF loaders that read a whole file
(`koplc.kopl.kb.triples`, `koplc.kopl.kb.wikidata_rdf`). A node with a name is a KB node (an
entity or concept); a node without one is part of a fact (a statement node, a value node) and
is followed until it ends (a blank value node of the plain encoding, which no later query can
name, is read as its literal in the query that reaches it). Entities one hop past the last come
with their names and concepts only. The schema's concepts (with their names and parents) and the property descriptions are
in every fragment, so a front end sees the whole concept hierarchy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property

from koplc.kopl.kb.access import WholeSchema
from koplc.kopl.kb.model import KB, KBBuilder
from koplc.kopl.kb.triples import rdf_to_kb
from koplc.kopl.kb.wikidata_rdf import is_wikidata, wikidata_to_kb
from koplc.sparql_backend.encodings import RECORD, WIKIBASE
from koplc.sparql_backend.patterns import values
from koplc.sparql_backend.terms import RDF_TYPE, Term, iri, string

Triple = tuple[str, str, Term]
CHUNK = 400  # IRIs in one VALUES block
# The most nodes whose incoming facts are read again in halves when they reach a query's bound
# (splitting a hop's hundred nodes down to its hub would take a dozen queries more).
FEW = 8
# Links from a fact node to what is no part of the fact: its record, types and Wikidata rank.
_NOT_FACTS = (RDF_TYPE, RECORD, WIKIBASE + "rank")


def fragment_of(kb, seeds: list[str], *, hops: int = 2, per_hop: int = 100,
                per_query: int = 2000, grow: Callable[[KB], list[str]] | None = None,
                near: Sequence[str] = (), centre: Sequence[str] = ()) -> KB:
    """The KB of the neighbourhood of the entity IRIs `seeds` on the endpoint KB `kb`, and of
    the facts of the entities `near` (one hop: a concept's sampled members beside the entities
    a question names); with `grow`, the neighbourhood of the seeds it then reads from that KB
    joins it (what is fetched already is not fetched again). The seeds of `centre` (if any
    is a seed: those a linker would take the question to name) have their neighbourhoods
    kept first under each hop's bound (`_Cut.spread`), the other seeds' after."""
    cut = _Cut(kb, per_query)
    cut.add(schema_triples(kb))
    cut.reach(seeds, hops, per_hop, centre)
    cut.reach(list(near), 1, per_hop)
    fragment = cut.fragment()
    more = [s for s in dict.fromkeys(grow(fragment)) if s not in cut.expanded] if grow else []
    if not more:
        return fragment
    cut.reach(more, hops, per_hop)
    return cut.fragment()


def schema_triples(kb) -> list[Triple]:
    """The concepts' triples and the properties' descriptions, fetched once per endpoint."""
    held = getattr(kb, "_schema_triples", None)
    if held is not None:
        return held
    e = kb.encoding
    marker = f"?s {iri(e.marker_predicate or e.type_predicate)} {iri(e.concept_marker)} ."
    parts = [(f"{marker}\n?s ?p ?o", "fetching the concepts")]
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
        self.blank_values = not self.e.statements and self.e.value_nodes
        self.kind = iri(self.e.type_predicate)  # the predicate of a node's concepts
        # node -> the IRIs of its concepts, where they came with the facts reaching it
        self.kinds: dict[str, list[str]] = {}
        self.described: set[str] = set()  # nodes at an edge whose concepts were fetched
        self.mass: dict[str, float] = {}  # node -> its share of the seeds' (`spread`)

    def add(self, triples) -> None:
        self.triples.update(dict.fromkeys(triples))

    def reach(self, seeds: list[str], hops: int, per_hop: int,
              centre: Sequence[str] = ()) -> None:
        """Fetch the facts of `seeds` and of what they reach, hop by hop (at most `per_hop`
        new nodes a hop, those of most mass: each seed of `centre` has 1, the others none,
        unless no seed is of `centre`)."""
        frontier = [n for n in dict.fromkeys(seeds) if n not in self.expanded]
        central = set(centre) & set(frontier) or set(frontier)
        self.mass.update({n: float(n in central) for n in frontier})
        seen = set(frontier)
        for _ in range(hops):
            reached = self.expand(frontier[:per_hop])
            frontier = [n for n in reached if n not in seen and n not in self.expanded]
            seen.update(frontier)
            if not frontier:
                break

    def fragment(self) -> KB:
        """The KB of what is fetched so far (the nodes at its edge described first)."""
        edge = sorted(n for n, named in self.named.items() if named and n not in self.expanded
                      and n not in self.kinds and n not in self.described)
        self.describe(edge)
        self.described.update(edge)
        fragment = load_triples(self.triples, f"{self.kb.url} (fragment)")
        fragment.whole = WholeSchema(self.kb)  # read when a prompt first lists it
        fragment.expanded = frozenset(self.e.node_id(n) for n in self.expanded)
        return fragment

    def fetch(self, nodes: list[str], where: str, purpose: str,
              end: str | None = None) -> list[Triple]:
        """The triples `where` binds (?s ?p ?o) for the nodes `nodes` (?n), a chunk of them
        a query; with `end` ("s" or "o"), learns whether that end has a name, and its name."""
        return self.record(self.rows(nodes, where, purpose, end), end)

    def rows(self, nodes: list[str], where: str, purpose: str,
             end: str | None = None, split: bool = True) -> list[dict[str, Term]]:
        """The endpoint's rows for `fetch` (nothing recorded: two may run at once). A query
        bound by `per_query` rows reads the nodes of one chunk; with `split`, a chunk whose
        rows reach the bound is read again in halves, so that each node's triples are all
        there unless it alone passes the bound (without it, a hub's thousands of incoming
        facts come cut, as do the others' in its chunk)."""
        e = self.e
        name = e.name_predicate
        lang = (f" FILTER(LANG(?label) = \"\" || LANGMATCHES(LANG(?label), {string(e.name_lang)}))"
                if e.name_lang else "")
        label = f"\nOPTIONAL {{ ?{end} {iri(name)} ?label{lang} }}" if end else ""
        if end:  # its concepts too, so that no later query need describe it
            label += f"\nOPTIONAL {{ ?{end} {self.kind} ?kind }}"
        if end == "o" and self.blank_values:
            # A blank value node cannot be named in another query: read its literal here.
            label += f"\nOPTIONAL {{ ?o ({iri(e.value)}|{iri(e.time)}) ?literal }}"

        def read(chunk: list[str]) -> list[dict[str, Term]]:
            body = f"{values('?n', chunk)}\n{where}{label}"
            found = [row for rows in self.kb.paged(
                body, "?s ?p ?o ?label ?literal ?kind" if end else "?s ?p ?o", "?s ?p ?o",
                purpose, limit=self.per_query, optional=("label", "literal", "kind"))
                for row in rows]
            if split and len(found) >= self.per_query and len(chunk) > 1:
                half = len(chunk) // 2
                return self.two_at_once(read, [chunk[:half], chunk[half:]])
            return found

        return self.two_at_once(read, [nodes[start:start + CHUNK]
                                       for start in range(0, len(nodes), CHUNK)])

    def two_at_once(self, read: Callable[[list[str]], list[dict[str, Term]]],
                    chunks: list[list[str]]) -> list[dict[str, Term]]:
        """The rows `read` gives for each chunk, in their order: every other chunk is read on
        the KB's helper thread meanwhile (unless this is that thread), so that the endpoint
        answers one query while koplc waits on or parses another."""
        if len(chunks) < 2 or self.kb.on_helper():
            return [row for chunk in chunks for row in read(chunk)]
        there = {i: self.kb.helper.submit(read, chunks[i]) for i in range(1, len(chunks), 2)}
        here = {i: read(chunks[i]) for i in range(0, len(chunks), 2)}
        return [row for i in range(len(chunks))
                for row in (here[i] if i in here else there[i].result())]

    def record(self, rows: list[dict[str, Term]], end: str | None) -> list[Triple]:
        """Keep the triples of `rows` (and what they say of the nodes at `end`); them."""
        name, found = self.e.name_predicate, []
        for r in rows:
            if r["o"].kind == "bnode" and "literal" in r:
                found.append((r["s"].value, r["p"].value, r["literal"]))
                continue
            found.append((r["s"].value, r["p"].value, r["o"]))
            term = r[end] if end else None
            if term is not None and _node(term):
                named = "label" in r
                self.named[term.value] = self.named.get(term.value, False) or named
                if named:
                    found.append((term.value, name, r["label"]))
                if "kind" in r:
                    found.append((term.value, self.e.type_predicate, r["kind"]))
                    self.kinds.setdefault(term.value, []).append(r["kind"].value)
        self.add(found)
        return found

    def expand(self, nodes: list[str]) -> list[str]:
        """Fetch the facts of `nodes` (both ways); the named nodes they reach."""
        self.expanded.update(nodes)
        kind = self.e.type_predicate
        # Both ways at once: the endpoint answers one while koplc waits on the other.
        purpose = "fetching a neighbourhood"
        # Facts pointing at a hub come cut (`rows`); beside a few nodes (the question's own
        # entities), a hub leaves the others theirs.
        few = len(nodes) <= FEW
        ordered = self.hubs_last(nodes)
        other = self.kb.helper.submit(
            self.rows, ordered, f"?s ?p ?n . BIND(?n AS ?o) FILTER(?p != {iri(kind)})", purpose,
            "s", few)
        out = self.record(self.rows(nodes, "?n ?p ?o . BIND(?n AS ?s)", purpose, "o"), "o")
        into = self.record(other.result(), "s")
        targets = [o.value for _, p, o in out if _node(o) and p not in (kind, RDF_TYPE)]
        sources = [s for s, _, _ in into if s not in nodes]
        pointing = self.unnamed(sources)  # fact nodes whose value is one of `nodes`
        # Their owners hold the facts: fetch the links to them too, while the facts are read.
        linking = self.kb.helper.submit(self.rows, pointing, "?s ?p ?n . BIND(?n AS ?o)",
                                        "fetching the facts' owners", "s", few)
        reached = self.follow([*self.unnamed(targets), *pointing])
        owners = [s for s, _, _ in self.record(linking.result(), "s")]
        named = [n for n in [*targets, *sources, *owners] if self.named.get(n)]
        found = list(dict.fromkeys([*named, *reached]))
        links = [*((s, v.value) for s, _, v in out), *((v.value, s) for s, _, v in into)]
        self.spread(nodes, links, found)
        return sorted(found, key=lambda n: -self.mass.get(n, 0.0))

    def spread(self, nodes: list[str], links: list[tuple[str, str]], found: list[str]) -> None:
        """Each of `nodes` shares its mass evenly among the nodes of `found` it links to (as a
        walk from the central seeds, each of mass 1, would be spread; personalised PageRank
        picks a question's subgraph so in GRAFT-Net). The next hop's bound keeps the nodes of
        most mass: what two of the question's entities share (United's planes of one model), a
        director's three films beside his actors' dozens, a film's cast beside the thousands
        of a genre or a tag that a common word of the question names. A node reached only
        through a fact node (a qualifier's value) has none, and comes last."""
        held, mine = set(found), set(nodes)
        neighbours: dict[str, dict[str, None]] = {}
        for node, other in links:
            if node in mine and other in held:
                neighbours.setdefault(node, {})[other] = None
        for node, others in neighbours.items():
            share = self.mass.get(node, 0.0) / len(others)
            for other in others:
                if other not in self.expanded:
                    self.mass[other] = self.mass.get(other, 0.0) + share

    @cached_property
    def sizes(self) -> dict[str, int]:
        """Each concept's IRI -> its members."""
        counts = self.kb.schema().concepts
        return {c: counts.get(name, 0) for c, name in self.kb.concept_iris().items()}

    def hubs_last(self, nodes: list[str]) -> list[str]:
        """`nodes`, those of the smallest concepts last: a genre, a year, a language, of a few
        dozen members each, has thousands of facts pointing at it, which would fill a query's
        bound before the facts of a director that the same query asks for (an endpoint lists
        the facts of the nodes of a VALUES block in its order, as Oxigraph does)."""
        size = {n: max((self.sizes.get(c, 0) for c in self.kinds.get(n, ())),
                       default=float("inf")) for n in nodes}  # untyped: first, as before
        return sorted(nodes, key=lambda n: -size[n])

    def follow(self, facts: list[str]) -> list[str]:
        """Fetch fact nodes down to their ends; the named nodes they reach."""
        reached: list[str] = []
        facts = sorted(set(facts) - self.expanded)
        while facts:
            found = self.fetch(facts, "?n ?p ?o . BIND(?n AS ?s)", "fetching facts", "o")
            self.expanded.update(facts)
            targets = [o.value for _, p, o in found if _node(o) and p not in _NOT_FACTS]
            reached += [t for t in targets if self.named.get(t)]
            facts = sorted(set(self.unnamed(targets)) - self.expanded)
        return reached

    def unnamed(self, nodes: list[str]) -> list[str]:
        """The nodes among `nodes` (each met as a fetched end) that have no name."""
        return [n for n in dict.fromkeys(nodes) if not self.named.get(n)]

    def describe(self, nodes: list[str]) -> None:
        """The concepts of the nodes past the last hop (their names came with them)."""
        e = self.e
        kinds = values("?p", sorted({e.type_predicate, RDF_TYPE}))
        self.fetch(nodes, f"{kinds} ?n ?p ?o . BIND(?n AS ?s)",
                   "fetching the concepts at a fragment's edge")


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
