"""The binary KB cache: written atomically into the user cache folder (never beside the source),
keyed by the source's path and checked against its content, reused, invalidated on change; a
cache folder that cannot be written means no cache, not an error."""

from __future__ import annotations

import os
import shutil

import pytest

from conftest import FIXTURES
from koplc.kopl.errors import KBError
from koplc.kopl.kb import cache as kb_cache
from koplc.kopl.kb.cache import cache_path, load_kb
from koplc.kopl.kb.kopl_json import kb_to_data


@pytest.fixture
def source(tmp_path, user_cache):
    path = tmp_path / "kb" / "example_kb.json"
    path.parent.mkdir()
    shutil.copy(FIXTURES / "kopl/example_kb.json", path)
    return path


def test_the_first_load_writes_the_cache_into_the_user_cache_folder(source, user_cache):
    kb = load_kb(source)
    cache = cache_path(source)
    assert cache.is_file() and cache.parent == user_cache / "kb-cache"
    assert [p.name for p in cache.parent.iterdir()] == [cache.name]  # no temporary file
    assert [p.name for p in source.parent.iterdir()] == [source.name]  # nothing beside it
    again = load_kb(source)
    assert again is not kb and kb_to_data(again) == kb_to_data(kb)


def test_the_cache_is_keyed_by_the_resolved_path(source, tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to(source)
    assert cache_path(link) == cache_path(source)
    copy = tmp_path / "elsewhere" / source.name
    copy.parent.mkdir()
    shutil.copy(source, copy)
    assert cache_path(copy) != cache_path(source)
    load_kb(source)
    load_kb(copy)
    assert cache_path(copy).is_file() and cache_path(source).is_file()


def test_the_cache_of_a_deleted_source_goes_when_another_is_written(source, tmp_path):
    load_kb(source)
    gone = cache_path(source)
    source.unlink()
    other = tmp_path / "other.json"
    shutil.copy(FIXTURES / "kopl/example_kb_ext.json", other)
    load_kb(other)
    assert not gone.exists() and cache_path(other).is_file()


def test_a_cached_load_does_not_parse_the_source(source, monkeypatch):
    load_kb(source)
    monkeypatch.setattr(kb_cache, "load_kopl_json", lambda path: pytest.fail("parsed again"))
    assert load_kb(source).names[4] == "LeBron James"


def test_a_changed_source_invalidates_the_cache(source):
    load_kb(source)
    source.write_text(source.read_text().replace("LeBron James Jr.", "Bronny James"))
    assert "Bronny James" in load_kb(source).names


def test_a_same_size_change_in_the_same_instant_invalidates_it(source):
    load_kb(source)
    stat = source.stat()
    source.write_text(source.read_text().replace("Akron", "Akrom"))
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert source.stat().st_size == stat.st_size
    assert "Akrom" in load_kb(source).names


def test_a_damaged_cache_is_rebuilt(source):
    load_kb(source)
    cache = cache_path(source)
    cache.write_bytes(cache.read_bytes()[:100])
    assert load_kb(source).names[4] == "LeBron James"
    assert cache.stat().st_size > 100


def test_a_read_only_cache_folder_means_no_cache(source, user_cache):
    user_cache.mkdir()
    user_cache.chmod(0o555)
    try:
        assert load_kb(source).names[4] == "LeBron James"
        assert load_kb(source).names[4] == "LeBron James"
        assert list(user_cache.iterdir()) == []
    finally:
        user_cache.chmod(0o755)
    assert [p.name for p in source.parent.iterdir()] == [source.name]


def test_a_read_only_cache_is_still_read(source, user_cache, monkeypatch):
    load_kb(source)
    for folder in (user_cache, user_cache / "kb-cache"):
        folder.chmod(0o555)
    try:
        monkeypatch.setattr(kb_cache, "load_kopl_json", lambda path: pytest.fail("parsed again"))
        assert load_kb(source).names[4] == "LeBron James"
    finally:
        for folder in (user_cache, user_cache / "kb-cache"):
            folder.chmod(0o755)


def test_a_cache_folder_under_a_regular_file_means_no_cache(source, tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("KOPLC_CACHE_DIR", str(blocker / "cache"))
    assert load_kb(source).names[4] == "LeBron James"
    assert kb_cache.write_cache(cache_path(source), ("key",), load_kb(source)) is False
    assert blocker.read_text() == "not a folder"
    assert [p.name for p in source.parent.iterdir()] == [source.name]


def test_no_cache_means_no_cache_file(source, user_cache):
    load_kb(source, cache=False)
    assert not user_cache.exists()
    assert [p.name for p in source.parent.iterdir()] == [source.name]


def test_the_format_comes_from_the_extension(tmp_path):
    with pytest.raises(KBError, match="cannot tell the KB format"):
        load_kb(_touch(tmp_path / "kb.xml"))
    with pytest.raises(KBError, match="no such KB file"):
        load_kb(tmp_path / "missing.json")


def _touch(path):
    path.write_text("")
    return path


def test_a_cached_load_names_the_path_it_was_given(source, monkeypatch):
    # first loaded by a relative path; from another folder the cache must not hand back that
    # relative path, which derived files (the explored pool) would then open
    monkeypatch.chdir(source.parent)
    assert load_kb(source.name).source == source.name
    monkeypatch.chdir(source.parent.parent)
    assert load_kb(source.resolve()).source == str(source.resolve())
