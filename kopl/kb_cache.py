"""Load a KB from any supported file, through a binary cache kept next to the source.

`load_kb(path)` picks the loader from the file name (``.json`` KoPL KB JSON, ``.txt`` MetaQA
pipe triples, ``.nt`` N-Triples, ``.ttl`` Turtle). The built KB is pickled to
``<source>.koplc-cache`` beside the source, or, where that folder is read-only, under
``$KOPLC_CACHE_DIR`` (default ``$XDG_CACHE_HOME/koplc`` or ``~/.cache/koplc``) with a name derived
from the source's absolute path. The cache records the cache format version, the loader and
its options, and the source's size and BLAKE2 content hash; any mismatch rebuilds it. Writes
go to a temporary file renamed into place, so readers never see a partial cache. A cache file
is trusted like code (it is a pickle): keep cache folders private.
"""

from __future__ import annotations

import gc
import hashlib
import os
import pickle
import tempfile
from collections.abc import Callable
from pathlib import Path

from koplc.kopl.errors import KBError
from koplc.kopl.kb import KB
from koplc.kopl.kb_json import load_kopl_json
from koplc.kopl.kb_triples import METAQA, TripleSchema, load_pipe_triples, load_rdf

FORMAT = 1  # bump whenever the KB's pickled layout changes
SUFFIX = ".koplc-cache"
_MAGIC = b"koplc-kb\n"
KB_FORMATS = ("kopl-json", "pipe-triples", "ntriples", "turtle")


def kb_format(path: str | Path) -> str:
    """The KB format a file name implies."""
    suffix = Path(path).suffix.lower()
    formats = {".json": "kopl-json", ".txt": "pipe-triples", ".tsv": "pipe-triples",
               ".nt": "ntriples", ".ttl": "turtle"}
    if suffix not in formats:
        raise KBError(f"{path}: cannot tell the KB format from {suffix or 'no extension'!r}; "
                      "use .json (KoPL KB JSON), .txt (subject|relation|object), .nt or .ttl",
                      code="kb-format")
    return formats[suffix]


def _loader(fmt: str, schema: TripleSchema) -> Callable[[Path], KB]:
    if fmt == "kopl-json":
        return load_kopl_json
    if fmt == "pipe-triples":
        return lambda path: load_pipe_triples(path, schema)
    return load_rdf


def load_kb(path: str | Path, *, cache: bool = True, fmt: str | None = None,
            schema: TripleSchema = METAQA) -> KB:
    """Load the KB at `path`, from its cache when the cache matches the source."""
    path = Path(path)
    if not path.is_file():
        raise KBError(f"{path}: no such KB file", code="kb-missing")
    fmt = fmt or kb_format(path)
    if fmt not in KB_FORMATS:
        raise KBError(f"unknown KB format {fmt!r}; choose one of {', '.join(KB_FORMATS)}",
                      code="kb-format")
    if not cache:
        return _build(fmt, schema, path)
    data = path.read_bytes()
    key = (FORMAT, fmt, schema.to_json() if fmt == "pipe-triples" else "", len(data),
           hashlib.blake2b(data, digest_size=16).hexdigest())
    for place in cache_paths(path):
        kb = _read_cache(place, key)
        if kb is not None:
            return kb
    kb = _build(fmt, schema, path)
    for place in cache_paths(path):
        if _writable(place.parent) and write_cache(place, key, kb):
            break
    return kb


def _build(fmt: str, schema: TripleSchema, path: Path) -> KB:
    gc.disable()  # building allocates many small objects; cyclic GC passes only slow it down
    try:
        return _loader(fmt, schema)(path)
    finally:
        gc.enable()


def cache_paths(path: Path) -> list[Path]:
    """Where the cache of `path` may live: beside it, then in the user cache folder."""
    path = path.resolve()
    root = os.environ.get("KOPLC_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "koplc")
    digest = hashlib.blake2b(str(path).encode(), digest_size=8).hexdigest()
    return [path.with_name(path.name + SUFFIX), Path(root) / f"{path.name}.{digest}{SUFFIX}"]


def _writable(folder: Path) -> bool:
    """Whether to write into `folder`: it must be writable and not marked read-only (no write
    bits at all), which root would otherwise ignore."""
    try:
        return not folder.exists() or (os.access(folder, os.W_OK)
                                       and bool(folder.stat().st_mode & 0o222))
    except OSError:
        return False


def _read_cache(place: Path, key: tuple) -> KB | None:
    try:
        with place.open("rb") as f:
            if f.read(len(_MAGIC)) != _MAGIC or pickle.load(f) != key:
                return None
            gc.disable()
            try:
                kb = pickle.load(f)
            finally:
                gc.enable()
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ValueError, TypeError):
        return None  # missing, stale or damaged: rebuild
    return kb if isinstance(kb, KB) else None


def write_cache(place: Path, key: tuple, kb: KB) -> bool:
    """Write the cache atomically; False when the folder cannot be written."""
    try:
        place.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{place.name}.", dir=place.parent)
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(_MAGIC)
            pickle.dump(key, out, protocol=pickle.HIGHEST_PROTOCOL)
            pickle.dump(kb, out, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, place)
        return True
    except OSError:
        Path(tmp).unlink(missing_ok=True)
        return False
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
