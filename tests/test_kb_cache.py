"""The binary KB cache: written atomically beside the source, reused, invalidated on change."""

from __future__ import annotations

import os
import shutil

import pytest

from conftest import SHARED
from koplc.kopl import kb_cache
from koplc.kopl.errors import KBError
from koplc.kopl.kb_cache import SUFFIX, cache_paths, load_kb
from koplc.kopl.kb_json import kb_to_data


@pytest.fixture
def source(tmp_path, monkeypatch):
    monkeypatch.setenv("KOPLC_CACHE_DIR", str(tmp_path / "user-cache"))
    path = tmp_path / "kb" / "example_kb.json"
    path.parent.mkdir()
    shutil.copy(SHARED / "data/kopl/example_kb.json", path)
    return path


def test_the_first_load_writes_the_cache_beside_the_source(source):
    kb = load_kb(source)
    cache = source.with_name(source.name + SUFFIX)
    assert cache.is_file()
    assert {p.name for p in source.parent.iterdir()} == {source.name, cache.name}  # no temp
    again = load_kb(source)
    assert again is not kb and kb_to_data(again) == kb_to_data(kb)


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
    cache = source.with_name(source.name + SUFFIX)
    cache.write_bytes(cache.read_bytes()[:100])
    assert load_kb(source).names[4] == "LeBron James"
    assert cache.stat().st_size > 100


def test_a_read_only_folder_sends_the_cache_to_the_user_cache(source, tmp_path):
    source.parent.chmod(0o555)
    try:
        load_kb(source)
        assert not source.with_name(source.name + SUFFIX).exists()
        beside, user = cache_paths(source)
        assert user.is_file() and user.parent == tmp_path / "user-cache"
    finally:
        source.parent.chmod(0o755)


def test_no_cache_means_no_cache_file(source):
    load_kb(source, cache=False)
    assert not any(p.name.endswith(SUFFIX) for p in source.parent.iterdir())


def test_the_format_comes_from_the_extension(tmp_path):
    with pytest.raises(KBError, match="cannot tell the KB format"):
        load_kb(_touch(tmp_path / "kb.xml"))
    with pytest.raises(KBError, match="no such KB file"):
        load_kb(tmp_path / "missing.json")


def _touch(path):
    path.write_text("")
    return path
