"""Saving and loading name indexes: one pair of files per kind, checked before use.

A KB's indexes live in the user cache folder (`koplc.kopl.user_cache`), in
``indexes/<KB file name>.<hash of its resolved path>/``, never beside the KB; ``source.txt``
there names the KB, and a folder whose KB is gone is deleted when another is saved.

A kind's index is ``<kind>.json`` (format, model, fingerprint, names, and the name and BLAKE2
hash of the hnswlib file) plus ``<kind>.<hash>.hnsw``. The hnswlib file is written first under
its content-addressed name, then the JSON is renamed into place, so a reader sees either the old
index or the new one, never half of each. A missing, stale (other fingerprint) or damaged index
loads as None and is rebuilt; hnswlib never sees a file whose hash does not match.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from koplc.kopl.atomic import write_atomically
from koplc.kopl.grounding.index.embedder import DIMENSION, model_id
from koplc.kopl.grounding.index.vector import FORMAT, NameIndex, fingerprint
from koplc.kopl.user_cache import derived_path

SOURCE_FILE = "source.txt"


def index_folder(kb_path: str | Path) -> Path:
    """Where the indexes of the KB at `kb_path` live: in the user cache folder."""
    return derived_path("indexes", kb_path)


def remember_source(folder: Path, kb_path: str | Path) -> None:
    """Note in `folder` the KB file its indexes come from."""
    marker, source = folder / SOURCE_FILE, str(Path(kb_path).resolve())
    try:
        if not marker.is_file() or marker.read_text(encoding="utf-8") != source:
            write_atomically(marker, source)
    except OSError:
        pass


def forget_orphans(root: Path) -> None:
    """Delete the index folders in `root` whose KB file is gone."""
    for marker in root.glob(f"*/{SOURCE_FILE}"):
        try:
            source = marker.read_text(encoding="utf-8")
        except OSError:
            continue
        if source and not Path(source).exists():
            shutil.rmtree(marker.parent, ignore_errors=True)


def _digest(path: Path) -> str:
    digest = hashlib.blake2b(digest_size=16)
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def load_index(folder: Path, kind: str, expected: str | None = None) -> NameIndex | None:
    """The index of `kind` saved in `folder`, or None when it is missing, damaged or (given
    `expected`) has another fingerprint."""
    try:
        meta = json.loads((folder / f"{kind}.json").read_text(encoding="utf-8"))
        names = meta["names"]
        if (meta["format"] != FORMAT or meta["model"] != model_id() or meta["kind"] != kind
                or not isinstance(names, list) or not all(isinstance(n, str) for n in names)):
            return None
        if expected is not None and meta["fingerprint"] != expected:
            return None
        if fingerprint(kind, names) != meta["fingerprint"]:
            return None
        if not names:
            return NameIndex(kind, [], None, meta["fingerprint"])
        hnsw_path = folder / meta["hnsw"]
        if Path(meta["hnsw"]).name != meta["hnsw"] or _digest(hnsw_path) != meta["hnsw_hash"]:
            return None
        import hnswlib

        hnsw = hnswlib.Index(space="cosine", dim=DIMENSION)
        hnsw.load_index(str(hnsw_path), max_elements=len(names))
        if hnsw.get_current_count() != len(names):
            return None
        hnsw.set_ef(128)
    except (OSError, ValueError, KeyError, TypeError, RuntimeError):
        return None
    return NameIndex(kind, names, hnsw, meta["fingerprint"])


def save_index(folder: Path, index: NameIndex) -> bool:
    """Write the index into `folder` atomically; False when the folder cannot be written."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        meta = {"format": FORMAT, "model": model_id(), "kind": index.kind,
                "fingerprint": index.fingerprint, "count": len(index.names)}
        keep = None
        if index.hnsw is not None:
            tmp = _temp_path(folder, f".{index.kind}.hnsw.")
            try:
                index.hnsw.save_index(str(tmp))
                digest = _digest(tmp)
                keep = f"{index.kind}.{digest}.hnsw"
                os.replace(tmp, folder / keep)
            finally:
                tmp.unlink(missing_ok=True)
            meta |= {"hnsw": keep, "hnsw_hash": digest}
        meta["names"] = index.names
        write_atomically(folder / f"{index.kind}.json", json.dumps(meta, ensure_ascii=False))
    except OSError:
        return False
    for stale in folder.glob(f"{index.kind}.*.hnsw"):
        if stale.name != keep:
            stale.unlink(missing_ok=True)
    return True


def _temp_path(folder: Path, prefix: str) -> Path:
    fd, tmp = tempfile.mkstemp(prefix=prefix, dir=folder)
    os.close(fd)
    return Path(tmp)


def folder_size(folder: Path, kinds) -> int:
    """Bytes on disk of the named kinds' index files in `folder`."""
    total = 0
    for kind in kinds:
        meta = folder / f"{kind}.json"
        if meta.is_file():
            total += meta.stat().st_size
            total += sum(p.stat().st_size for p in folder.glob(f"{kind}.*.hnsw"))
    return total
