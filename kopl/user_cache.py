"""koplc's user cache folder: where everything derived from the user's files is kept.

Derived files (KB caches, grounding indexes, model files, KV states) never go beside the data
they come from, which may be read-only, shared or under version control. They live under
``$KOPLC_CACHE_DIR``, else ``$XDG_CACHE_HOME/koplc``, else ``~/.cache/koplc``: one folder per
kind, each file named after its source and a hash of the source's resolved path. Whoever reads
a derived file checks it against the source's content first. A cache folder that cannot be
written only means nothing is kept.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def cache_root() -> Path:
    """koplc's cache folder: $KOPLC_CACHE_DIR, else $XDG_CACHE_HOME/koplc, else ~/.cache/koplc."""
    root = os.environ.get("KOPLC_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "koplc")
    return Path(root)


def derived_path(kind: str, source: str | Path, suffix: str = "") -> Path:
    """Where the file (or folder) of `kind` derived from `source` lives in the cache.

    >>> derived_path("kb-cache", "/data/kb.json", ".koplc-cache").parent.name
    'kb-cache'
    >>> derived_path("kb-cache", "/data/kb.json", ".koplc-cache").name
    'kb.json....koplc-cache'
    """
    path = Path(source).resolve()
    digest = hashlib.blake2b(str(path).encode(), digest_size=8).hexdigest()
    return cache_root() / kind / f"{path.name}.{digest}{suffix}"


def writable(folder: Path) -> bool:
    """Whether files can be made in `folder`, or in the nearest existing folder above it.

    That folder must be a folder, writable, and have some write bit set: root may write
    anywhere, so a mode with no write bits at all is what marks a folder read-only for it."""
    for place in (folder, *folder.parents):
        if place.exists():
            try:
                return (place.is_dir() and os.access(place, os.W_OK)
                        and bool(place.stat().st_mode & 0o222))
            except OSError:
                return False
    return False
