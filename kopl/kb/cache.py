"""Load a KB from any supported file, through a binary cache kept in the user cache folder.

`load_kb(path)` picks the loader from the file name (``.json`` KoPL KB JSON, ``.txt`` pipe
triples, ``.nt`` N-Triples, ``.ttl`` Turtle); pipe triples take the `TripleSchema` the caller
names, else their neutral one (`koplc.kopl.kb.triple_schema`). The built KB is pickled to
``kb-cache/<name>.<hash of the resolved path>.koplc-cache`` under the user cache folder
(`koplc.kopl.user_cache`), never beside the source. The cache records the cache format version,
the source's resolved path, the loader and its options (a pipe file's schema, or that it had
none), and the source's size and BLAKE2 content hash; any mismatch rebuilds it, and a cache
whose source is gone is deleted when another is written. Writes go to a temporary file renamed
into place, so readers never see a partial cache; a cache folder that cannot be written means no
cache. A cache file is trusted like code (it is a pickle): keep cache folders private.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from collections.abc import Callable
from pathlib import Path

from koplc.kopl.errors import KBError
from koplc.kopl.kb.building import collector_paused
from koplc.kopl.kb.kopl_json import load_kopl_json
from koplc.kopl.kb.model import KB
from koplc.kopl.kb.triple_schema import NEUTRAL_RULES, TripleSchema
from koplc.kopl.kb.triples import load_pipe_triples, load_rdf
from koplc.kopl.user_cache import derived_path, writable

FORMAT = 5  # bump whenever the KB's pickled layout, the header or what a loader reads changes (5: Wikidata's RDF model)
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


def _loader(fmt: str, schema: TripleSchema | None) -> Callable[[Path], KB]:
    if fmt == "kopl-json":
        return load_kopl_json
    if fmt == "pipe-triples":
        return lambda path: load_pipe_triples(path, schema)
    return load_rdf


def load_kb(path: str | Path, *, cache: bool = True, fmt: str | None = None,
            schema: TripleSchema | None = None) -> KB:
    """Load the KB at `path`, from its cache when the cache matches the source; `schema` shapes
    pipe triples (None: the file's neutral schema) and is ignored by the other formats."""
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
    key = (FORMAT, str(path.resolve()), fmt, _options(fmt, schema),
           len(data), hashlib.blake2b(data, digest_size=16).hexdigest())
    place = cache_path(path)
    kb = _read_cache(place, key)
    if kb is None:
        kb = _build(fmt, schema, path)
        if writable(place.parent) and write_cache(place, key, kb):
            forget_orphans(place.parent)
    else:
        # The cache holds the path its first load was given, which may be relative to another
        # folder; what derived files are keyed by and read from is this load's.
        kb.source = str(path)
    return kb


def _options(fmt: str, schema: TripleSchema | None) -> str:
    """The loader's options as the cache key holds them."""
    if fmt != "pipe-triples":
        return ""
    # The neutral schema is read from the file, so the file's hash in the key covers it;
    # NEUTRAL_RULES changes with the rule that reads it.
    return schema.to_json() if schema is not None else f"neutral-{NEUTRAL_RULES}"


def _build(fmt: str, schema: TripleSchema | None, path: Path) -> KB:
    with collector_paused():
        return _loader(fmt, schema)(path)


def cache_path(path: str | Path) -> Path:
    """Where the cache of the KB file at `path` lives: in the user cache folder."""
    return derived_path("kb-cache", path, SUFFIX)


def _header(f) -> tuple | None:
    """The key a cache file starts with (format, source, loader, options, size, hash)."""
    if f.read(len(_MAGIC)) != _MAGIC:
        return None
    key = pickle.load(f)
    return key if isinstance(key, tuple) else None


def forget_orphans(folder: Path) -> None:
    """Delete the caches in `folder` whose source file is gone (a KB in a deleted temporary
    folder leaves nothing behind for long)."""
    for place in folder.glob(f"*{SUFFIX}"):
        try:
            with place.open("rb") as f:
                key = _header(f)
            if key and key[0] == FORMAT and not Path(key[1]).exists():
                place.unlink()
        except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ValueError,
                TypeError, ImportError, IndexError, KeyError):
            continue


def _read_cache(place: Path, key: tuple) -> KB | None:
    try:
        with place.open("rb") as f:
            if _header(f) != key:
                return None
            with collector_paused():
                kb = pickle.load(f)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ValueError, TypeError,
            ImportError, IndexError, KeyError):
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
