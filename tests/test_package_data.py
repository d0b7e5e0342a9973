"""The data shipped in the package: unpacked once into the cache folder, atomically, with a
clear error when that folder cannot be written."""

from __future__ import annotations

import pytest

from koplc.kopl.datasets.metaqa import read_questions
from koplc.kopl.errors import KoplcError
from koplc.llm.lm.defaults import default_dev_folder, default_kb_path


def test_the_verified_dev_questions_unpack_into_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KOPLC_CACHE_DIR", str(tmp_path / "cache"))
    folder = default_dev_folder()
    assert folder.parent.parent == tmp_path / "cache" and folder.name.startswith("metaqa-")
    assert sorted(p.name for p in folder.iterdir()) == [
        "qa_1hop_dev.tsv", "qa_2hop_dev.tsv", "qa_3hop_dev.tsv"]  # no temporary file left
    counts = {hop: len(read_questions(folder / f"qa_{hop}hop_dev.tsv")) for hop in (1, 2, 3)}
    assert counts == {1: 9477, 2: 14872, 3: 7486}
    first = read_questions(folder / "qa_1hop_dev.tsv")[0]
    assert first.index is not None and first.topic in first.text and first.answers
    stamp = (folder / "qa_2hop_dev.tsv").stat().st_mtime_ns
    assert default_dev_folder() == folder
    assert (folder / "qa_2hop_dev.tsv").stat().st_mtime_ns == stamp  # unpacked once


def test_the_kb_unpacks_into_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KOPLC_CACHE_DIR", str(tmp_path / "cache"))
    path = default_kb_path()
    assert path.parent.parent.parent == tmp_path / "cache"
    assert sum(1 for _ in path.open(encoding="utf-8")) == 133582  # the whole MetaQA KB
    assert [p.name for p in path.parent.iterdir()] == [path.name]


def test_a_cache_folder_that_cannot_be_made_is_a_clear_error(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("KOPLC_CACHE_DIR", str(blocker / "cache"))
    with pytest.raises(KoplcError, match="set KOPLC_CACHE_DIR to a folder") as caught:
        default_dev_folder()
    assert caught.value.diagnostics[0].code == "cache-unwritable"


@pytest.mark.whole_kb
def test_kb_stats_without_a_kb_counts_the_whole_metaqa_kb(capsys):
    from koplc import cli

    assert cli.main(["kb", "stats"]) == 0
    stats = dict(line.split(": ") for line in capsys.readouterr().out.splitlines())
    assert stats["relation triples"] == "133582" and stats["entities"] == "43234"
