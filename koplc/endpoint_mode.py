"""Any front end on a KB that lives in a SPARQL endpoint (`--kb http://...`).

A front end works on a KB in memory. On an endpoint (`EndpointKB`) each question is compiled
on a *fragment*: the question's spans are looked up in the endpoint's name table (streamed to
disk once), the bounded neighbourhood of the entities they name (and some members of the
concepts they name) is fetched into a small in-memory KB, and the unchanged front end writes
its program there. The program then runs on the endpoint itself (lowered to SPARQL), so the
answer is the whole KB's. What a front end builds once per KB (a demonstration pool explored
from the KB) is built once per endpoint, from a fragment around sampled entities, and kept in
the endpoint's cache folder.

An endpoint that fails (down, slow, refusing, answering nonsense) fails the question at
"execution", with the endpoint and the query's purpose in its error; the run goes on.
"""

from __future__ import annotations

import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from koplc.kopl.errors import BackendError, KoplcError
from koplc.kopl.frontend import Compiled, FrontEnd, Settings
from koplc.kopl.grounding.mentions import said_words, says
from koplc.kopl.ir import FilterConcept, FilterNum, FilterYear, FindAll
from koplc.kopl.kb.model import KEY
from koplc.kopl.lexicon import singular
from koplc.kopl.naming import name_head, name_words
from koplc.kopl.quantities_in_text import numbers_in
from koplc.kopl.types import Comparator
from koplc.kopl.values import DATE, QUANTITY, YEAR
from koplc.sparql_backend.endpoint_kb import EndpointKB
from koplc.sparql_backend.fragments import fragment_of
from koplc.sparql_backend.lower import PROLOGUE
from koplc.sparql_backend.name_table import NameTable
from koplc.sparql_backend.terms import iri

# Front ends whose per-KB state needs the KB's explored pool (byokg only with its rerank).
POOLED = ("llm", "agent")


def is_endpoint(kb_path) -> bool:
    """Whether `--kb` names a SPARQL endpoint rather than a file."""
    return isinstance(kb_path, str) and kb_path.startswith(("http://", "https://"))


class OnEndpoint:
    """`inner` answering on an EndpointKB through fragments; any other KB goes straight to
    it. `hops` and `per_hop` bound a fragment; `members`: how many members of each concept
    the question names join its seeds. A front end whose answers mean other executor options
    than the engine's (its `execution`: byokg converts units) has its program run with them."""

    def __init__(self, inner: FrontEnd, *, hops: int = 3, per_hop: int = 100,
                 members: int = 20, progress: bool = False):
        self.inner, self.name, self.ranking = inner, inner.name, inner.ranking
        self.hops, self.per_hop, self.members = hops, per_hop, members
        self.progress = progress
        self._names: dict[str, NameTable] = {}

    def compile(self, question: str, kb) -> Compiled:
        if not isinstance(kb, EndpointKB):
            return self.inner.compile(question, kb)
        seconds: dict[str, float] = {}
        clock = time.perf_counter()
        try:
            fragment = self.fragment(question, kb)
        except BackendError as err:
            return Compiled(question.strip(), self.name, failure="execution",
                            error=err.render(), seconds={"fragment": time.perf_counter() - clock})
        seconds["fragment"] = time.perf_counter() - clock
        compiled = self.inner.compile(question, fragment)
        seconds.update(compiled.seconds)
        if compiled.final is None or not compiled.answers:
            return replace(compiled, seconds=seconds)
        clock = time.perf_counter()
        try:
            # in the endpoint's encoding, with the options the front end answered with
            lowered = kb.lowered(compiled.final, getattr(self.inner, "execution", None))
            sparql, items = lowered.text(), kb.answers(lowered)
        except KoplcError as err:
            return replace(compiled, answers=(), failure="execution", error=err.render(),
                           seconds={**seconds, "endpoint": time.perf_counter() - clock})
        seconds["endpoint"] = time.perf_counter() - clock
        if not items:
            return replace(compiled, answers=(), failure="empty", seconds=seconds)
        return replace(compiled, answers=ranked_like(compiled.answers, items), seconds=seconds,
                       sparql=sparql, provenance=replace(compiled.provenance, notes={
                           **compiled.provenance.notes, "fragment": fragment.stats()}))

    def names(self, kb: EndpointKB) -> NameTable:
        """The endpoint's name table, built on first use (streamed to disk)."""
        if kb.url not in self._names:
            self._names[kb.url] = name_table(kb, self.progress)
        return self._names[kb.url]

    def fragment(self, question: str, kb: EndpointKB):
        """The in-memory KB `question` is compiled on."""
        e = kb.encoding
        linked = [e.node(i) for i in self.names(kb).seeds(question)]
        said = said_words(question) + said_words(" ".join(map(singular, question.split())))
        anything, members = not linked, []
        sampled: list[tuple[str, bool]] = []  # concepts whose members joined, and if said
        for concept, name in kb.concept_iris().items():
            # A question that names no entity may ask about any: it sees every concept's.
            saying = says(said, name_head(name))
            if anything or saying:
                # The first members the endpoint lists, unsorted: sorting a concept of
                # millions took Virtuoso 4 to 5 s at 10^8 triples, most of a question's time.
                rows = kb.select(f"SELECT ?x WHERE {{ ?x {iri(e.type_predicate)} {iri(concept)} "
                                 f"}} LIMIT {self.members}",
                                 f"sampling the members of concept {name!r}")
                members += [r["x"].value for r in rows]
                sampled.append((name, saying))
        seeds = [*linked, *members]
        fragment = fragment_of(kb, seeds, hops=self.hops, per_hop=self.per_hop)
        numbers = numbers_in(question)[:MAX_NUMBERS]
        if not (sampled and numbers):
            return fragment
        # A filter by a number said ("more than 400 seats") finds nothing among the first
        # members when few pass it: members on both sides of each number join the seeds.
        more = members_by_number(kb, fragment, numeric_keys(fragment, sampled, said), numbers,
                                 self.members // 2)
        more = [m for m in dict.fromkeys(more) if m not in seeds]
        if not more:
            return fragment
        # before the first members: a hop's bound keeps the first seeds
        return fragment_of(kb, [*linked, *more, *members], hops=self.hops, per_hop=self.per_hop)


# Numbers of a question that choose members, and (concept, key) pairs they are tried with.
MAX_NUMBERS, MAX_KEYS = 2, 12
_FILTERS = {QUANTITY: FilterNum, YEAR: FilterYear, DATE: FilterYear}


def numeric_keys(fragment, concepts: list[tuple[str, bool]], said: str
                 ) -> list[tuple[str, str]]:
    """(concept, key) for the numeric keys that the members of `concepts` (name, whether the
    question says it) have in `fragment` (a concept's members share their keys): the first
    `MAX_KEYS`, those whose key and concept the question says first."""
    pairs: dict[tuple[str, str], tuple[bool, bool]] = {}
    for name, saying in concepts:
        for node in fragment.name_to_nodes.get(name, ()):
            for member in sorted(fragment.concept_members.get(node, ())):
                for fact in fragment.attributes[member]:
                    if fragment.key_type.get(fact[KEY]) in _FILTERS:
                        pairs[(name, fact[KEY])] = (says(said, name_words(fact[KEY])), saying)
    return sorted(pairs, key=lambda pair: (not pairs[pair][0], not pairs[pair][1]))[:MAX_KEYS]


def members_by_number(kb: EndpointKB, fragment, keys: list[tuple[str, str]],
                      numbers: tuple[str, ...], each: int) -> list[str]:
    """Up to `each` members of each concept above, at and below each of `numbers` by its
    key, for each (concept, key) of `keys`: IRIs on the endpoint.

    A year or date key is compared by year (KoPL's comparators have no `>=`). Each side is
    the filter a front end would write, lowered, so it means what the executor means in any
    encoding; one query a number asks every side of every key (a union of bounded subqueries)."""
    found: list[str] = []
    for number in numbers:
        sides = []
        for concept, key in keys:
            make = _FILTERS[fragment.key_type[key]]
            if make is FilterYear and not number.isdigit():
                continue
            for side in (Comparator.GT, Comparator.EQ, Comparator.LT):
                program = make(input=FilterConcept(input=FindAll(), concept=concept), key=key,
                               value=number, comparator=side)
                try:
                    lowered = kb.lowered(program).query
                except KoplcError:
                    continue  # a key the lowering refuses to compare this way
                sides.append(lowered.removeprefix(PROLOGUE))
        if sides:
            union = "\nUNION\n".join(f"{{ {side}\nLIMIT {each} }}" for side in sides)
            rows = kb.select(f"{PROLOGUE}SELECT ?entity WHERE {{\n{union}\n}}",
                             f"choosing members by {len(sides)} filters of the number {number}")
            found += [r["entity"].value for r in rows if "entity" in r]
    return found


def ranked_like(ranked: tuple[str, ...], items: list[str]) -> tuple[str, ...]:
    """The endpoint's answers, those the fragment's ranking holds first in its order.

    >>> ranked_like(("b", "a"), ["a", "c", "b"])
    ('b', 'a', 'c')
    """
    held = set(items)
    first = [a for a in ranked if a in held]
    return tuple(dict.fromkeys([*first, *items]))


def name_table(kb: EndpointKB, progress: bool = False) -> NameTable:
    """The endpoint's name table in its cache folder, streamed from the endpoint the first
    time (what `koplc index URL` builds ahead)."""
    folder = kb.folder or Path(tempfile.mkdtemp(prefix="koplc-endpoint-"))
    return NameTable.open(kb, folder / "names.sqlite", progress)


# The programs of an endpoint's explored pool (on a fragment around `seeds` sampled entities).
POOL_PROGRAMS = 300


def explored_pool_file(kb: EndpointKB, *, seeds: int = 40, programs: int = POOL_PROGRAMS,
                       progress: bool = False) -> Path:
    """A pool explored on a fragment around `seeds` sampled entities, kept in the endpoint's
    cache folder: what the llm and agent front ends take for the KB's own pool."""
    from tqdm import tqdm

    from koplc.kopl.exploration import ExploreOptions, explore_to_file

    folder = kb.folder or Path(tempfile.mkdtemp(prefix="koplc-endpoint-"))
    path = folder / f"pool-{seeds}-{programs}.jsonl"
    if path.exists():
        return path
    fragment = fragment_of(kb, [kb.encoding.node(i) for i in kb.sample(seeds)], hops=2)
    folder.mkdir(parents=True, exist_ok=True)
    with tqdm(total=programs, desc=f"explore {kb.url}", unit="program", file=sys.stderr,
              disable=not progress or None, mininterval=0.5) as bar:
        explore_to_file(fragment, path, ExploreOptions(programs=programs),
                        progress=lambda kept: bar.update(1))
    return path


def open_on_endpoint(name: str, settings: Settings, kb: EndpointKB, open_frontend,
                     progress: bool = False) -> OnEndpoint:
    """The front end `name` for the endpoint KB `kb`: its pool explored from the endpoint
    when it needs one and `settings` names none."""
    if settings.pool is None and (name in POOLED or (name == "byokg" and settings.rerank)):
        settings = replace(settings, pool=str(explored_pool_file(kb, progress=progress)))
    return OnEndpoint(open_frontend(name, settings), progress=progress)
