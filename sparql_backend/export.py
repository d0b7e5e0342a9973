"""Write a KB as N-Triples in one of the encodings; refuse what the encoding cannot say.

Lines come out in node order and are deterministic. `write_ntriples` writes to a temporary file
beside the target and renames it into place, so a reader never sees half a file.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from koplc.kopl.atomic import atomic_file
from koplc.kopl.errors import KBError
from koplc.kopl.kb.model import KB
from koplc.kopl.values import DATE, QUANTITY, STRING, YEAR, Value
from koplc.sparql_backend.encodings import (
    ATTRIBUTE,
    BACKWARD,
    FORWARD,
    KEY_TYPE,
    RECORD,
    Encoding,
)
from koplc.sparql_backend.terms import XSD, double_text, gyear_text, iri, nt_string
from koplc.sparql_backend.wikidata_export import property_iris, wikidata_ntriples


def ntriples(kb: KB, encoding: Encoding) -> Iterator[str]:
    """The KB's N-Triples lines (each ending in a newline); KBError if the encoding cannot
    represent it."""
    check_exportable(kb, encoding)
    if encoding.statements:
        yield from wikidata_ntriples(kb, encoding)
        return
    writer = _Writer(kb, encoding)
    for n in kb.all_nodes:
        yield from writer.node(n)
    for key, kind in sorted(kb.key_type.items()):
        yield f"{iri(encoding.key(key))} <{KEY_TYPE}> {nt_string(kind)} .\n"


def write_ntriples(kb: KB, encoding: Encoding, path: str | Path) -> int:
    """Write the KB to `path` atomically; returns the number of triples written."""
    count = 0
    with atomic_file(path) as out:
        for line in ntriples(kb, encoding):
            out.write(line)
            count += 1
    return count


def node_iris(kb: KB, encoding: Encoding) -> list[str]:
    """Each node's IRI, by node number."""
    if not encoding.concepts_by_name:
        return [encoding.node(i) for i in kb.ids]
    return [encoding.node(kb.names[n] if kb.is_concept(n) else kb.ids[n]) for n in kb.all_nodes]


def check_exportable(kb: KB, encoding: Encoding) -> None:
    """Raise KBError naming the first thing the encoding cannot represent."""
    iris = node_iris(kb, encoding)
    if len(set(iris)) != len(iris):
        twice = next(i for i, c in Counter(iris).items() if c > 1)
        raise _refuse(encoding, f"two nodes would share the IRI {twice}")
    if encoding.concepts_by_name:
        for c in range(kb.n_concepts):
            if kb.ids[c] != kb.names[c]:
                raise _refuse(encoding, f"concept {kb.ids[c]!r} is named {kb.names[c]!r}; classes "
                              "are identified by name, so a concept's id must be its name")
    if not encoding.value_nodes:
        _check_literal_values(kb, encoding)
    if not encoding.reified:
        _check_plain_facts(kb, encoding)
    if encoding.statements:
        taken = set(iris) & set(property_iris(kb, encoding).values())
        if taken:
            raise _refuse(encoding, f"a node and a property would share the IRI {min(taken)}")


def _check_literal_values(kb: KB, encoding: Encoding) -> None:
    for n in kb.all_nodes:
        facts = [*kb.attributes[n], *kb.relations[n]]
        for fact in facts:
            values = [fact[1]] if len(fact) == 3 else []
            for key, qvalues in fact[-1].items():
                values += qvalues
                if len(set(qvalues)) != len(qvalues):
                    raise _refuse(encoding, f"{kb.ids[n]!r} repeats a value of qualifier {key!r}; "
                                  "literals cannot be told apart")
            for value in values:
                if value.type == QUANTITY and value.unit != "1":
                    raise _refuse(encoding, f"{kb.ids[n]!r} has a quantity in {value.unit!r}; "
                                  "typed literals carry no unit")


def _check_plain_facts(kb: KB, encoding: Encoding) -> None:
    forward: Counter = Counter()
    backward: Counter = Counter()
    for n in kb.all_nodes:
        for fact in (*kb.attributes[n], *kb.relations[n]):
            if fact[-1]:
                raise _refuse(encoding, f"{kb.ids[n]!r} has a fact with qualifiers")
        for subject, relation, direction, obj, _ in kb.relations[n]:
            if direction == "forward":
                forward[(subject, relation, obj)] += 1
            else:
                backward[(obj, relation, subject)] += 1
    if forward != backward:
        s, r, o = next(iter((forward - backward) or (backward - forward)))
        raise _refuse(encoding, f"the fact {kb.ids[s]!r} {r!r} {kb.ids[o]!r} is not stored both "
                      "forward and backward; plain triples cannot say where a fact is stored")
    if forward and max(forward.values()) > 1:
        s, r, o = next(k for k, c in forward.items() if c > 1)
        raise _refuse(encoding, f"the fact {kb.ids[s]!r} {r!r} {kb.ids[o]!r} is stored twice")


def _refuse(encoding: Encoding, message: str) -> KBError:
    return KBError(f"the {encoding.name} encoding cannot represent this KB: {message}; "
                   "use the kqapro encoding", code="kb-export")


class _Writer:
    """Writes one node's triples at a time; numbers blank value nodes and fact nodes."""

    def __init__(self, kb: KB, encoding: Encoding):
        self.kb, self.e = kb, encoding
        self.iris = [iri(t) for t in node_iris(kb, encoding)]
        self.values = 0
        self.facts = 0
        e = encoding
        self.name, self.type = iri(e.name_predicate), iri(e.type_predicate)
        self.fact_h, self.fact_r, self.fact_t = iri(e.fact_h), iri(e.fact_r), iri(e.fact_t)
        self.record = iri(RECORD)

    def node(self, n: int) -> Iterator[str]:
        kb, e, me = self.kb, self.e, self.iris[n]
        name = nt_string(kb.names[n]) + (f"@{e.name_lang}" if e.name_lang else "")
        yield f"{me} {self.name} {name} .\n"
        for a in sorted(kb.ancestors(n)):
            yield f"{me} {self.type} {self.iris[a]} .\n"
        if kb.is_concept(n):
            yield f"{me} {self.type} {iri(e.concept_marker)} .\n"
        for key, value, qualifiers in kb.attributes[n]:
            term, lines = self.value(value)
            yield from lines
            yield f"{me} {iri(e.key(key))} {term} .\n"
            if e.reified:
                yield from self.fact(me, iri(e.key(key)), term, ATTRIBUTE, qualifiers)
        for _, relation, direction, obj, qualifiers in kb.relations[n]:
            forward = direction == "forward"
            head, tail = (me, self.iris[obj]) if forward else (self.iris[obj], me)
            if forward or (e.reified and not self.mirrored(obj, relation, n)):
                yield f"{head} {iri(e.relation(relation))} {tail} .\n"
            if e.reified:
                yield from self.fact(head, iri(e.relation(relation)), tail,
                                     FORWARD if forward else BACKWARD, qualifiers)

    def mirrored(self, subject: int, relation: str, obj: int) -> bool:
        """Whether a forward record of the fact exists (its triple is written there)."""
        return any(f[1] == relation for f in self.kb.forward_pairs.get(subject, {}).get(obj, ()))

    def fact(self, head: str, predicate: str, tail: str, record: str,
             qualifiers: dict) -> Iterator[str]:
        self.facts += 1
        me = iri(self.e.fact_iri(self.facts))
        yield f"{me} {self.fact_h} {head} .\n"
        yield f"{me} {self.fact_r} {predicate} .\n"
        yield f"{me} {self.fact_t} {tail} .\n"
        yield f"{me} {self.record} <{record}> .\n"
        for key, values in qualifiers.items():
            for value in values:
                term, lines = self.value(value)
                yield from lines
                yield f"{me} {iri(self.e.key(key))} {term} .\n"

    def value(self, value: Value) -> tuple[str, list[str]]:
        """The term standing for a value, and the lines describing it (for a value node)."""
        if not self.e.value_nodes:
            return literal(value), []
        self.values += 1
        me, e = f"_:v{self.values}", self.e
        if value.type == STRING:
            return me, [f"{me} {iri(e.value)} {nt_string(value.value)} .\n"]
        if value.type == QUANTITY:
            number = f'"{double_text(float(value.value))}"^^<{XSD}double>'
            return me, [f"{me} {iri(e.value)} {number} .\n",
                        f"{me} {iri(e.unit)} {nt_string(value.unit)} .\n"]
        year = f'"{value.year}"^^<{XSD}integer>'
        lines = [f"{me} {iri(e.year)} {year} .\n", f"{me} {iri(e.time)} {literal(value)} .\n"]
        if value.type == DATE:
            lines.append(f'{me} {iri(e.date)} "{value.value.isoformat()}"^^<{XSD}date> .\n')
        return me, lines


def literal(value: Value) -> str:
    """A value as a typed literal (the Freebase encoding's form)."""
    if value.type == STRING:
        return nt_string(value.value)
    if value.type == QUANTITY:
        return f'"{double_text(float(value.value))}"^^<{XSD}double>'
    if value.type == YEAR:
        return f'"{gyear_text(value.value)}"^^<{XSD}gYear>'
    return f'"{value.value.isoformat()}"^^<{XSD}date>'
