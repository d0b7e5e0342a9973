"""The front-end registry: `--frontend` names to the modules that open them.

A front end is one module with an `open_frontend(settings) -> FrontEnd` function
(koplc.kopl.frontend) plus one line here. Modules load on first use, so torch or llama.cpp load
only for the front end asked for. Every front end reached through `open_frontend` has its
programs lowered to SPARQL here, in one place (gnn/ may not import the SPARQL backend).
"""

from __future__ import annotations

import gc
import time
from dataclasses import replace
from importlib import import_module

from koplc.kopl.errors import KoplcError, LoweringError, UnsupportedConstruct
from koplc.kopl.frontend import Compiled, FrontEnd, Settings
from koplc.kopl.ir import Node

FRONTENDS = {
    "llm": "koplc.llm.symkgqa.frontend",
    "gnn": "koplc.gnn.frontend",
    "agent": "koplc.llm.agent.frontend",
    "byokg": "koplc.llm.byokg.reasoner",
}


def open_frontend(name: str, settings: Settings | None = None) -> FrontEnd:
    """The front end called `name`, opened with `settings`, its programs lowered to SPARQL."""
    if name not in FRONTENDS:
        raise KoplcError(f"unknown front end {name!r}; choose one of {', '.join(FRONTENDS)}",
                         code="usage")
    opened = import_module(FRONTENDS[name]).open_frontend(settings or Settings())
    return WithSparql(opened)


class WithSparql:
    """A front end whose Compiled results carry the SPARQL of the program that ran."""

    def __init__(self, inner: FrontEnd):
        self.inner = inner
        self.name, self.ranking = inner.name, inner.ranking
        self.execution = getattr(inner, "execution", None)  # the executor options it means

    def compile(self, question: str, kb) -> Compiled:
        compiled = self.inner.compile(question, kb)
        settle()
        if compiled.final is None or compiled.sparql is not None:
            return compiled
        clock = time.perf_counter()
        sparql, reason = lower_sparql(compiled.final)
        seconds = {**compiled.seconds, "lowering": time.perf_counter() - clock}
        return replace(compiled, sparql=sparql, no_sparql=reason, seconds=seconds)


_settled = False


def settle() -> None:
    """Once a process, after its first question (the models and indexes it needs loaded):
    collect garbage and set what the process then holds aside from later collections
    (`gc.freeze`). A full collection walks every object the process holds, over a million
    once MiniLM and a name table are loaded, and the objects a question makes (an endpoint
    fragment's rows and KB, a search's programs) set off several: at 10^8 triples they took
    2.0 s of a fragment's 2.4 s (0.4 s with collections off). Once only: what is set aside
    is never collected, and what a long run drops later may be part of a cycle."""
    global _settled
    if not _settled:
        _settled = True
        gc.collect()
        gc.freeze()


def lower_sparql(program: Node) -> tuple[str | None, str | None]:
    """(the SPARQL of `program`, None), or (None, why it has none)."""
    from koplc.sparql_backend.lower import lower

    try:
        return lower(program).text(), None
    except (LoweringError, UnsupportedConstruct) as err:
        return None, err.render()
