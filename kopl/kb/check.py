"""Check a program's names against a KB: warnings, not errors, because the engine answers a
program with unknown names (usually with an empty answer); grounding repairs them."""

from __future__ import annotations

import difflib

from koplc.kopl.diagnostics import Diagnostic, Severity
from koplc.kopl.ir import Node
from koplc.kopl.kb.memo import per_kb
from koplc.kopl.kb.model import KB
from koplc.kopl.program import SourceMap
from koplc.kopl.types import ArgKind

_WHAT = {ArgKind.ENTITY: "entity or concept name", ArgKind.CONCEPT: "concept",
         ArgKind.RELATION: "relation", ArgKind.ATTRIBUTE: "attribute key",
         ArgKind.QUALIFIER: "qualifier key", ArgKind.ENTITY_ID: "entity id"}


@per_kb()
def _vocabulary(kb: KB, kind: ArgKind) -> frozenset[str]:
    if kind is ArgKind.ENTITY:
        return frozenset(kb.name_to_nodes)
    if kind is ArgKind.CONCEPT:
        return frozenset(kb.concept_names())
    if kind is ArgKind.RELATION:
        return frozenset(kb.relation_names)
    if kind is ArgKind.ATTRIBUTE:
        return frozenset(kb.attr_index) | frozenset(kb.key_type)
    if kind is ArgKind.QUALIFIER:
        return frozenset(kb.qualifier_keys)
    return frozenset(kb.id_to_node)


def check_against_kb(program: Node, kb: KB, source_map: SourceMap | None = None
                     ) -> list[Diagnostic]:
    """A warning for every name the KB lacks, with the closest KB name as a hint.

    >>> from koplc.kopl.ir import Find
    >>> from koplc.kopl.kb.model import KBBuilder
    >>> builder = KBBuilder(); builder.add_entity("Q1", "Akron", [])
    >>> check_against_kb(Find(name="Akorn"), builder.build())[0].message
    "no entity or concept name 'Akorn' in the KB; did you mean 'Akron'?"
    """
    found: list[Diagnostic] = []
    for path, node in program.walk():
        for field, kind in type(node).arg_fields():
            value = getattr(node, field)
            names = [hop.relation for hop in value] if kind is ArgKind.PATH else [value]
            kind = ArgKind.RELATION if kind is ArgKind.PATH else kind
            if kind not in _WHAT:
                continue
            vocabulary = _vocabulary(kb, kind)
            for name in names:
                if name in vocabulary:
                    continue
                message = f"no {_WHAT[kind]} {name!r} in the KB"
                close = difflib.get_close_matches(name, vocabulary, n=1, cutoff=0.75)
                if close:
                    message += f"; did you mean {close[0]!r}?"
                span = source_map.arg(path, field) if source_map else None
                found.append(Diagnostic(f"unknown-{kind.name.lower().replace('_', '-')}",
                                        message, span, Severity.WARNING))
    return found
