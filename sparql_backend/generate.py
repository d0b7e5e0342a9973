"""Generate a Wikidata-shaped KB of about N triples, streamed to N-Triples (gzip allowed).

The shape comes from a profile of a real KB (`koplc.sparql_backend.kb_profiles`: MetaQA or the
KoPL example): its concepts, relations with their subjects' degree distribution and their
objects' skew, attributes with types, units and ranges, qualifiers on a share of statements,
and the share of entities that share a name. Entity counts are the profile's, scaled so that
the file has about N triples; triples are written in koplc's `wikidata` encoding
(`koplc.sparql_backend.wikidata_export`), with a ``skos:altLabel`` alias where a name has one.

Nothing grows with N but the counter: an entity's name and facts are pure functions of the seed
and its number (`Layout.name`, `Layout.facts`), so the writer streams entity by entity and the
question maker (`koplc.sparql_backend.generated_questions`) recomputes what it needs.
"""

from __future__ import annotations

import bisect
import gzip
import io
import math
import random
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from pathlib import Path

from koplc.kopl.atomic import atomic_file
from koplc.kopl.values import DATE, QUANTITY, STRING, YEAR, Value
from koplc.sparql_backend.encodings import (
    ATTRIBUTE,
    ENTITY,
    FORWARD,
    KEY_TYPE,
    PROP,
    WIKIDATA,
)
from koplc.sparql_backend.generated_names import alias_of, name_of
from koplc.sparql_backend.kb_profiles import PROFILES
from koplc.sparql_backend.terms import iri, nt_string
from koplc.sparql_backend.wikidata_export import (
    StatementWriter,
    property_entity,
    property_lines,
)

UNTYPED = "(no concept)"
ALT_LABEL = "<http://www.w3.org/2004/02/skos/core#altLabel>"
_MASK = (1 << 64) - 1
_SAMPLE = 400  # entities per concept whose lines estimate the triples an entity costs


def mix(*numbers: int) -> int:
    """A 64-bit hash of integers (splitmix64 steps), the same on every run and machine."""
    x = 0x9E3779B97F4A7C15
    for n in numbers:
        x = (x ^ (n & _MASK)) * 0xBF58476D1CE4E5B9 & _MASK
        x = (x ^ (x >> 31)) * 0x94D049BB133111EB & _MASK
        x ^= x >> 29
    return x


@dataclass(frozen=True)
class Fact:
    """A relation fact (`value` the object's entity number) or an attribute (`value` a Value),
    with its qualifiers (key -> values)."""

    key: str
    value: int | Value
    qualifiers: dict[str, tuple[Value, ...]] = field(default_factory=dict)


@dataclass
class Layout:
    """Where each concept's entities are numbered, and the rules that make their facts."""

    profile: dict
    seed: int
    counts: dict[str, int]  # entities per concept, in numbering order

    @cached_property
    def starts(self) -> dict[str, int]:
        starts, at = {}, 0
        for concept, count in self.counts.items():
            starts[concept], at = at, at + count
        return starts

    @property
    def entities(self) -> int:
        return sum(self.counts.values())

    @cached_property
    def concept_of_number(self) -> list[tuple[int, str]]:
        return sorted((start, c) for c, start in self.starts.items() if self.counts[c])

    def concept_of(self, g: int) -> str:
        starts = self.concept_of_number
        return starts[bisect.bisect_right(starts, (g, "\U0010ffff")) - 1][1]

    @cached_property
    def _name_numbers(self) -> dict[str, tuple[int, int]]:
        """Per concept, (first name number, how many): each concept draws from its own names,
        enough of them that the profile's share of entities share a name."""
        share = min(max(self.profile.get("colliding", 0.0), 1e-6), 0.9)
        spans, at = {}, 0
        for concept, count in self.counts.items():
            span = max(1, math.ceil(count / -math.log(1 - share)))
            spans[concept], at = (at, span), at + span
        return spans

    def name_number(self, g: int, concept: str | None = None) -> int:
        concept = concept or self.concept_of(g)
        first, span = self._name_numbers[concept]
        return first + mix(self.seed, 1, g) % span

    @cached_property
    def concept_numbers(self) -> dict[str, int]:
        return {name: number for number, name in enumerate(self.profile["concepts"])}

    def style(self, concept: str) -> str:
        return self.profile["concepts"][concept].get("names", "word")

    def name(self, g: int) -> str:
        concept = self.concept_of(g)
        return name_of(self.style(concept), self.name_number(g, concept))

    @cached_property
    def rules(self) -> dict[str, list[tuple[str, dict, tuple[list[int], list[float]]]]]:
        """Per subject concept: (name, profile entry, cumulative degree shares) of each
        relation (to a concept with entities) and attribute."""
        rules: dict[str, list] = {c: [] for c in self.counts}
        for kind in ("relations", "attributes"):
            for name, entry in self.profile[kind].items():
                target = entry.get("object")
                if entry["subject"] in rules and (target is None or self.counts.get(target)):
                    rules[entry["subject"]].append((name, entry, _cumulative(entry["degree"])))
        return rules

    def facts(self, g: int) -> list[Fact]:
        """Entity `g`'s relation facts and attributes (the same on every call)."""
        concept = self.concept_of(g)
        rng = random.Random(mix(self.seed, 2, g))
        found = []
        for name, entry, degrees in self.rules[concept]:
            ks, shares = degrees
            k = ks[bisect.bisect_right(shares, rng.random() * shares[-1])]
            values: dict[int | Value, None]
            if "object" in entry:
                values = dict.fromkeys(self._object(entry, name, rng) for _ in range(k))
                values.pop(g, None)
            else:
                values = dict.fromkeys(_value(entry, rng) for _ in range(k))
            for value in values:
                found.append(Fact(name, value, self._qualifiers(entry, rng)))
        return found

    def _object(self, entry: dict, relation: str, rng: random.Random) -> int:
        concept = entry["object"]
        n = self.counts[concept]
        rank = int(n * rng.random() ** entry["skew"])
        # A bijection of 0..n-1 per relation, so that each relation has its own popular objects.
        return self.starts[concept] + (rank * 2147483647 + mix(self.seed, 3, zlib.crc32(relation.encode()))) % n

    def _qualifiers(self, entry: dict, rng: random.Random) -> dict[str, tuple[Value, ...]]:
        if not entry["qualifiers"] or rng.random() >= entry["qualified"]:
            return {}
        return {key: (_value(shape, rng),) for key, shape in entry["qualifiers"].items()}


def _cumulative(degree: dict) -> tuple[list[int], list[float]]:
    ks = sorted(int(k) for k in degree)
    shares, total = [], 0.0
    for k in ks:
        total += degree[k]
        shares.append(total)
    return ks, shares


def _value(shape: dict, rng: random.Random) -> Value:
    """A value of an attribute's type, unit and range (a range of one value is widened)."""
    kind = shape["type"]
    if kind == STRING:
        values = shape["values"]
        return Value(STRING, rng.choices(list(values), weights=list(values.values()))[0])
    lo, hi = shape["range"]
    if kind == DATE:
        first, last = date.fromisoformat(lo).toordinal(), date.fromisoformat(hi).toordinal()
        return Value(DATE, date.fromordinal(rng.randint(first, max(last, first + 3650))))
    if kind == YEAR:
        return Value(YEAR, rng.randint(int(lo), max(int(hi), int(lo) + 50)))
    if hi <= lo:
        lo, hi = lo / 2, hi * 2
    number = rng.uniform(lo, hi)
    number = round(number) if float(lo).is_integer() and float(hi).is_integer() else \
        round(number, 2)
    return Value(QUANTITY, float(number), shape.get("unit") or "1")


def layout(like: str, triples: int, seed: int) -> Layout:
    """The layout whose file has about `triples` triples, scaled from profile `like`: the
    profile's counts scaled by the triples a sample of entities costs, twice (an entity's cost
    depends on the counts: a relation to a concept of one entity has one fact at most)."""
    profile: dict = PROFILES[like]
    source = {c: v["entities"] for c, v in profile["concepts"].items() if v["entities"]}
    counts = source
    for _ in range(2):
        probe = Layout(profile, seed + 1, counts)
        cost = {c: _mean_lines(probe, c) for c in source}
        fixed = sum(1 for _ in _schema_lines(probe, StatementWriter(WIKIDATA)))
        scale = max(triples - fixed, 0) / sum(n * cost[c] for c, n in source.items())
        counts = {c: max(1, round(n * scale)) for c, n in source.items()}
    return Layout(profile, seed, counts)


def _mean_lines(probe: Layout, concept: str) -> float:
    writer, start = StatementWriter(WIKIDATA), probe.starts[concept]
    sample = min(_SAMPLE, probe.counts[concept])
    lines = sum(len(_entity_lines(probe, writer, g, concept)) for g in
                range(start, start + sample))
    return lines / sample


def entity_iri(g: int) -> str:
    return f"<{ENTITY}Q{g + 1000}>"


def concept_iri(number: int) -> str:
    return f"<{ENTITY}Q{number + 1}>"


def _schema_lines(plan: Layout, writer: StatementWriter) -> Iterator[str]:
    numbers = plan.concept_numbers
    for number, (name, entry) in enumerate(plan.profile["concepts"].items()):
        if name != UNTYPED:
            parents = [concept_iri(numbers[entry["parent"]])] if entry["parent"] else []
            yield from writer.node_lines(concept_iri(number), name, parents, True)
    keys: dict[str, str] = {}
    for kind in ("relations", "attributes"):
        for name, entry in plan.profile[kind].items():
            if kind == "attributes":
                keys[name] = entry["type"]
            keys.update((k, shape["type"]) for k, shape in entry["qualifiers"].items())
            keys.setdefault(name, "")
    for name, kind in sorted(keys.items()):
        local = WIKIDATA.key(name)[len(PROP):]
        yield from property_lines(WIKIDATA, name, property_entity(local))
        if kind:
            key_type = kind if kind in (STRING, QUANTITY) else "date"
            yield f"{iri(WIKIDATA.key(name))} <{KEY_TYPE}> {nt_string(key_type)} .\n"


def _entity_lines(plan: Layout, writer: StatementWriter, g: int, concept: str,
                  on_fact: Callable[[int, Fact], None] | None = None) -> list[str]:
    me, style = entity_iri(g), plan.style(concept)
    name = name_of(style, plan.name_number(g, concept))
    types = [] if concept == UNTYPED else [concept_iri(plan.concept_numbers[concept])]
    lines = list(writer.node_lines(me, name, types, False))
    alias = alias_of(style, name)
    if alias:
        lines.append(f"{me} {ALT_LABEL} {nt_string(alias)}@en .\n")
    for fact in plan.facts(g):
        if isinstance(fact.value, Value):
            lines.extend(writer.statement(me, fact.key, fact.value, fact.qualifiers, ATTRIBUTE))
        else:
            if on_fact is not None:
                on_fact(g, fact)
            lines.extend(writer.statement(me, fact.key, entity_iri(fact.value),
                                          fact.qualifiers, FORWARD, also_backward=True))
    return lines


def kb_lines(plan: Layout, on_fact: Callable[[int, Fact], None] | None = None
             ) -> Iterator[list[str]]:
    """The KB's lines, a block at a time (the schema, then one entity per block); `on_fact`
    sees every relation fact (subject number, fact) as it is written."""
    writer = StatementWriter(WIKIDATA)
    yield list(_schema_lines(plan, writer))
    for concept, start in plan.starts.items():
        for g in range(start, start + plan.counts[concept]):
            yield _entity_lines(plan, writer, g, concept, on_fact)


def write_kb(plan: Layout, out: str | Path,
             on_fact: Callable[[int, Fact], None] | None = None) -> int:
    """Write the KB to `out` (.nt, or .nt.gz compressed) atomically; the number of triples."""
    count = 0
    with atomic_file(out, "wb") as raw:
        sink = gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=1, mtime=0, filename="") \
            if str(out).endswith(".gz") else raw
        text = io.TextIOWrapper(sink, encoding="utf-8", newline="\n")
        for block in kb_lines(plan, on_fact):
            text.writelines(block)
            count += len(block)
        text.flush()
        text.detach()
        if sink is not raw:
            sink.close()
    return count
