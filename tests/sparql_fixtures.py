"""Shared pieces of the SPARQL backend tests: KB stores loaded once per session, and running a
program natively and through SPARQL with one notion of "same answer".

The test KBs go into the encoding that can represent them: the example KBs into the KQA Pro
encoding (they store facts one way only, with qualifiers), MetaQA into plain triples.
"""

from __future__ import annotations

import pytest

from kb_fixtures import EXAMPLE_KB, EXAMPLE_KB_EXT, METAQA_KB
from koplc.kopl.answer import Answer
from koplc.kopl.errors import ExecutionError, LoweringError
from koplc.kopl.execution.executor import DEFAULT, ExecOptions, execute
from koplc.kopl.ir import Node
from koplc.kopl.kb.model import KB
from koplc.sparql_backend.encodings import ENCODINGS, encoding_named
from koplc.sparql_backend.export import ntriples
from koplc.sparql_backend.lower import lower
from koplc.sparql_backend.results import run_lowered, units_in
from koplc.sparql_backend.stores import OxigraphStore

ENCODING_OF = {EXAMPLE_KB: "kqapro", EXAMPLE_KB_EXT: "kqapro", METAQA_KB: "plain"}


def load_store(kb: KB, encoding: str) -> OxigraphStore:
    store = OxigraphStore()
    store.load_ntriples("".join(ntriples(kb, ENCODINGS[encoding])).encode())
    return store


@pytest.fixture(scope="session", name="oxigraph_for")
def oxigraph_for_fixture(kb_for):
    """oxigraph_for(kb path[, encoding]) -> an in-memory pyoxigraph store holding that KB."""
    stores: dict[tuple[str, str], OxigraphStore] = {}

    def get(relative: str, encoding: str | None = None) -> OxigraphStore:
        key = (relative, encoding or ENCODING_OF[relative])
        if key not in stores:
            stores[key] = load_store(kb_for(relative), key[1])
        return stores[key]

    return get


def native(program: Node, kb: KB, options: ExecOptions = DEFAULT) -> Answer | None:
    """The executor's answer, or None where it raises."""
    try:
        return execute(program, kb, options)
    except ExecutionError:
        return None


def through_sparql(program: Node, store, encoding: str,
                   options: ExecOptions = DEFAULT) -> Answer | None:
    """The SPARQL backend's answer, or None where lowering or a guard refuses the program
    (any other error, a BackendError included, propagates)."""
    units = units_in(store, encoding_named(encoding)) if options.unit_conversion else None
    try:
        lowered = lower(program, encoding, options, units)
    except LoweringError:
        return None
    try:
        return run_lowered(lowered, store)
    except ExecutionError:
        return None


def same(a: Answer | None, b: Answer | None) -> bool:
    """Both refused, or equal answers (lists as multisets, entity sets by their ids)."""
    if a is None or b is None:
        return a is None and b is None
    return a.same_as(b)


def canonical_facts(answer: Answer | None) -> list[str] | None:
    """An entity answer's (id, fact) pairs, order-free, qualifier keys and values sorted."""
    if answer is None or not answer.is_entities or answer.facts is None:
        return None
    out = []
    for entity, fact in zip(answer.entity_ids, answer.facts, strict=True):
        qualifiers = {k: sorted(v) for k, v in sorted(fact["qualifiers"].items())}
        out.append(repr((entity, sorted({**fact, "qualifiers": qualifiers}.items()))))
    return sorted(out)
