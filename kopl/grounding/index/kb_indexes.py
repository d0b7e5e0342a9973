"""The five name indexes of a KB (entities, concepts, relations, attribute keys, qualifier
keys), loaded from disk when their fingerprint matches the KB's names, else built and saved.

`Indexes.for_kb(kb, kb_path)` keeps the files in the user cache folder (``indexes/`` under
``$KOPLC_CACHE_DIR``, see `store`), or in a folder the caller names; a folder that
cannot be written keeps them in memory only. `Indexes.from_names` serves names that
come without a KB (a schema listing). Each kind loads on first use; the embedding model loads
only when an index must be built or a name needs an embedding.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from koplc.kopl.errors import GroundingError
from koplc.kopl.grounding.index.embedder import DEFAULT_EMBEDDER, Embedder
from koplc.kopl.grounding.index.store import (
    folder_size,
    forget_orphans,
    index_folder,
    load_index,
    remember_source,
    save_index,
)
from koplc.kopl.grounding.index.vector import NameIndex, embedded_text, fingerprint
from koplc.kopl.kb.model import KB
from koplc.kopl.types import ArgKind
from koplc.kopl.user_cache import writable

KINDS: dict[ArgKind, str] = {
    ArgKind.ENTITY: "entities", ArgKind.CONCEPT: "concepts", ArgKind.RELATION: "relations",
    ArgKind.ATTRIBUTE: "attributes", ArgKind.QUALIFIER: "qualifiers",
}


def kb_names(kb: KB, kind: ArgKind) -> list[str]:
    """The sorted distinct names of one kind of item in the KB."""
    if kind is ArgKind.ENTITY:
        names = set(kb.names[kb.n_concepts:])
    elif kind is ArgKind.CONCEPT:
        names = set(kb.concept_names())
    elif kind is ArgKind.RELATION:
        names = kb.relation_names
    elif kind is ArgKind.ATTRIBUTE:
        names = set(kb.attr_index)
    elif kind is ArgKind.QUALIFIER:
        names = kb.qualifier_keys
    else:
        raise ValueError(f"no index for {kind}")
    return sorted(n for n in names if n)


@dataclass
class BuildReport:
    """What `Indexes.build_all` did: per kind, the name count and whether it was rebuilt."""

    counts: dict[str, int]
    rebuilt: list[str]
    seconds: float
    folder: Path | None
    bytes: int


class Indexes:
    """The name indexes of one vocabulary, per kind, loaded or built on first use."""

    def __init__(self, vocabularies: dict[ArgKind, list[str]], folders: list[Path],
                 embedder: Embedder = DEFAULT_EMBEDDER, source: Path | None = None):
        self.vocabularies = vocabularies
        self.folders = folders
        self.embedder = embedder
        self.source = source  # the KB file, when the folders are its own in the user cache
        self._loaded: dict[ArgKind, NameIndex] = {}

    @classmethod
    def for_kb(cls, kb: KB, kb_path: str | Path | None = None, folder: str | Path | None = None,
               embedder: Embedder = DEFAULT_EMBEDDER) -> Indexes:
        """The indexes of `kb`, kept in `folder`, in the user cache folder under a name
        derived from `kb_path`, or (with neither) only in memory."""
        if folder or not kb_path:
            folders, source = [Path(folder)] if folder else [], None
        else:
            folders, source = [index_folder(kb_path)], Path(kb_path)
        return cls({kind: kb_names(kb, kind) for kind in KINDS}, folders, embedder, source)

    @classmethod
    def from_names(cls, names: dict[ArgKind, list[str]], folder: str | Path | None = None,
                   embedder: Embedder = DEFAULT_EMBEDDER) -> Indexes:
        """Indexes of names that come without a KB (missing kinds are empty)."""
        vocabularies = {kind: sorted(set(names.get(kind, ()))) for kind in KINDS}
        return cls(vocabularies, [Path(folder)] if folder else [], embedder)

    def get(self, kind: ArgKind) -> NameIndex:
        """The index of `kind`: loaded, else its names now and their vectors built (and saved
        where possible) on its first search by meaning."""
        index = self._loaded.get(kind)
        if index is None:
            index = self._load(kind) or self._later(kind)
            self._loaded[kind] = index
        return index

    def _later(self, kind: ArgKind) -> NameIndex:
        names = self.vocabularies[kind]
        return NameIndex(KINDS[kind], names, None, fingerprint(KINDS[kind], names),
                         later=lambda: self._build([kind], progress=False)[kind].hnsw)

    def names(self, kind: ArgKind) -> list[str]:
        """The sorted names of `kind` (no index needed)."""
        return self.vocabularies.get(kind, [])

    def _load(self, kind: ArgKind) -> NameIndex | None:
        names = self.vocabularies[kind]
        if not names:
            return NameIndex(KINDS[kind], [], None, fingerprint(KINDS[kind], []))
        expected = fingerprint(KINDS[kind], names)
        for folder in self.folders:
            index = load_index(folder, KINDS[kind], expected)
            if index is not None:
                return index
        return None

    def build_all(self, progress: bool = False, force: bool = False) -> BuildReport:
        """Load every kind, building (and saving) those missing or stale; a report."""
        start = time.perf_counter()
        todo = []
        for kind in KINDS:
            index = None if force else self._load(kind)
            if index is None:
                todo.append(kind)
            else:
                self._loaded[kind] = index
        self._loaded.update(self._build(todo, progress) if todo else {})
        folder = self.saved_folder()
        return BuildReport({KINDS[k]: len(self.vocabularies[k]) for k in KINDS},
                           [KINDS[k] for k in todo], time.perf_counter() - start, folder,
                           folder_size(folder, KINDS.values()) if folder else 0)

    def saved_folder(self) -> Path | None:
        """The first folder holding a saved index of these names, if any."""
        return next((f for f in self.folders
                     if any((f / f"{k}.json").is_file() for k in KINDS.values())), None)

    def _build(self, kinds: list[ArgKind], progress: bool) -> dict[ArgKind, NameIndex]:
        texts = [embedded_text(n) for k in kinds for n in self.vocabularies[k]]
        vectors = self._embed(texts, progress)
        out, start = {}, 0
        for kind in kinds:
            names = self.vocabularies[kind]
            out[kind] = NameIndex.build(KINDS[kind], names, vectors[start:start + len(names)])
            start += len(names)
            self._save(out[kind])
        return out

    def _embed(self, texts: list[str], progress: bool) -> np.ndarray:
        if not progress or not texts:
            return self.embedder.encode(texts)
        from tqdm import tqdm

        chunks = []
        with tqdm(total=len(texts), unit="name", desc="embedding names") as bar:
            for start in range(0, len(texts), 2048):
                chunks.append(self.embedder.encode(texts[start:start + 2048]))
                bar.update(len(chunks[-1]))
        return np.concatenate(chunks)

    def _save(self, index: NameIndex) -> None:
        if not index.names:
            return
        for folder in self.folders:
            if writable(folder) and save_index(folder, index):
                if self.source is not None:
                    remember_source(folder, self.source)
                    forget_orphans(folder.parent)
                return


def require_names(indexes: Indexes, kind: ArgKind, written: str) -> NameIndex:
    """The index of `kind`, or a GroundingError when the KB has no names of that kind."""
    index = indexes.get(kind)
    if not index.names:
        raise GroundingError(f"cannot ground {kind} {written!r}: the KB has no "
                             f"{KINDS[kind]}", code="empty-vocabulary")
    return index
