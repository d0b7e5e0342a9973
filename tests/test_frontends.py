"""The front-end registry's wrapper (koplc.frontends.WithSparql): what every front end reached
by name shares, besides the SPARQL of its programs."""

from __future__ import annotations

import gc

from koplc import frontends
from koplc.kopl.frontend import Compiled


class _Quiet:
    """A front end that finds nothing (the wrapper's own behaviour is under test)."""

    name, ranking = "quiet", "none"

    def compile(self, question, kb):
        return Compiled(question, self.name, failure="empty")


def test_the_first_question_sets_what_the_process_holds_aside_from_collections(monkeypatch):
    monkeypatch.setattr(frontends, "_settled", False)
    calls = []
    real_freeze = gc.freeze
    monkeypatch.setattr(gc, "freeze", lambda: (calls.append(1), real_freeze()))
    wrapped = frontends.WithSparql(_Quiet())
    before = gc.get_freeze_count()
    wrapped.compile("Who directed Blade Runner?", kb=None)
    assert gc.get_freeze_count() > before  # the objects the first question left set aside
    wrapped.compile("Who wrote Blade Runner?", kb=None)
    # once a process only (the count itself may fall: a frozen object can still be freed)
    assert len(calls) == 1
