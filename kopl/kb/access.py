"""The one protocol the front half asks a KB through, whatever holds the KB.

`KBAccess` says what a front end's preparation asks: names for linking (in pages, so an index
over a large KB is built by streaming), the schema with counts, the one-hop patterns around an
entity set with sample values, random entities for exploration, and running a program. Two
implementations: the in-memory KB (`koplc.kopl.answering.memory_access.MemoryAccess`) and a
SPARQL 1.1 endpoint (`koplc.sparql_backend.endpoint_kb.EndpointKB`).

Entities are named by their KB ids (the ids `Answer.entity_ids` holds).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class Schema:
    """A KB's schema with counts: relations by (name, direction), attribute keys with their
    value kind and units, concepts by name, qualifier keys."""

    relations: dict[tuple[str, str], int] = field(default_factory=dict)
    attributes: dict[str, int] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)  # key -> quantity, string, date, year
    units: dict[str, tuple[str, ...]] = field(default_factory=dict)
    concepts: dict[str, int] = field(default_factory=dict)
    qualifiers: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"relations": [{"relation": r, "direction": d, "count": n}
                              for (r, d), n in sorted(self.relations.items())],
                "attributes": [{"key": k, "kind": self.kinds.get(k), "count": n,
                                "units": list(self.units.get(k, ()))}
                               for k, n in sorted(self.attributes.items())],
                "concepts": dict(sorted(self.concepts.items())),
                "qualifiers": dict(sorted(self.qualifiers.items()))}


@dataclass(frozen=True)
class Pattern:
    """One hop around an entity set: a relation in a direction (or an attribute key, with
    `direction` "attribute"), how many facts take it, and a few of its values or neighbours."""

    name: str
    direction: str
    count: int
    samples: tuple[str, ...] = ()


@runtime_checkable
class KBAccess(Protocol):
    """What the front half asks a KB; `name` says which KB in messages."""

    name: str

    def names(self, page: int = 10_000) -> Iterator[list[tuple[str, str]]]:
        """Every entity's (id, name), a page at a time."""
        ...

    def schema(self) -> Schema:
        """The schema with counts."""
        ...

    def patterns(self, ids: list[str], samples: int = 3) -> list[Pattern]:
        """The one-hop patterns around the entities `ids`, with sample values."""
        ...

    def sample(self, n: int, seed: int = 0) -> list[str]:
        """`n` entity ids drawn at random (the same for the same seed)."""
        ...

    def run(self, program) -> list[str]:
        """The answer of an IR program, as `Answer.items()` gives it."""
        ...


class WholeSchema:
    """A KB's schema seen as an in-memory KB shows its own (relation names, concept names,
    stats): what a fragment of a larger KB carries as `whole` (`shown_schema`), so that a
    prompt lists the whole KB's schema, the same for every fragment (and its prefix's KV state
    is reused from question to question), as it does for a KB in memory. `source` (a KBAccess)
    is asked for its schema only when first needed: a front end that shows no schema (byokg)
    never asks it."""

    def __init__(self, source: KBAccess):
        self.source = source

    @cached_property
    def _schema(self) -> Schema:
        return self.source.schema()

    @cached_property
    def relation_names(self) -> set[str]:
        return {r for r, _ in self._schema.relations}

    def concept_names(self) -> list[str]:
        return sorted(self._schema.concepts)

    def stats(self) -> dict[str, int]:
        return {"relations": len(self.relation_names),
                "attribute keys": len(self._schema.attributes),
                "qualifier keys": len(self._schema.qualifiers),
                "concepts": len(self._schema.concepts)}


def whole_of(kb):
    """The KB that `kb` is a fragment of (an endpoint's, which its `whole` schema reads), or
    None for a KB that is whole itself."""
    whole = getattr(kb, "whole", None)
    return None if whole is None else whole.source


def shown_schema(kb):
    """What a prompt shows of `kb`'s schema: the whole KB's where `kb` is a fragment of one
    (its `whole`), else its own."""
    return getattr(kb, "whole", None) or kb
