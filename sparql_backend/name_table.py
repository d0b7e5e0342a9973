"""An endpoint's entity names on disk, for linking: built by streaming pages into sqlite.

`NameTable.build(kb, path)` reads the names a page at a time (`EndpointKB.names`) into a
sqlite file keyed by the names' normal forms (`koplc.kopl.grounding.name_forms`: the keys the
in-memory linker uses), with a progress bar; no more than one page is ever in memory.
`seeds(question)` looks up every span of a question as the linker does (its spellings, an
identifier's joined spelling, a possessive or plural dropped, the leading words of a name)
and returns the ids of the entities the question may name.
"""

from __future__ import annotations

import os
import re
import sqlite3
import sys
import tempfile
from pathlib import Path

from koplc.kopl.grounding.mentions import LONGEST, plain, plausible_in
from koplc.kopl.grounding.name_forms import joined_spellings, spellings, written_as_identifier
from koplc.kopl.lexicon import ARTICLES, NOT_NAMES, singular

_POSSESSIVE = re.compile(r"\s*['’]s$")
_WORDS = re.compile(r"[^\s?!.]+")
SEEDS = 30  # the most entities a question's spans seed a fragment with


class NameTable:
    """The sqlite file of an endpoint's names: (key, joined key, id, name) rows."""

    def __init__(self, path: Path):
        self.path = path
        self.db = sqlite3.connect(str(path), check_same_thread=False)

    @classmethod
    def open(cls, kb, path: Path, progress: bool = True) -> NameTable:
        """The table at `path`, built from `kb`'s names first when it is not complete."""
        if path.exists():
            table = cls(path)
            if table.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'complete'").fetchone():
                return table
            table.db.close()
        return cls.build(kb, path, progress)

    @classmethod
    def build(cls, kb, path: Path, progress: bool = True) -> NameTable:
        """Stream `kb`'s names into a new table at `path` (written aside, then moved)."""
        from tqdm import tqdm

        path.parent.mkdir(parents=True, exist_ok=True)
        aside = path.with_suffix(f".{os.getpid()}.part")
        aside.unlink(missing_ok=True)
        db = sqlite3.connect(str(aside))
        db.execute("CREATE TABLE names (key TEXT, joined TEXT, id TEXT, name TEXT)")
        with tqdm(desc=f"names of {kb.url}", unit="name", file=sys.stderr,
                  disable=not progress or None, mininterval=0.5) as bar:
            for page in kb.names():
                db.executemany("INSERT INTO names VALUES (?, ?, ?, ?)",
                               [(key, key.replace(" ", ""), i, name) for i, name in page
                                for key in spellings(name)])
                db.commit()
                bar.update(len(page))
        db.execute("CREATE INDEX by_key ON names (key)")
        db.execute("CREATE INDEX by_joined ON names (joined)")
        db.execute("CREATE TABLE complete (at TEXT)")
        db.commit()
        db.close()
        os.replace(aside, path)
        return cls(path)

    def lookup(self, span: str, limit: int = 20) -> list[tuple[str, str]]:
        """(id, name) of the entities `span` may be written for, as the linker reads it."""
        for key in spellings(span):
            found = self._rows("key = ?", key, limit)
            if found:
                return found
        if written_as_identifier(span):
            for key in joined_spellings(span):
                found = self._rows("joined = ?", key, limit)
                if found:
                    return found
        return []

    def led_by(self, span: str) -> list[tuple[str, str]]:
        """The one entity whose name starts with the span's words ("Delta" for "Delta Air
        Lines Inc."), when one name does."""
        for key in spellings(span):
            rows = self.db.execute("SELECT id, name FROM names WHERE key > ? AND key < ? "
                                   "LIMIT 3", (key + " ", key + "!")).fetchall()
            if len({name for _, name in rows}) == 1:
                return rows
        return []

    def _rows(self, where: str, key: str, limit: int) -> list[tuple[str, str]]:
        return self.db.execute(f"SELECT id, name FROM names WHERE {where} LIMIT ?",
                               (key, limit)).fetchall()

    def seeds(self, question: str, limit: int = SEEDS) -> list[str]:
        """The ids of the entities the question's spans may name: `taken_and_not`'s first."""
        taken, others = self.taken_and_not(question)
        return [*taken, *others][:limit]

    def taken_and_not(self, question: str) -> tuple[list[str], list[str]]:
        """The ids of the entities the question's spans may name, longest spans first: those
        the mention linker would take the spans for (`plausible_in`: a proper name, a hinted
        one), and the others (a tag that a common word names, "film")."""
        text = plain(question)
        words = [m.span() for m in _WORDS.finditer(text)]
        plausible = plausible_in(question)
        found: dict[bool, dict[str, None]] = {True: {}, False: {}}
        for size in range(min(LONGEST, len(words)), 0, -1):
            for i in range(len(words) - size + 1):
                span = text[words[i][0]:words[i + size - 1][1]].strip(",;:'\"’")
                if not span or span.lower() in NOT_NAMES:
                    continue
                rows = (self.lookup(span) or self.lookup(_POSSESSIVE.sub("", span))
                        or self.lookup(singular(span)))
                if not rows and span[:1].isupper():  # "Frontier's fleet": Frontier Airlines
                    rows = self.led_by(span) or self.led_by(_POSSESSIVE.sub("", span))
                if rows:
                    named = (i > 0 and text[slice(*words[i - 1])].lower() in ARTICLES
                             and rows[0][1][:1].isupper())
                    found[plausible(span, named)].update(
                        dict.fromkeys(node for node, _ in rows))
        taken = list(found[True])
        return taken, [node for node in found[False] if node not in found[True]]


def name_table(kb, progress: bool = False) -> NameTable:
    """The endpoint KB's name table in its cache folder, streamed from the endpoint the first
    time (what `koplc index URL` builds ahead)."""
    folder = kb.folder or Path(tempfile.mkdtemp(prefix="koplc-endpoint-"))
    return NameTable.open(kb, folder / "names.sqlite", progress)
