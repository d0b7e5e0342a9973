"""Any front end on a KB that lives in a SPARQL endpoint (`--kb http://...`).

A front end works on a KB in memory. On an endpoint (`EndpointKB`) each question is compiled
on a *fragment*: the question's spans are looked up in the endpoint's name table (streamed to
disk once), the bounded neighbourhood of the entities they name (and some members of the
concepts they name) is fetched into a small in-memory KB, and the unchanged front end writes
its program there (grown by entities on each side of a number the question states,
`koplc.sparql_backend.by_number`, and by those whose string value is a word it says,
`koplc.sparql_backend.by_string`). The program then runs on the endpoint itself (lowered to
SPARQL), so the answer is the whole KB's. What a front end builds once per KB (a demonstration pool explored
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

from koplc.kopl.answering.linking import code_holders
from koplc.kopl.answering.meant_values import values_named
from koplc.kopl.errors import BackendError, KoplcError
from koplc.kopl.frontend import Compiled, FrontEnd, Settings
from koplc.kopl.grounding.mentions import said_words, says
from koplc.kopl.kb.building import collector_paused
from koplc.kopl.lexicon import singular
from koplc.kopl.naming import name_head
from koplc.sparql_backend.by_number import chosen_by_number
from koplc.sparql_backend.by_string import chosen_by_string
from koplc.sparql_backend.endpoint_kb import EndpointKB
from koplc.sparql_backend.fragments import fragment_of
from koplc.sparql_backend.name_table import SEEDS, NameTable, name_table
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
        table = self.names(kb)
        coded = [i for name in code_holders(question, kb) for i, _ in table.lookup(name)]
        taken, others = table.taken_and_not(question)
        central = [*taken, *coded, *values_named(question, kb)]
        linked = [e.node(i) for i in dict.fromkeys([*[*taken, *others][:SEEDS], *central])]
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
        ids = [e.node_id(i) for i in linked]

        def grow(fragment) -> list[str]:
            return [*chosen_by_number(kb, fragment, question, ids, sampled, said,
                                      self.members // 2),
                    *chosen_by_string(kb, fragment, question, ids, sampled, said,
                                      self.members // 2)]

        # Beside entities it names, the members of a concept it says show their own facts
        # only (a hop of 20 random members took half a fragment's queries at 10^8 triples).
        seeds, near = (linked, members) if linked else (members, [])
        with collector_paused():  # its rows and KB: a few hundred thousand objects
            return fragment_of(kb, seeds, hops=self.hops, per_hop=self.per_hop, grow=grow,
                               near=near, centre=[e.node(i) for i in central])


def ranked_like(ranked: tuple[str, ...], items: list[str]) -> tuple[str, ...]:
    """The endpoint's answers, those the fragment's ranking holds first in its order, then
    the others sorted (as front ends sort a set's answers); all of them sorted where the
    fragment's ranking is itself sorted (a front end that sorts its answer set, whose fragment
    may hold only some of the answers: in memory the set is sorted whole).

    >>> ranked_like(("b", "a"), ["d", "a", "c", "b"]), ranked_like(("c",), ["d", "a", "c"])
    (('b', 'a', 'c', 'd'), ('a', 'c', 'd'))
    """
    if list(ranked) == sorted(ranked):
        return tuple(dict.fromkeys(sorted(items)))
    held = set(items)
    first = [a for a in ranked if a in held]
    return tuple(dict.fromkeys([*first, *sorted(items)]))


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
