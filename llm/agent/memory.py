"""Demonstration dialogs for the agent: replayed from (question, program) pairs on first use,
plus the dialogs people corrected (an append-only JSONL file), retrieved by MiniLM similarity
of the questions with entities masked, as the few-shot front end retrieves its demonstrations.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from koplc.kopl.answering.linking import link_question
from koplc.llm.agent.dialog import Dialog, replay
from koplc.llm.symkgqa.demos import nearest_first, template_key


@dataclass
class Entry:
    """One demonstration: its masked question, its entities, and its dialog (replayed from
    `program` when first needed)."""

    masked: str
    entities: tuple[str, ...]
    question: str
    program: str | None = None
    dialog: Dialog | None = None
    source: str = "pool"  # "pool", "saved", or "searched" (one question's, not kept)


class DialogMemory:
    """The demonstrations of one KB: `pairs` (question, entities, program) and the dialogs
    saved in `saved` (JSONL; created on the first save)."""

    def __init__(self, tools, pairs=(), saved: str | Path | None = None, replays=None):
        from koplc.kopl.grounding.index.embedder import DEFAULT_EMBEDDER

        self.tools, self.embedder = tools, DEFAULT_EMBEDDER
        # (question, program, entities) -> the pool demonstration's dialog replayed on the
        # whole KB, or None: on an endpoint (`replays.EndpointReplays`); else on `tools`
        self.replays = replays
        self.saved = Path(saved) if saved else None
        self.entries = [Entry(masked, tuple(entities), question, program)
                        for question, entities, program, masked in pairs]
        self._lock = threading.Lock()
        if self.saved and self.saved.is_file():
            for line in self.saved.read_text(encoding="utf-8").splitlines():
                try:
                    self._add_saved(Dialog.from_json(json.loads(line)))
                except (ValueError, KeyError, TypeError):
                    continue  # a torn last line from a crash is skipped, not fatal
        self._vectors = None

    @classmethod
    def from_demos(cls, tools, demos, saved=None, replays=None) -> DialogMemory:
        """A memory of few-shot `Demo`s (question, entities, steps, template)."""
        return cls(tools, [(d.question, d.entities, d.program, d.template or d.question)
                           for d in demos], saved, replays)

    @staticmethod
    def of_demos(demos) -> list[Entry]:
        """Entries of `demos` shown for one question only (kept out of the memory)."""
        return [Entry(d.question, tuple(d.entities), d.question, d.program, source="searched")
                for d in demos]

    def _add_saved(self, dialog: Dialog) -> Entry:
        linked = link_question(dialog.question, self.tools.kb)
        entry = Entry(linked.masked(), tuple(linked.entities), dialog.question, None, dialog,
                      "saved")
        self.entries.append(entry)
        self._vectors = None
        return entry

    def save(self, dialog: Dialog) -> None:
        """Append `dialog` (its rejected actions inside) to the saved file, in one write, and
        make it a demonstration for later questions."""
        if self.saved is None:
            return
        line = (json.dumps(dialog.to_json(), ensure_ascii=False) + "\n").encode("utf-8")
        with self._lock:
            self.saved.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.saved, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line)  # one O_APPEND write: no reader sees half a line
                os.fsync(fd)
            finally:
                os.close(fd)
            self._add_saved(dialog)

    def dialog(self, entry: Entry) -> Dialog:
        if entry.dialog is None:
            kept = None
            if self.replays is not None and entry.source == "pool":
                kept = self.replays(entry.question, entry.program, entry.entities)
            entry.dialog = kept or replay(entry.question, entry.program, self.tools)
        return entry.dialog

    def same_template(self, masked: str) -> Entry | None:
        """The newest saved dialog asked exactly like `masked` (entities masked), if any."""
        key = template_key(masked)
        for entry in reversed(self.entries):
            if entry.source == "saved" and template_key(entry.masked) == key:
                return entry
        return None

    def nearest(self, masked: str, n: int = 2) -> list[Entry]:
        """The n entries nearest to `masked`, nearest last."""
        if not self.entries:
            return []
        with self._lock:
            if self._vectors is None or len(self._vectors) != len(self.entries):
                self._vectors = _vectors(self.embedder, tuple(e.masked for e in self.entries))
            vectors = self._vectors
        query = self.embedder.encode_queries([masked])[0]
        order = nearest_first(vectors @ query)
        return [self.entries[i] for i in order[:n]][::-1]


# The vectors of the last few memories' questions, for the process: on an endpoint each
# question's fragment gets a memory of its own, of the same pool (300 questions: 4.6 s).
@lru_cache(maxsize=4)
def _vectors(embedder, texts: tuple[str, ...]) -> np.ndarray:
    return np.asarray(embedder.encode(list(texts)), dtype=np.float32)
