"""One searchable index of the names of one kind of KB item (entities, relations, ...).

Embedding search runs in hnswlib (cosine space over MiniLM vectors); lexical lookups (exact
name, normal form, character trigrams, phrases of the question) run on tables built from the
names on first use. Labels are positions in `names`, which is sorted.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import cached_property

import numpy as np

from koplc.kopl.grounding.index.embedder import DIMENSION, model_id
from koplc.kopl.grounding.index.trigram import TrigramIndex
from koplc.kopl.grounding.name_forms import normal_form

FORMAT = 1  # bump when the saved layout or the embedded text changes


def fingerprint(kind: str, names: list[str]) -> str:
    """What an index's content depends on: format, model, kind and the sorted names."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{FORMAT}\n{model_id()}\n{kind}\n".encode())
    for name in names:
        digest.update(name.encode("utf-8", "surrogatepass") + b"\0")
    return digest.hexdigest()


def embedded_text(name: str) -> str:
    """The text embedded for a name: underscores read as spaces (``place_of_birth``)."""
    return name.replace("_", " ").strip() or name


class NameIndex:
    """The sorted names of one kind with their hnswlib index (None when there are no names).

    An index made `later` has its names (and so every lexical lookup) at once, and embeds
    them on the first search by meaning: a question whose names are all the KB's own never
    waits for every name of a large KB to be embedded."""

    def __init__(self, kind: str, names: list[str], hnsw, fingerprint_: str,
                 later: Callable[[], object] | None = None):
        self.kind = kind
        self.names = names
        self._hnsw, self._later = hnsw, later
        self.fingerprint = fingerprint_

    @property
    def hnsw(self):
        """The hnswlib index, built now when it was left for `later`."""
        if self._hnsw is None and self._later is not None:
            self._hnsw, self._later = self._later(), None
        return self._hnsw

    def __len__(self) -> int:
        return len(self.names)

    @classmethod
    def build(cls, kind: str, names, vectors: np.ndarray) -> NameIndex:
        """An index of `names` (sorted, deduplicated) with their unit vectors, row by row."""
        import hnswlib

        names = list(names)
        if not names:
            return cls(kind, [], None, fingerprint(kind, []))
        index = hnswlib.Index(space="cosine", dim=DIMENSION)
        index.init_index(max_elements=len(names), ef_construction=200, M=16,
                         random_seed=0)
        index.add_items(vectors, np.arange(len(names)), num_threads=-1)
        index.set_ef(128)
        return cls(kind, names, index, fingerprint(kind, names))

    def search(self, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        """The k nearest names to the vector: (label, cosine similarity), best first."""
        if self.hnsw is None or k <= 0:
            return []
        k = min(k, len(self.names))
        labels, distances = self.hnsw.knn_query(vector.reshape(1, -1), k=k, num_threads=1)
        return [(int(lab), 1.0 - float(d)) for lab, d in zip(labels[0], distances[0],
                                                              strict=True)]

    def cosines(self, vector: np.ndarray, labels: list[int]) -> list[float]:
        """Cosine similarity of the vector with each named label's stored vector."""
        if self.hnsw is None or not labels:
            return [0.0] * len(labels)
        stored = np.asarray(self.hnsw.get_items(labels), dtype=np.float32)
        return [float(x) for x in stored @ vector]

    # Lexical lookups.

    @cached_property
    def _exact(self) -> dict[str, int]:
        return {name: label for label, name in enumerate(self.names)}

    @cached_property
    def _forms(self) -> list[str]:
        return [normal_form(name) for name in self.names]

    @cached_property
    def _normal(self) -> dict[str, tuple[int, ...]]:
        table: dict[str, list[int]] = {}
        for label, form in enumerate(self._forms):
            table.setdefault(form, []).append(label)
        return {key: tuple(labels) for key, labels in table.items()}

    @cached_property
    def _trigrams(self) -> TrigramIndex:
        return TrigramIndex(self._forms)

    def exact(self, name: str) -> int | None:
        """The label of exactly this name, or None."""
        return self._exact.get(name)

    def same_normal_form(self, name: str) -> tuple[int, ...]:
        """The labels of names with the same normal form."""
        return self._normal.get(normal_form(name), ())

    def fuzzy(self, name: str, k: int) -> list[tuple[int, float]]:
        """The k names with the most character trigrams in common (Dice), best first."""
        return self._trigrams.search(normal_form(name), k)

    def phrase_matches(self, phrases: set[str]) -> list[int]:
        """Labels of names whose normal form is one of the given phrases."""
        normal = self._normal
        return [label for phrase in phrases for label in normal.get(phrase, ())]

