"""Any front end on a KB that lives in a SPARQL endpoint (`--kb http://...`).

A front end works on a KB in memory. On an endpoint (`EndpointKB`) each question is compiled
on a *fragment*: the question's spans are looked up in the endpoint's name table (streamed to
disk once), the bounded neighbourhood of the entities they name (and some members of the
concepts they name) is fetched into a small in-memory KB, and the unchanged front end writes
its program there. A question that states a number grows its fragment by the entities above,
at and below that number, of the concepts it names and the sets one relation from its
entities, so that a filter by the number keeps something there whenever it does on the KB. The program then runs on the endpoint itself (lowered to SPARQL), so the
answer is the whole KB's. What a front end builds once per KB (a demonstration pool explored
from the KB) is built once per endpoint, from a fragment around sampled entities, and kept in
the endpoint's cache folder.

An endpoint that fails (down, slow, refusing, answering nonsense) fails the question at
"execution", with the endpoint and the query's purpose in its error; the run goes on.
"""

from __future__ import annotations

import re
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from koplc.kopl.errors import BackendError, KoplcError
from koplc.kopl.execution.executor import ExecOptions, execute
from koplc.kopl.frontend import Compiled, FrontEnd, Settings
from koplc.kopl.grounding.mentions import said_words, says
from koplc.kopl.ir import FilterConcept, FilterNum, FilterYear, Find, FindAll, Node, Relate
from koplc.kopl.kb.model import KEY
from koplc.kopl.lexicon import singular
from koplc.kopl.naming import name_head, name_words
from koplc.kopl.quantities_in_text import QuantityInText, quantities_in
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
        def by_number(fragment) -> list[str]:
            """Entities on both sides of each number said, of each set the question may
            filter: a filter by a number ("more than 400 seats") keeps nothing of the first
            members or neighbours when few pass it, and then no front end writes it."""
            ids = [e.node_id(i) for i in linked]
            numbers = quantities_in(unnamed(question, fragment, ids))[:MAX_NUMBERS]
            if not numbers:
                return []
            sets = [(FilterConcept(input=FindAll(), concept=name), saying)
                    for name, saying in sampled]
            sets += [(hop, says(said, name_words(hop.relation)))
                     for hop in one_hop_sets(fragment, ids)]
            return members_by_number(kb, fragment, numeric_keys(fragment, sets, said), numbers,
                                     self.members // 2)

        return fragment_of(kb, [*linked, *members], hops=self.hops, per_hop=self.per_hop,
                           grow=by_number)


# Numbers of a question that choose members, and (set, key) pairs they are tried with.
MAX_NUMBERS, MAX_KEYS = 2, 12
# Seconds the query of one number may take.
GROWING = 5.0
# The executor's options a number is compared with: in any unit its dimension converts to.
CONVERTING = ExecOptions(unit_conversion=True)
_FILTERS = {QUANTITY: FilterNum, YEAR: FilterYear, DATE: FilterYear}


def unnamed(question: str, fragment, ids: list[str]) -> str:
    """The question with the names of the entities `ids` blanked: the number in a name
    ("Carbon-14") states no value.

    >>> from koplc.kopl.kb.model import KBBuilder
    >>> builder = KBBuilder()
    >>> builder.add_entity("Q1", "carbon-14", [])
    >>> unnamed("Carbon-14 decays in 5,730 years", builder.build(), ["Q1"])
    '          decays in 5,730 years'
    """
    for entity in ids:
        node = fragment.id_to_node.get(entity)
        if node is not None and fragment.names[node]:
            name = re.escape(fragment.names[node])
            question = re.sub(name, lambda m: " " * len(m.group()), question, flags=re.I)
    return question


def one_hop_sets(fragment, ids: list[str]) -> list[Relate]:
    """The sets one relation away from each entity of `ids` in `fragment`, as programs: those
    with an entity whose facts the fragment does not hold (past its bound of a hop)."""
    found = []
    expanded = fragment.expanded or frozenset()
    for entity in ids:
        node = fragment.id_to_node.get(entity)
        if node is None:
            continue
        find = Find(name=fragment.names[node])
        for direction, table in (("forward", fragment.out_objects),
                                 ("backward", fragment.in_objects)):
            found += [Relate(input=find, relation=relation, direction=direction)
                      for relation, objects in sorted(table.items())
                      if any(fragment.ids[m] not in expanded for m in objects.get(node, ()))]
    return found


def numeric_keys(fragment, sets: list[tuple[Node, bool]], said: str) -> list[tuple[Node, str]]:
    """(set, key) for the numeric keys that the entities of `sets` (a program giving them,
    whether the question says it) have in `fragment`: the first `MAX_KEYS`, those whose key
    and set the question says first."""
    pairs: dict[tuple[Node, str], tuple[bool, bool]] = {}
    for node, saying in sets:
        try:
            held = execute(node, fragment).entity_ids or ()
        except KoplcError:
            continue
        for entity in held:
            for fact in fragment.attributes[fragment.id_to_node[entity]]:
                if fragment.key_type.get(fact[KEY]) in _FILTERS:
                    pairs[(node, fact[KEY])] = (says(said, name_words(fact[KEY])), saying)
    return sorted(pairs, key=lambda pair: (not pairs[pair][0], not pairs[pair][1]))[:MAX_KEYS]


def members_by_number(kb: EndpointKB, fragment, keys: list[tuple[Node, str]],
                      numbers: tuple[QuantityInText, ...], each: int) -> list[str]:
    """Up to `each` entities of each set above, at and below each of `numbers` (with the unit
    said, and bare) by its key, for each (set, key) of `keys`: IRIs on the endpoint.

    A year or date key is compared by year (KoPL's comparators have no `>=`). Each side is
    the filter a front end would write, lowered with unit conversion, so it means what the
    executor means in any encoding; one query a number asks every side of every key (a
    union of bounded subqueries)."""
    found: list[str] = []
    for number in numbers:
        sides = []
        for node, key in keys:
            make = _FILTERS[fragment.key_type[key]]
            if make is FilterYear and (number.unit or not number.value.isdigit()):
                continue
            # with the unit said, and bare (a KB may store the key's values with no unit)
            values = dict.fromkeys([f"{number.value} {number.unit}".strip(), number.value]
                                   if make is FilterNum else [number.value])
            for value in values:
                for side in (Comparator.GT, Comparator.EQ, Comparator.LT):
                    program = make(input=node, key=key, value=value, comparator=side)
                    try:
                        lowered = kb.lowered(program, CONVERTING).query
                    except KoplcError:
                        continue  # a key the lowering refuses to compare this way
                    sides.append(lowered.removeprefix(PROLOGUE))
        if not sides:
            continue
        union = "\nUNION\n".join(f"{{ {side}\nLIMIT {each} }}" for side in sides)
        try:
            # A help, not a need: at most GROWING seconds, once, and the question goes on
            # without it (a rare value is sought through every member of a large concept).
            with kb.waiting(GROWING, retries=0):
                rows = kb.select(f"{PROLOGUE}SELECT ?entity WHERE {{\n{union}\n}}",
                                 f"choosing entities by {len(sides)} filters of {number.value}")
        except BackendError:
            continue
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
