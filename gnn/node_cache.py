"""The node sets of question subgraphs, in one memory-mapped file.

Layout: the magic ``KOPLCSG1``, the header's length (8 bytes, little endian), a JSON header (the
topics in order, the node count, a BLAKE2b digest of the arrays), zero padding to 8 bytes, then
the offsets (int64, one more than the topics) and the concatenated node ids (int32). Only the
header is read into memory; a topic's nodes are a slice of the mapped file, so a process keeps
resident only the pages of the topics it asks for. The file is written whole and atomically; a
file that is short, unreadable or whose digest does not match is ignored (and rewritten by the
next `flush`).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

import numpy as np

MAGIC = b"KOPLCSG1"
CHUNK = 1 << 22


class NodeCache:
    """topic -> node ids (int64 array, topic first), memory-mapped from `path` when given."""

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path is not None else None
        self.index: dict[str, int] = {}
        self.offsets = np.zeros(1, dtype=np.int64)
        self.nodes = np.zeros(0, dtype=np.int32)
        self.pending: dict[str, np.ndarray] = {}
        self.rejected = False  # a file was there but unreadable
        if self.path is not None and self.path.is_file():
            self.rejected = not self._open()

    def __contains__(self, topic: str) -> bool:
        return topic in self.pending or topic in self.index

    def __len__(self) -> int:
        return len(self.index) + len(self.pending)

    def get(self, topic: str) -> np.ndarray:
        """The topic's node ids (a private int64 copy)."""
        if topic in self.pending:
            return self.pending[topic]
        i = self.index[topic]
        return np.asarray(self.nodes[self.offsets[i]:self.offsets[i + 1]], dtype=np.int64)

    def size(self, topic: str) -> int:
        """How many nodes the topic's subgraph has (read from the offsets only)."""
        if topic in self.pending:
            return len(self.pending[topic])
        i = self.index[topic]
        return int(self.offsets[i + 1] - self.offsets[i])

    def add(self, topic: str, nodes: np.ndarray) -> None:
        """Keep the topic's nodes in memory until the next `flush`."""
        self.pending[topic] = np.asarray(nodes, dtype=np.int64)

    def flush(self) -> None:
        """Write the mapped and pending topics to `path` atomically, then map it again."""
        if self.path is None or not self.pending:
            return
        topics = list(self.index) + list(self.pending)
        sizes = np.array([self.size(t) for t in topics], dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        _write_atomically(self.path, lambda out: _write(out, topics, offsets, self))
        self.pending = {}
        self.rejected = not self._open()

    def _open(self) -> bool:
        """Map the file; False (and nothing mapped) when it is not a whole, intact cache."""
        try:
            with open(self.path, "rb") as f:
                if f.read(len(MAGIC)) != MAGIC:
                    return False
                length = int.from_bytes(f.read(8), "little")
                header = json.loads(f.read(length).decode("utf-8"))
            start = _aligned(len(MAGIC) + 8 + length)
            n_topics, n_nodes = len(header["topics"]), int(header["nodes"])
            end = start + 8 * (n_topics + 1) + 4 * n_nodes
            if os.path.getsize(self.path) != end or _digest(self.path, start) != header["digest"]:
                return False
            offsets = np.memmap(self.path, np.int64, "r", start, (n_topics + 1,))
            nodes = np.memmap(self.path, np.int32, "r", start + 8 * (n_topics + 1), (n_nodes,)) \
                if n_nodes else np.zeros(0, dtype=np.int32)
        except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError):
            return False
        self.index = {t: i for i, t in enumerate(header["topics"])}
        self.offsets, self.nodes = np.asarray(offsets), nodes
        return True


def _write(out, topics: list[str], offsets: np.ndarray, cache: NodeCache) -> None:
    digest = hashlib.blake2b(digest_size=16)
    body = [offsets.tobytes()]
    digest.update(body[0])
    for topic in topics:
        chunk = cache.get(topic).astype(np.int32).tobytes()
        digest.update(chunk)
        body.append(chunk)
    header = json.dumps({"topics": topics, "nodes": int(offsets[-1]),
                         "digest": digest.hexdigest()}).encode("utf-8")
    out.write(MAGIC + len(header).to_bytes(8, "little") + header)
    out.write(b"\0" * (_aligned(len(MAGIC) + 8 + len(header)) - len(MAGIC) - 8 - len(header)))
    for chunk in body:
        out.write(chunk)


def _aligned(n: int) -> int:
    return (n + 7) // 8 * 8


def _digest(path: Path, start: int) -> str:
    digest = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as f:
        f.seek(start)
        while chunk := f.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _write_atomically(path: Path, write) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            write(out)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
