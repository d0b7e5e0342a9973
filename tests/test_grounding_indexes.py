"""The name indexes: built, saved atomically into the user cache folder (never beside the KB) or
a folder the caller names, reloaded without the model, rebuilt when the KB's names change or a
file is missing or damaged; a cache folder that cannot be written keeps them in memory."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from grounding_fixtures import GEO_KB, context, geo_fixture  # noqa: F401 - the geo fixture
from koplc import api
from koplc.kopl.errors import GroundingError
from koplc.kopl.grounding.driver import ground
from koplc.kopl.grounding.index.embedder import Embedder
from koplc.kopl.grounding.index.kb_indexes import Indexes, require_names
from koplc.kopl.grounding.index.store import index_folder, load_index
from koplc.kopl.kb.cache import load_kb
from koplc.kopl.types import ArgKind

RELATIONS = {ArgKind.RELATION: ["located in", "capital of", "country of citizenship"]}


class NoModel(Embedder):
    """An embedder that fails if asked to embed: proves a code path never loads the model."""

    def encode(self, texts, batch_size=256):
        if texts:
            raise AssertionError(f"the model was asked to embed {texts}")
        return super().encode(texts)


@pytest.fixture
def kb_copy(tmp_path, user_cache):
    path = tmp_path / "kb" / "geo_kb.json"
    path.parent.mkdir()
    shutil.copy(GEO_KB, path)
    return path


@pytest.mark.model
def test_the_index_lives_in_the_user_cache_and_reloads_without_the_model(kb_copy, user_cache):
    report = api.build_index(kb_copy)
    folder = index_folder(kb_copy)
    assert folder.parent == user_cache / "indexes"
    assert report.folder == folder and set(report.rebuilt) == {
        "entities", "concepts", "relations", "attributes", "qualifiers"}
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]  # no temporary files
    assert [p.name for p in kb_copy.parent.iterdir()] == [kb_copy.name]  # nothing beside it
    again = api.build_index(kb_copy)
    assert again.rebuilt == [] and again.counts == report.counts and again.bytes > 0
    indexes = Indexes.for_kb(load_kb(kb_copy), kb_copy, embedder=NoModel())
    assert indexes.get(ArgKind.ENTITY).names[:2] == ["Berlin", "France"]


@pytest.mark.model
def test_the_indexes_of_a_deleted_kb_go_when_others_are_saved(kb_copy, tmp_path):
    gone = api.build_index(kb_copy).folder
    assert (gone / "source.txt").read_text() == str(kb_copy.resolve())
    kb_copy.unlink()
    other = tmp_path / "other" / "geo_kb.json"
    other.parent.mkdir()
    shutil.copy(GEO_KB, other)
    assert api.build_index(other).folder.is_dir() and not gone.exists()


@pytest.mark.model
def test_grounding_exact_names_never_loads_the_model(geo, tmp_path):
    kb, built = geo
    indexes = Indexes.for_kb(kb, folder=built.folders[0], embedder=NoModel())
    text = "QueryName(Relate(Find('Paris'), 'located in', 'forward'))"
    grounded = ground(api.parse(text).program, context((kb, indexes)))
    assert grounded.program == api.parse(text).program


@pytest.mark.model
def test_a_read_only_kb_folder_changes_nothing(kb_copy):
    kb_copy.parent.chmod(0o555)
    try:
        report = api.build_index(kb_copy)
    finally:
        kb_copy.parent.chmod(0o755)
    assert report.folder == index_folder(kb_copy)


@pytest.mark.model
def test_a_read_only_cache_folder_keeps_the_indexes_in_memory(kb_copy, user_cache):
    user_cache.mkdir()
    user_cache.chmod(0o555)
    try:
        report = api.build_index(kb_copy)
        assert report.folder is None and len(report.rebuilt) == 5
        assert list(user_cache.iterdir()) == []
    finally:
        user_cache.chmod(0o755)
    assert [p.name for p in kb_copy.parent.iterdir()] == [kb_copy.name]


@pytest.mark.model
def test_a_cache_folder_under_a_regular_file_keeps_the_indexes_in_memory(kb_copy, tmp_path,
                                                                       monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("KOPLC_CACHE_DIR", str(blocker / "cache"))
    indexes = Indexes.for_kb(load_kb(kb_copy), kb_copy)
    assert "Paris" in indexes.get(ArgKind.ENTITY).names
    assert indexes.saved_folder() is None and blocker.read_text() == "not a folder"


@pytest.mark.model
def test_a_changed_kb_rebuilds_only_what_changed(kb_copy):
    api.build_index(kb_copy)
    kb_copy.write_text(kb_copy.read_text().replace('"Seine"', '"Loire"'))
    report = api.build_index(kb_copy)
    assert report.rebuilt == ["entities"]
    indexes = Indexes.for_kb(load_kb(kb_copy), kb_copy, embedder=NoModel())
    assert "Loire" in indexes.get(ArgKind.ENTITY).names
    stale = sorted(p.name for p in report.folder.glob("entities.*.hnsw"))
    assert len(stale) == 1  # the old vectors are gone


@pytest.mark.model
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


@pytest.mark.model
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
