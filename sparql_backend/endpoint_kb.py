"""A KB that lives in a SPARQL 1.1 endpoint, behind the access protocol (koplc.kopl.kb.access).

`EndpointKB(url, encoding)` asks the endpoint (`Endpoint`: timeouts, bounded retries with
backoff) in the RDF encoding it holds. Every query is read-only (a SELECT or ASK sent as the
protocol's ``query=`` operation; anything else is refused before it leaves), bounded (a LIMIT;
listings go in pages) and cached in the user cache per endpoint, encoding and the endpoint's
version (its triple count, or the version the caller names), so that a second run asks
nothing already answered. Every failure is a BackendError naming the endpoint and what the
query was for.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import re
import sqlite3
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from functools import cached_property
from pathlib import Path

from koplc.kopl.errors import BackendError, KoplcError
from koplc.kopl.kb.access import Pattern, Schema
from koplc.kopl.user_cache import cache_root, writable
from koplc.sparql_backend.encodings import Encoding, encoding_named
from koplc.sparql_backend.endpoint import Endpoint
from koplc.sparql_backend.terms import RDF_TYPE, Term, iri, string

_PROLOGUE = re.compile(r"\A(?:\s+|#[^\n]*\n|(?:PREFIX|BASE)\s+[^<]*<[^>]*>)*", re.IGNORECASE)
_READ_FORMS = ("SELECT", "ASK")
log = logging.getLogger(__name__)
HELPER = "koplc-endpoint"  # the name of a KB's helper thread


def require_read_only(query: str) -> None:
    """Refuse any text that is not a SELECT or ASK query (an update above all).

    >>> require_read_only("PREFIX x: <urn:x> SELECT * WHERE { ?s ?p ?o } LIMIT 1")
    >>> try:
    ...     require_read_only("INSERT DATA { <urn:a> <urn:b> <urn:c> }")
    ... except BackendError as err:
    ...     print(err.diagnostics[0].message)
    koplc sends only SELECT and ASK queries, not 'INSERT DATA { <urn:a> <urn:b> <urn:c> }'
    """
    rest = query[_PROLOGUE.match(query).end():]  # type: ignore[union-attr]
    if not rest.upper().startswith(_READ_FORMS):
        raise BackendError(f"koplc sends only SELECT and ASK queries, not {rest[:60]!r}",
                           code="endpoint-read-only")


class QueryCache:
    """Query text -> result rows, in one sqlite file; a file that cannot be written keeps
    nothing. Threads may share it (a fragment asks two queries at once)."""

    def __init__(self, path: Path | None):
        self.db = None
        self.lock = threading.Lock()
        if path is not None and writable(path.parent):
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(str(path), check_same_thread=False)
            # A write-ahead log synced at checkpoints, not at each answer kept: a commit
            # that waits for the disk took 20 ms, a fragment's dozen of them a quarter second.
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("CREATE TABLE IF NOT EXISTS answers (query TEXT PRIMARY KEY, "
                            "rows TEXT NOT NULL)")

    def get(self, query: str):
        if self.db is None:
            return None
        with self.lock:
            row = self.db.execute("SELECT rows FROM answers WHERE query = ?",
                                  (query,)).fetchone()
        return None if row is None else json.loads(row[0])

    def put(self, query: str, rows) -> None:
        if self.db is not None:
            with self.lock:
                self.db.execute("INSERT OR REPLACE INTO answers VALUES (?, ?)",
                                (query, json.dumps(rows)))
                self.db.commit()


def endpoint_folder(url: str, encoding: str, version: str) -> Path:
    """The cache folder of one endpoint's content in one encoding."""
    digest = hashlib.blake2b(f"{url}\n{encoding}\n{version}".encode(), digest_size=8).hexdigest()
    host = re.sub(r"[^A-Za-z0-9.-]+", "-", url.split("//", 1)[-1])[:60]
    return cache_root() / "endpoints" / f"{host}.{digest}"


class EndpointKB:
    """A KB in a SPARQL endpoint at `url`, written in `encoding`."""

    def __init__(self, url: str, encoding: str | Encoding = "wikidata", *,
                 timeout: float = 30.0, retries: int = 2, backoff: float = 0.25,
                 page: int = 5000, max_rows: int = 100_000, cache: bool = True,
                 version: str | None = None, endpoint=None, schema_timeout: float = 900.0):
        self.endpoint = endpoint or Endpoint(url, timeout=timeout, retries=retries,
                                             backoff=backoff)
        self.url, self.encoding = url, encoding_named(encoding)
        self.name = self.endpoint.name
        self.page, self.max_rows = page, max_rows
        self.schema_timeout = schema_timeout
        self.source = url  # what a KB's `source` says: where it came from
        self._cache = QueryCache(None)
        self._version = version
        self.folder: Path | None = None
        self._read: dict[tuple, object] = {}  # what `_read_once` read
        if cache:
            self.folder = endpoint_folder(url, self.encoding.name, self.version())
            self._cache = QueryCache(self.folder / "queries.sqlite")

    def __repr__(self) -> str:
        return f"EndpointKB({self.url!r}, {self.encoding.name!r})"

    @cached_property
    def helper(self) -> ThreadPoolExecutor:
        """One thread that asks a second query while the caller asks another (a fragment's
        two directions); it lives as long as the KB, and so does its kept-alive connection."""
        return ThreadPoolExecutor(1, thread_name_prefix=HELPER)

    @staticmethod
    def on_helper() -> bool:
        """Whether this runs on a KB's helper thread (which must not wait on itself)."""
        return threading.current_thread().name.startswith(HELPER)

    # The queries.

    def version(self) -> str:
        """What identifies the endpoint's content: the caller's, else its triple count."""
        if self._version is None:
            rows = self.select("SELECT (COUNT(*) AS ?count) WHERE { ?s ?p ?o }",
                               "counting its triples (its cache version)", cached=False)
            self.require(rows, ["count"], "counting its triples (its cache version)")
            self._version = rows[0]["count"].value if rows else "0"
        return self._version

    def select(self, query: str, purpose: str, cached: bool = True) -> list[dict[str, Term]]:
        """The rows of a SELECT query; errors say `purpose`."""
        require_read_only(query)
        held = self._cache.get(query) if cached else None
        if held is not None:
            return [{k: Term(*v) for k, v in row.items()} for row in held]
        clock = time.perf_counter()
        try:
            rows = self.endpoint.select(query)
        except KoplcError as err:
            raise _for(err, purpose) from None
        log.debug("%.3f s, %d rows: %s", time.perf_counter() - clock, len(rows), purpose)
        if cached:
            self._cache.put(query, [{k: list(v) for k, v in row.items()} for row in rows])
        return rows

    def ask(self, query: str, purpose: str) -> bool:
        require_read_only(query)
        try:
            return self.endpoint.ask(query)
        except KoplcError as err:
            raise _for(err, purpose) from None

    def paged(self, body: str, variables: str, order: str, purpose: str,
              limit: int | None = None, optional: tuple[str, ...] = (),
              keyset: bool = False, cached: bool = True) -> Iterator[list[dict[str, Term]]]:
        """The rows of ``SELECT variables WHERE { body }`` a page at a time, in `order`, at
        most `limit` (else `max_rows`) rows in all.

        Most listings fit one page: the first query asks for one page in no order (sorting
        costs the endpoint more than the query); only when it comes back full and more are
        wanted do the pages come in `order`. With `keyset` (for listings whose `order`
        variables are bound in every row, make rows unique and are IRIs or literals), each page
        asks for the rows after the last one seen instead of skipping an OFFSET: an endpoint
        sorts only the rows left and keeps the top page's worth (well within Virtuoso's default
        cap on sorted rows), where OFFSET paging sorts the rows skipped again for every page.
        Else pages go by LIMIT/OFFSET. Without `cached`, no page is kept in the query cache
        (a listing the caller keeps itself, as the name table does)."""
        limit = self.max_rows if limit is None else limit
        needed = [v for v in _projected(variables) if v not in optional]
        query = f"SELECT {variables} WHERE {{\n{body}\n}}"
        size = min(self.page, limit)
        rows = self.select(f"{query} LIMIT {size}", purpose, cached)
        self.require(rows, needed, purpose)
        if len(rows) < size or size == limit:
            if rows:
                yield rows
            return
        keys = _projected(order)
        sort = " ".join(f"STR(?{k})" for k in keys)
        seen, after = 0, None
        while seen < limit:
            size = min(self.page, limit - seen)
            if keyset:
                where = body if after is None else f"{body}\n{_after(keys, after)}"
                text = f"SELECT {variables} WHERE {{\n{where}\n}} ORDER BY {sort} LIMIT {size}"
            else:
                text = f"{query} ORDER BY {order} LIMIT {size} OFFSET {seen}"
            rows = self.select(text, purpose, cached)
            self.require(rows, needed, purpose)
            if rows:
                yield rows
                after = [rows[-1][k].value for k in keys]
            if len(rows) < size:
                return
            seen += size

    def require(self, rows: list[dict[str, Term]], names: list[str], purpose: str) -> None:
        """BackendError unless every row binds `names` (an endpoint's answer to another
        question)."""
        for row in rows:
            missing = [n for n in names if n not in row]
            if missing:
                raise BackendError(f"{self.name}: the results do not bind ?{missing[0]} "
                                   f"(while {purpose})", code="endpoint-bad-response")

    # The access protocol.

    def entity_pattern(self, var: str) -> str:
        """A pattern binding `var` to the entities (named nodes that are no concept)."""
        e = self.encoding
        typed = f"{var} {iri(RDF_TYPE)} {iri(e.node_class)} .\n" if e.node_class else ""
        marker = iri(e.marker_predicate or e.type_predicate)
        return (f"{typed}{var} {iri(e.name_predicate)} ?name .\n"
                f"FILTER NOT EXISTS {{ {var} {marker} {iri(e.concept_marker)} }}")

    def names(self, page: int | None = None) -> Iterator[list[tuple[str, str]]]:
        if page is not None:
            self.page = page
        e = self.encoding
        for rows in self.paged(self.entity_pattern("?x"), "?x ?name", "?x ?name",
                               "listing the entities' names", limit=10 ** 12, keyset=True,
                               cached=False):  # the name table is their cache
            yield [(e.node_id(r["x"].value), r["name"].value) for r in rows]

    def concept_iris(self) -> dict[str, str]:
        """Each concept's IRI -> name (read once)."""
        return self._read_once(("concepts",), _concept_iris)

    def schema(self) -> Schema:
        """The schema with counts. Its grouped counts scan the whole KB (at 10^8 triples longer
        than a question's queries may take), once an endpoint and version: they are cached,
        and each may take `schema_timeout` seconds."""
        from koplc.sparql_backend.endpoint_schema import read_schema

        return self._read_once(("schema",), read_schema)

    def values(self, most: int) -> list[tuple[str, str, str]]:
        """(id, name, relation) of the entities that facts of one relation point at from two
        or more subjects, for the relations pointing at no more than `most` entities
        (`endpoint_schema.relation_values`)."""
        from koplc.sparql_backend.endpoint_schema import relation_values

        return self._read_once(("values", most), lambda kb: relation_values(kb, most))

    def codes(self, least: int) -> dict[str, str]:
        """Each code (an element's symbol) -> the name of the one entity holding it
        (`endpoint_schema.codes`)."""
        from koplc.sparql_backend.endpoint_schema import codes

        return self._read_once(("codes", least), lambda kb: codes(kb, least))

    def reaches_one(self, relation: str, direction: str, least: int) -> bool:
        """Whether `relation`, followed in `direction`, reaches one thing from each of the
        `least` or more entities that have it (`endpoint_schema.reaches_one`)."""
        from koplc.sparql_backend.endpoint_schema import reaches_one

        return self._read_once(("reaches one", relation, direction, least),
                               lambda kb: reaches_one(kb, relation, direction, least))

    def _read_once(self, key: tuple, read):
        """`read(self)`, once: a reading of the whole KB, each of whose queries may take
        `schema_timeout` seconds."""
        if key not in self._read:
            timeout = getattr(self.endpoint, "timeout", None) or 0
            with self.waiting(max(timeout, self.schema_timeout)):
                self._read[key] = read(self)
        return self._read[key]

    @contextmanager
    def waiting(self, seconds: float, retries: int | None = None) -> Iterator[None]:
        """Within the block each query may take `seconds` (and is tried again `retries`
        times, when given); an endpoint client of its own (no `timeout`) keeps its own."""
        endpoint = self.endpoint
        if getattr(endpoint, "timeout", None) is None:
            yield
            return
        held = endpoint.timeout, getattr(endpoint, "retries", None)
        endpoint.timeout = seconds
        if retries is not None and held[1] is not None:
            endpoint.retries = retries
        try:
            yield
        finally:
            endpoint.timeout = held[0]
            if held[1] is not None:
                endpoint.retries = held[1]

    def patterns(self, ids: list[str], samples: int = 3) -> list[Pattern]:
        from koplc.kopl.answering.memory_access import MemoryAccess
        from koplc.sparql_backend.fragments import fragment_of

        kb = fragment_of(self, [self.encoding.node(i) for i in ids], hops=1)
        return MemoryAccess(kb).patterns(ids, samples)

    def sample(self, n: int, seed: int = 0) -> list[str]:
        """`n` entities drawn at random from one page (`page`, at least `n`) of the entities,
        as the endpoint lists them first: one query, with no sort (sorting the entities of a
        10^8-triple KB takes Virtuoso minutes a page)."""
        ids = [x for rows in self.paged(self.entity_pattern("?x"), "DISTINCT ?x", "?x",
                                        "sampling entities", limit=max(n, self.page))
               for x in (self.encoding.node_id(r["x"].value) for r in rows)]
        return random.Random(seed).sample(sorted(ids), min(n, len(ids)))

    @cached_property
    def units(self) -> tuple[str, ...]:
        """Every unit the KB's quantities use: one listing, asked when a program first needs it
        (lowering with unit conversion)."""
        from koplc.sparql_backend.results import units_in

        return units_in(_Purposed(self, "listing the units"), self.encoding)

    def lowered(self, program, options=None):
        """`program` as SPARQL in the endpoint's encoding, meaning what the executor means
        with `options` (unit conversion converts between the KB's own units)."""
        from koplc.kopl.execution.executor import DEFAULT
        from koplc.sparql_backend.lower import lower

        options = options or DEFAULT
        if options.unit_conversion and not compares_quantities(program):
            options = replace(options, unit_conversion=False)  # the same meaning, no listing
        return lower(program, self.encoding, options,
                     self.units if options.unit_conversion else None)

    def run(self, program, options=None) -> list[str]:
        return self.answers(self.lowered(program, options))

    def bounded_answer(self, program, options=None, most: int = 10_000):
        """The Answer of `program` on the whole endpoint, or None when it holds more than
        `most` items (the query asks for one more and no further)."""
        from koplc.sparql_backend.results import run_lowered

        lowered = self.lowered(program, options)
        limited = replace(lowered, query=f"{lowered.query}\nLIMIT {most + 1}")
        answer = run_lowered(limited, _Purposed(self, "running the program"))
        return None if len(answer.items()) > most else answer

    def names_of(self, ids: list[str], chunk: int = 500) -> dict[str, str]:
        """id -> name of the entities `ids` (a query a chunk of them)."""
        e, found = self.encoding, {}
        for start in range(0, len(ids), chunk):
            values = " ".join(iri(e.node(i)) for i in ids[start:start + chunk])
            rows = self.select(f"SELECT ?x ?name WHERE {{ VALUES ?x {{ {values} }}\n"
                               f"?x {iri(e.name_predicate)} ?name }}", "naming entities")
            self.require(rows, ["x", "name"], "naming entities")
            found.update({e.node_id(r["x"].value): r["name"].value for r in rows})
        return found

    def answers(self, lowered) -> list[str]:
        """The answers of a program `lowered` for this endpoint, as strings."""
        from koplc.sparql_backend.results import run_lowered

        answer = run_lowered(lowered, _Purposed(self, "running the program"))
        return [str(item) for item in answer.items()]


def _concept_iris(kb: EndpointKB) -> dict[str, str]:
    e = kb.encoding
    body = (f"?c {iri(e.marker_predicate or e.type_predicate)} {iri(e.concept_marker)} .\n"
            f"OPTIONAL {{ ?c {iri(e.name_predicate)} ?name }}")
    found: dict[str, str] = {}
    for rows in kb.paged(body, "?c ?name", "?c ?name", "listing the concepts",
                         optional=("name",)):
        for r in rows:
            found.setdefault(r["c"].value, r["name"].value if "name" in r
                             else e.node_id(r["c"].value))
    return found


def compares_quantities(program) -> bool:
    """Whether `program` may compare quantities (a pick or superlative ranks them; a literal
    may be one), which is where unit conversion changes its meaning."""
    from koplc.kopl.registry import OPS

    return any(OPS[node.op].family in ("select", "superlative")
               or node.value_kind() in ("quantity", "keyed") for _, node in program.walk())


def _projected(variables: str) -> list[str]:
    """The names a SELECT clause binds in every row (optional ones left out).

    >>> _projected("DISTINCT ?x ?name (COUNT(?y) AS ?n)")
    ['x', 'name', 'n']
    """
    bare = re.sub(r"\((?:[^()]|\([^()]*\))*\)", "", variables)
    return [*re.findall(r"\?(\w+)", bare), *re.findall(r"AS \?(\w+)\)", variables)]


def _after(keys: list[str], last: list[str]) -> str:
    """A FILTER keeping the rows whose `keys`' strings sort after `last` (one value a key).

    >>> _after(["x", "name"], ["urn:a", "A"])
    'FILTER(STR(?x) > "urn:a" || (STR(?x) = "urn:a" && STR(?name) > "A"))'
    """
    terms = []
    for i, key in enumerate(keys):
        equal = [f"STR(?{k}) = {string(v)}" for k, v in zip(keys[:i], last[:i], strict=True)]
        terms.append(" && ".join([*equal, f"STR(?{key}) > {string(last[i])}"]))
    return "FILTER(" + " || ".join(t if i == 0 else f"({t})" for i, t in enumerate(terms)) + ")"


def _for(err: KoplcError, purpose: str) -> BackendError:
    """`err` saying what the query was for."""
    first = err.diagnostics[0]
    return BackendError(f"{first.message} (while {purpose})", code=first.code)


class _Purposed:
    """The endpoint as a store for `run_lowered`, its errors saying `purpose`."""

    def __init__(self, kb: EndpointKB, purpose: str):
        self.kb, self.purpose, self.name = kb, purpose, kb.name

    def select(self, query: str) -> list[dict[str, Term]]:
        return self.kb.select(query, self.purpose)

    def ask(self, query: str) -> bool:
        return self.kb.ask(query, self.purpose)
