"""The agent's demonstration dialogs on a KB that lives in an endpoint.

A demonstration is shown as the dialog that writes its program, replayed through the tools
(`dialog.replay`). On an endpoint each question is compiled on a fragment around what it
names, where a demonstration about other entities finds nothing: its dialog would read
otherwise than on the whole KB, and so would the LM's next turn. `EndpointReplays` replays
each demonstration once per endpoint, on a fragment around its own entities (as the question
is answered on one around its own), and keeps the dialog for every later question.
"""

from __future__ import annotations

import threading

from koplc.kopl.kb.access import whole_of
from koplc.kopl.kb.memo import per_kb
from koplc.llm.agent.dialog import Dialog, replay
from koplc.llm.agent.tools import Tools
from koplc.sparql_backend.fragments import fragment_of
from koplc.sparql_backend.name_table import name_table

HOPS = 3  # a demonstration's program reads at most three hops from its entities


class EndpointReplays:
    """Replayed dialogs of demonstrations on one endpoint KB, keyed by question and program;
    their tools run programs with the executor's `options`."""

    def __init__(self, endpoint, options):
        self.endpoint, self.options = endpoint, options
        self.table = name_table(endpoint)
        self.done: dict[tuple[str, str], Dialog] = {}
        self._lock = threading.Lock()

    def __call__(self, question: str, program: str, entities: tuple[str, ...]) -> Dialog | None:
        """The dialog of the demonstration; None when it names no entity (it is replayed on
        the question's own fragment then)."""
        key = (question, program)
        with self._lock:
            if key not in self.done:
                seeds = self.seeds(entities)
                if not seeds:
                    return None
                fragment = fragment_of(self.endpoint, seeds, hops=HOPS)
                self.done[key] = replay(question, program, Tools(fragment, options=self.options))
            return self.done[key]

    def seeds(self, entities: tuple[str, ...]) -> list[str]:
        """The IRIs of the entities of these names (every one so named, as Find takes)."""
        node = self.endpoint.encoding.node
        iris = []
        for name in entities:
            rows = self.table.lookup(name, limit=100)
            iris += [node(i) for i, n in rows if n == name] or [node(i) for i, _ in rows]
        return list(dict.fromkeys(iris))


def endpoint_replays(kb, options) -> EndpointReplays | None:
    """The replays of the endpoint KB that `kb` is a fragment of, with tools that run
    programs with `options`; None for a whole KB."""
    whole = whole_of(kb)
    return None if whole is None else _replays(whole, options)


@per_kb(maxsize=2)
def _replays(endpoint, options) -> EndpointReplays:
    return EndpointReplays(endpoint, options)
