"""Writing files so that a crash leaves either the old file or the new one, never a mix."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO


@contextmanager
def atomic_file(path: str | Path, mode: str = "w") -> Iterator[IO]:
    """A temporary file beside `path`; flushed, synced and renamed onto `path` on success,
    removed on failure. A replaced file keeps its permission bits.

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> with atomic_file(target) as out:
    ...     _ = out.write("done")
    >>> target.read_text()
    'done'
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    encoding = None if "b" in mode else "utf-8"
    try:
        with os.fdopen(fd, mode, encoding=encoding) as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomically(path: str | Path, data: str | bytes) -> None:
    """Replace `path` with `data` (text or bytes) atomically."""
    with atomic_file(path, "wb" if isinstance(data, bytes) else "w") as out:
        out.write(data)
