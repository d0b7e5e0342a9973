"""The explored pool: one JSON object a line, written atomically, read back as `PoolEntry`.

Each line (`FORMAT` 1) holds:

- ``id``: ``"x00042"``, unique in the pool;
- ``program``: the program in IR JSON, and ``steps``: the same in kopl-steps text;
- ``answer_type`` (a `Type` value: ``names``, ``count``, ``attribute values`` ...) and
  ``answers``: a list of strings (the names, values or labels; a count or yes/no is one string);
- ``pattern``: the anonymised program (`patterns.pattern`); ``hops``: how many relations it
  follows; ``ops``: the op names it uses, in post-order, once each;
- ``questions``: ``[{"text": ..., "by": ...}]``, where ``by`` says what made the question:
  ``"canonical"`` (the registry-driven verbaliser, always first), later also an LM's name;
- ``provenance``: ``{"format", "explorer", "kb", "kb_hash", "seed", "draw", "start"}``: the
  pool format, the version of the explorer that made it, the KB file's name and BLAKE2 content hash, the seed and the draw that made the program, and
  what it started from (``entity``, ``concept`` or ``value``).

Pools live in the user cache folder beside the KB's other derived files
(``pools/<kb name>.<hash of its path>.jsonl``); `pool_for` reads the pool of a KB file only
when its hash still matches the file and the explorer is this one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

from koplc.kopl.atomic import atomic_file
from koplc.kopl.errors import KoplcError
from koplc.kopl.ir import Node
from koplc.kopl.program import program_from_data
from koplc.kopl.user_cache import derived_path

FORMAT = 1
# The way pools are explored; a cached pool explored another way is explored again.
EXPLORER = 3  # 3: schema names read in any naming convention (koplc.kopl.naming)
CANONICAL = "canonical"


class PoolError(KoplcError):
    """A pool file that cannot be read, or an exploration that found nothing to keep."""

    default_code = "pool"


@dataclass(frozen=True)
class Question:
    """One question for a pooled program, and what made it (`by`)."""

    text: str
    by: str = CANONICAL


@dataclass(frozen=True)
class PoolEntry:
    """One explored program with its answers, pattern, questions and provenance."""

    id: str
    program_data: dict
    steps: str
    answer_type: str
    answers: list[str]
    pattern: str
    hops: int
    ops: list[str]
    questions: tuple[Question, ...] = ()
    provenance: dict = field(default_factory=dict)

    @cached_property
    def program(self) -> Node:
        """The program as an IR node."""
        return program_from_data(self.program_data)

    @property
    def question(self) -> str:
        """The first question (the canonical one when there is one)."""
        return self.questions[0].text if self.questions else ""

    def with_question(self, text: str, by: str) -> PoolEntry:
        """This entry with one more question, made by `by` (an LM's name, say)."""
        return replace(self, questions=(*self.questions, Question(text, by)))

    def to_json(self) -> dict:
        return {"id": self.id, "program": self.program_data, "steps": self.steps,
                "answer_type": self.answer_type, "answers": self.answers,
                "pattern": self.pattern, "hops": self.hops, "ops": self.ops,
                "questions": [{"text": q.text, "by": q.by} for q in self.questions],
                "provenance": self.provenance}

    @classmethod
    def from_json(cls, data: dict) -> PoolEntry:
        return cls(id=data["id"], program_data=data["program"], steps=data["steps"],
                   answer_type=data["answer_type"], answers=list(data["answers"]),
                   pattern=data["pattern"], hops=int(data["hops"]), ops=list(data["ops"]),
                   questions=tuple(Question(q["text"], q.get("by", CANONICAL))
                                   for q in data.get("questions", ())),
                   provenance=dict(data.get("provenance", {})))


def iter_pool(path: str | Path) -> Iterator[PoolEntry]:
    """The entries of a pool file, in order; PoolError names the first bad line."""
    path = Path(path)
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                yield PoolEntry.from_json(json.loads(line))
            except (ValueError, KeyError, TypeError) as err:
                raise PoolError(f"{path}:{number}: not a pool entry ({err})",
                                code="bad-pool") from None


def read_pool(path: str | Path) -> list[PoolEntry]:
    """Every entry of a pool file."""
    return list(iter_pool(path))


def write_pool(path: str | Path, entries: Iterable[PoolEntry]) -> int:
    """Write entries as a pool, atomically: an interrupted write leaves the old file as it
    was. Returns how many were written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with atomic_file(path) as out:
        for entry in entries:
            out.write(json.dumps(entry.to_json(), ensure_ascii=False) + "\n")
            count += 1
    return count


def pool_path(kb_path: str | Path) -> Path:
    """Where the pool explored from the KB file at `kb_path` lives in the user cache."""
    return derived_path("pools", kb_path, ".jsonl")


def content_hash(kb_path: str | Path) -> str:
    """The BLAKE2 hash of a KB file's content, which a pool records."""
    digest = hashlib.blake2b(digest_size=16)
    with Path(kb_path).open("rb") as data:
        for block in iter(lambda: data.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def pool_for(kb_path: str | Path) -> list[PoolEntry] | None:
    """The cached pool of a KB file, or None when there is none, the KB has changed or the
    pool was explored by another version of the explorer (`EXPLORER`)."""
    place = pool_path(kb_path)
    if not place.is_file():
        return None
    entries = read_pool(place)
    current = content_hash(kb_path)
    if any(e.provenance.get("kb_hash") != current or e.provenance.get("explorer") != EXPLORER
           for e in entries[:1]):
        return None
    return entries
