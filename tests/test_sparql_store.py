"""RDF export and the embedded store: exports are valid N-Triples written atomically, each
encoding refuses the KBs it cannot represent, and a persistent pyoxigraph store is loaded once
and reopened without reloading."""

from __future__ import annotations

import gc
import shutil

import pytest

from kb_fixtures import EXAMPLE_KB, EXAMPLE_KB_EXT, METAQA_KB, kb_for_fixture, kb_path  # noqa: F401
from koplc.kopl.errors import KBError
from koplc.kopl.ir import Count, FilterConcept, FindAll
from koplc.kopl.kb.kopl_json import kb_to_json
from koplc.kopl.kb.model import KBBuilder
from koplc.kopl.values import QUANTITY, Value
from koplc.sparql_backend.encodings import ENCODINGS, FREEBASE, KQAPRO, PLAIN
from koplc.sparql_backend.export import write_ntriples
from koplc.sparql_backend.lower import lower
from koplc.sparql_backend.results import run_lowered
from koplc.sparql_backend.stores import RECORD_FILE, OxigraphStore, open_kb_store

COUNT_ATHLETES = Count(input=FilterConcept(input=FindAll(), concept="athlete"))


@pytest.mark.parametrize("kb_path, encoding", [
    (EXAMPLE_KB, "kqapro"), (EXAMPLE_KB_EXT, "kqapro"),
    pytest.param(METAQA_KB, "plain", marks=pytest.mark.whole_kb),
    pytest.param(METAQA_KB, "kqapro", marks=pytest.mark.whole_kb)])
def test_exports_are_n_triples_pyoxigraph_loads(kb_path, encoding, kb_for, tmp_path):
    out = tmp_path / "kb.nt"
    count = write_ntriples(kb_for(kb_path), ENCODINGS[encoding], out)
    store = OxigraphStore()
    store.load_ntriples(out)
    assert 0 < len(store) <= count
    assert [p.name for p in tmp_path.iterdir()] == ["kb.nt"]


def small_kb(one_way: bool = False, unit: str = "1", concept_id: str = "music.album"):
    builder = KBBuilder("small")
    builder.add_concept(concept_id, "music.album", [])
    builder.add_entity("m.a", "A", [concept_id])
    builder.add_entity("m.b", "B", [])
    builder.add_attribute("m.a", "music.album.length", Value(QUANTITY, 40.0, unit))
    builder.add_relation("m.a", "music.album.artist", "forward", "m.b")
    if not one_way:
        builder.add_relation("m.b", "music.album.artist", "backward", "m.a")
    return builder.build()


def test_plain_triples_refuse_a_kb_whose_facts_are_stored_one_way(tmp_path):
    out = tmp_path / "kb.nt"
    out.write_text("old\n")
    with pytest.raises(KBError, match="plain encoding cannot represent .* 'm.a' "
                       "'music.album.artist' 'm.b' is not stored both forward and backward"):
        write_ntriples(small_kb(one_way=True), PLAIN, out)
    assert out.read_text() == "old\n" and len(list(tmp_path.iterdir())) == 1
    write_ntriples(small_kb(), PLAIN, out)


def test_plain_triples_refuse_qualifiers(kb_for, tmp_path):
    with pytest.raises(KBError, match="has a fact with qualifiers"):
        write_ntriples(kb_for(EXAMPLE_KB), PLAIN, tmp_path / "kb.nt")


def test_freebase_literals_refuse_units_and_classes_named_apart_from_their_id(tmp_path):
    write_ntriples(small_kb(), FREEBASE, tmp_path / "kb.nt")
    with pytest.raises(KBError, match="quantity in 'minute'; typed literals carry no unit"):
        write_ntriples(small_kb(unit="minute"), FREEBASE, tmp_path / "kb.nt")
    with pytest.raises(KBError, match="a concept's id must be its name"):
        write_ntriples(small_kb(concept_id="C1"), FREEBASE, tmp_path / "kb.nt")


def test_a_persistent_store_is_loaded_once_and_reopened_as_it_is(tmp_path):
    source = tmp_path / "kb.json"
    shutil.copy(kb_path(EXAMPLE_KB), source)
    folder = tmp_path / "store"
    store, loaded = open_kb_store(source, KQAPRO, folder)
    assert loaded
    first = run_lowered(lower(COUNT_ATHLETES), store)
    record = (folder / RECORD_FILE).stat().st_mtime_ns
    del store
    gc.collect()
    store, loaded = open_kb_store(source, KQAPRO, folder)
    assert not loaded and (folder / RECORD_FILE).stat().st_mtime_ns == record
    assert run_lowered(lower(COUNT_ATHLETES), store) == first
    del store
    gc.collect()
    source.write_text(source.read_text().replace("LeBron James Jr.", "Bronny James"))
    store, loaded = open_kb_store(source, KQAPRO, folder)
    assert loaded
    del store
    gc.collect()
    store, loaded = open_kb_store(source, KQAPRO, folder)
    assert not loaded


def test_a_store_directory_changes_when_the_encoding_does(tmp_path):
    source = tmp_path / "small.json"
    source.write_text(kb_to_json(small_kb()))
    for encoding, loaded_before in ((PLAIN, False), (PLAIN, True), (KQAPRO, False)):
        store, loaded = open_kb_store(source, encoding, tmp_path / "store")
        assert loaded is not loaded_before
        assert run_lowered(lower(Count(input=FindAll()), encoding), store).value == "3"
        del store
        gc.collect()
