"""Injection safety: names, ids, keys, units and values full of quotes, backslashes, line breaks,
`>`, `}`, `#`, percent signs and SPARQL keywords are escaped or percent-encoded, in the exported
N-Triples and in lowered queries. Hypothesis builds small KBs and programs from such strings;
every export loads, every lowered query parses, and the answers are exactly the executor's (so
nothing comes back that the executor would not return)."""

from __future__ import annotations

import pyoxigraph
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from budget import examples
from koplc.kopl import ir
from koplc.kopl.kb.model import KBBuilder
from koplc.kopl.values import QUANTITY, STRING, Value
from koplc.sparql_backend.encodings import ENCODINGS, KQAPRO
from koplc.sparql_backend.export import ntriples
from koplc.sparql_backend.lower import lower
from koplc.sparql_backend.terms import local_name, name_of, string
from sparql_fixtures import native, same, through_sparql

NASTY = ['"', "'", "\\", "\\\\", "\n", "\r", "\t", ">", "<", "}", "{", "#", " ", "_", "%",
         "%20", "%5F", "?x", "$y", ".", ";", ",", "^^", "@en", "SELECT", "WHERE", "FILTER",
         "UNION", "} UNION { ?s ?p ?o", '" . } # ', "\\u0022", "\\n", "é", "中", "\x00",
         "\x7f", "\u2028", "~fact/1", "a b"]
PIECES = st.one_of(st.sampled_from(NASTY), st.text(max_size=3))
NAMES = st.lists(PIECES, min_size=1, max_size=5).map("".join)


@st.composite
def nasty_kbs(draw, qualifiers: bool):
    """A small KB whose every name is drawn from NASTY, plus the names themselves."""
    names = draw(st.lists(NAMES, min_size=8, max_size=8))
    concept, relation, key, unit, value, qkey, qvalue, other = names
    builder = KBBuilder("nasty")
    builder.add_concept(concept, concept, [])
    entity_names = draw(st.lists(NAMES, min_size=3, max_size=3))
    ids = [f"E{i}{n}" for i, n in enumerate(entity_names)]
    for eid, name in zip(ids, entity_names, strict=True):
        builder.add_entity(eid, name, [concept] if eid != ids[2] else [])
    builder.add_attribute(ids[0], key, Value(STRING, value))
    builder.add_attribute(ids[1], key, Value(QUANTITY, 5.0, unit if qualifiers else "1"))
    extra = {qkey: (Value(STRING, qvalue),)} if qualifiers else {}
    builder.add_relation(ids[0], relation, "forward", ids[1], extra)
    builder.add_relation(ids[1], relation, "backward", ids[0], extra)
    kb = builder.build()
    return kb, {"concept": concept, "relation": relation, "key": key, "unit": unit,
                "value": value, "qkey": qkey, "qvalue": qvalue, "other": other,
                "names": entity_names}


def programs(v: dict, draw) -> list[ir.Node]:
    """Programs over the KB's nasty names (and one name it lacks)."""
    name = draw(st.sampled_from([*v["names"], v["other"]]))
    find = ir.Find(name=name)
    related = ir.Relate(input=ir.FindAll(), relation=v["relation"], direction="forward")
    unit = "" if v["unit"] == "1" else f" {v['unit']}"
    return [
        ir.QueryName(input=find),
        ir.QueryName(input=ir.FilterConcept(input=ir.FindAll(), concept=v["concept"])),
        ir.Count(input=ir.FilterStr(input=ir.FindAll(), key=v["key"], value=v["value"])),
        ir.QueryName(input=ir.FilterNum(input=ir.FindAll(), key=v["key"], value=f"5{unit}",
                                        comparator="=")),
        ir.QueryName(input=related),
        related,
        ir.QueryName(input=ir.QFilterStr(input=related, qkey=v["qkey"], qvalue=v["qvalue"])),
        ir.QueryAttr(input=ir.FindAll(), key=v["key"]),
        ir.QueryRelation(left=ir.FindAll(), right=find),
        ir.VerifyStr(input=ir.QueryAttr(input=find, key=v["key"]), value=v["value"]),
        ir.QueryAttrUnderCondition(input=ir.FindAll(), key=v["key"], qkey=v["qkey"],
                                   qvalue=v["qvalue"]),
        ir.Count(input=ir.Entity(id=draw(st.sampled_from(["E0" + v["names"][0], v["other"]])))),
    ]


def check(kb, v, encoding: str, draw) -> None:
    store_data = "".join(ntriples(kb, ENCODINGS[encoding])).encode()
    from koplc.sparql_backend.stores import OxigraphStore

    store = OxigraphStore()
    store.load_ntriples(store_data)
    for program in programs(v, draw):
        expected = native(program, kb)
        got = through_sparql(program, store, encoding)
        assert same(expected, got), (encoding, program, expected, got)


@settings(max_examples=examples(60), deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.data())
def test_nasty_names_round_trip_in_every_encoding(data):
    kb, v = data.draw(nasty_kbs(qualifiers=False))
    for encoding in sorted(ENCODINGS):
        check(kb, v, encoding, data.draw)


@settings(max_examples=examples(60), deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.data())
def test_nasty_units_and_qualifiers_round_trip_in_the_kqapro_encoding(data):
    kb, v = data.draw(nasty_kbs(qualifiers=True))
    check(kb, v, "kqapro", data.draw)


@settings(max_examples=examples(200), deadline=None, derandomize=True, database=None)
@given(NAMES)
def test_every_lowered_query_parses_whatever_the_names(text):
    store = pyoxigraph.Store()
    program = ir.QueryName(input=ir.FilterStr(
        input=ir.FilterConcept(input=ir.Relate(input=ir.Find(name=text), relation=text,
                                               direction="backward"), concept=text),
        key=text, value=text))
    for encoding in ENCODINGS:
        lowered = lower(program, encoding)
        assert list(store.query(lowered.query)) == []


@settings(max_examples=examples(300), deadline=None, derandomize=True, database=None)
@given(NAMES)
def test_iri_local_names_are_injective_and_safe(text):
    for underscores in (False, True):
        encoded = local_name(text, underscores)
        assert name_of(encoded, underscores) == text
        assert not set(encoded) & set('<>"{}|^`\\ #\n\r\t')
    assert pyoxigraph.Literal(text) == next(iter(pyoxigraph.Store().query(
        f"SELECT ?v WHERE {{ BIND({string(text)} AS ?v) }}")))["v"]


def test_keywords_in_names_stay_inside_their_literal():
    text = '"} UNION { ?s ?p ?o } #'
    query = lower(ir.Count(input=ir.Find(name=text)), KQAPRO).query
    assert '"\\"} UNION { ?s ?p ?o } #"' in query
    assert query.count("UNION") == 1


@pytest.mark.parametrize("name", ["a_b", "a b", "a%5Fb", "a/b", "~fact/1"])
def test_underscore_and_space_stay_distinct_in_kqapro_iris(name):
    assert KQAPRO.relation_name(KQAPRO.relation(name)) == name
    assert len({KQAPRO.relation(n) for n in ["a_b", "a b", "a%5Fb"]}) == 3
