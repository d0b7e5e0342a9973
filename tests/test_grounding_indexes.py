"""The name indexes: built, saved atomically beside the KB (or in a cache folder), reloaded
without the model, rebuilt when the KB's names change or a file is missing or damaged."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from grounding_fixtures import GEO_KB, context, geo_fixture  # noqa: F401 - the geo fixture
from koplc import api
from koplc.kopl.errors import GroundingError
from koplc.kopl.grounding.driver import ground
from koplc.kopl.grounding.embedder import Embedder
from koplc.kopl.grounding.index_store import index_folders, load_index
from koplc.kopl.grounding.indexes import Indexes, require_names
from koplc.kopl.kb_cache import load_kb
from koplc.kopl.types import ArgKind

RELATIONS = {ArgKind.RELATION: ["located in", "capital of", "country of citizenship"]}


class NoModel(Embedder):
    """An embedder that fails if asked to embed: proves a code path never loads the model."""

    def encode(self, texts, batch_size=256):
        if texts:
            raise AssertionError(f"the model was asked to embed {texts}")
        return super().encode(texts)


@pytest.fixture
def kb_copy(tmp_path, monkeypatch):
    monkeypatch.setenv("KOPLC_CACHE_DIR", str(tmp_path / "user-cache"))
    path = tmp_path / "kb" / "geo_kb.json"
    path.parent.mkdir()
    shutil.copy(GEO_KB, path)
    return path


def test_the_index_lives_beside_the_kb_and_reloads_without_the_model(kb_copy):
    report = api.build_index(kb_copy)
    folder = kb_copy.with_name(kb_copy.name + ".koplc-index")
    assert report.folder == folder and set(report.rebuilt) == {
        "entities", "concepts", "relations", "attributes", "qualifiers"}
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]  # no temporary files
    again = api.build_index(kb_copy)
    assert again.rebuilt == [] and again.counts == report.counts and again.bytes > 0
    indexes = Indexes.for_kb(load_kb(kb_copy), kb_copy, embedder=NoModel())
    assert indexes.get(ArgKind.ENTITY).names[:2] == ["Berlin", "France"]


def test_grounding_exact_names_never_loads_the_model(geo, tmp_path):
    kb, built = geo
    indexes = Indexes.for_kb(kb, folder=built.folders[0], embedder=NoModel())
    text = "QueryName(Relate(Find('Paris'), 'located in', 'forward'))"
    grounded = ground(api.parse(text).program, context((kb, indexes)))
    assert grounded.program == api.parse(text).program


def test_a_read_only_kb_folder_falls_back_to_the_cache_folder(kb_copy):
    kb_copy.parent.chmod(0o555)
    try:
        report = api.build_index(kb_copy)
    finally:
        kb_copy.parent.chmod(0o755)
    assert report.folder == index_folders(kb_copy)[1]
    assert not kb_copy.with_name(kb_copy.name + ".koplc-index").exists()


def test_a_changed_kb_rebuilds_only_what_changed(kb_copy):
    api.build_index(kb_copy)
    kb_copy.write_text(kb_copy.read_text().replace('"Seine"', '"Loire"'))
    report = api.build_index(kb_copy)
    assert report.rebuilt == ["entities"]
    indexes = Indexes.for_kb(load_kb(kb_copy), kb_copy, embedder=NoModel())
    assert "Loire" in indexes.get(ArgKind.ENTITY).names
    stale = sorted(p.name for p in report.folder.glob("entities.*.hnsw"))
    assert len(stale) == 1  # the old vectors are gone


@pytest.mark.parametrize("damage", ["truncate hnsw", "garbage hnsw", "delete hnsw",
                                    "garbage json", "delete json", "bad names"])
def test_a_damaged_index_is_rebuilt(tmp_path, damage):
    Indexes.from_names(RELATIONS, tmp_path).build_all()
    hnsw = next(tmp_path.glob("relations.*.hnsw"))
    meta = tmp_path / "relations.json"
    if damage == "truncate hnsw":
        hnsw.write_bytes(hnsw.read_bytes()[:100])
    elif damage == "garbage hnsw":
        hnsw.write_bytes(b"\xff" * hnsw.stat().st_size)
    elif damage == "delete hnsw":
        hnsw.unlink()
    elif damage == "garbage json":
        meta.write_text("{not json")
    elif damage == "delete json":
        meta.unlink()
    else:
        data = json.loads(meta.read_text())
        data["names"] = ["something else"]
        meta.write_text(json.dumps(data))
    assert load_index(tmp_path, "relations") is None
    report = Indexes.from_names(RELATIONS, tmp_path).build_all()
    assert report.rebuilt == ["relations"]
    index = load_index(tmp_path, "relations")
    assert index is not None and index.names == sorted(RELATIONS[ArgKind.RELATION])


def test_search_finds_paraphrases_by_embedding(tmp_path):
    indexes = Indexes.from_names(RELATIONS, tmp_path)
    index = indexes.get(ArgKind.RELATION)
    vector = indexes.embedder.encode(["where it is"])[0]
    hits = index.search(vector, 3)
    assert [index.names[label] for label, _ in hits][0] == "located in"
    assert np.isclose(index.cosines(vector, [hits[0][0]])[0], hits[0][1], atol=1e-4)


def test_an_index_without_names_needs_no_files(tmp_path):
    indexes = Indexes.from_names({}, tmp_path)
    report = indexes.build_all()
    assert report.rebuilt == [] and list(tmp_path.iterdir()) == []
    with pytest.raises(GroundingError, match="has no relations"):
        require_names(indexes, ArgKind.RELATION, "located in")
