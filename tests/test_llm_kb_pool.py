"""A KB's own demonstration pool: explored on first use and cached, read from a pool file
when one is named; prompt instructions written from the KB's ops."""

from __future__ import annotations

from pathlib import Path

from koplc.kopl.exploration import pool_path, read_pool
from koplc.kopl.kb.cache import load_kb
from koplc.llm.symkgqa.catalogue import ops_for_kb
from koplc.llm.symkgqa.kb_pool import demos_for_kb, read_demos
from koplc.llm.symkgqa.prompt import PromptBuilder, instructions

FIXTURES = Path(__file__).resolve().parent / "fixtures"
EXAMPLE = FIXTURES / "kopl" / "example_kb.json"


def test_explored_on_first_use_then_reused(tmp_path, monkeypatch):
    monkeypatch.setenv("KOPLC_CACHE_DIR", str(tmp_path / "cache"))
    kb = load_kb(EXAMPLE)
    demos = demos_for_kb(kb, progress=False)
    place = pool_path(EXAMPLE)
    assert place.is_file() and str(place).startswith(str(tmp_path))
    assert len(demos) == sum(len(e.questions) for e in read_pool(place))
    stamp = place.stat().st_mtime_ns
    assert demos_for_kb(kb, progress=False) == demos
    assert place.stat().st_mtime_ns == stamp  # read from the cache, not explored again
    reused = [d for d in demos if d.template == "What is the population of ENT?"]
    assert reused and reused[0].adapted("Cleveland").startswith("Find(Cleveland)")


def test_pool_file_replaces_the_kbs_pool(tmp_path, monkeypatch):
    monkeypatch.setenv("KOPLC_CACHE_DIR", str(tmp_path / "cache"))
    kb = load_kb(EXAMPLE)
    explored = demos_for_kb(kb, progress=False)
    chosen = demos_for_kb(kb, pool_file=pool_path(EXAMPLE), progress=False)
    assert chosen == explored
    tsv = tmp_path / "pool.tsv"
    tsv.write_text("who directed [Heat]\tMichael Mann\tmovie_to_director\n", encoding="utf-8")
    assert [d.program.splitlines()[1] for d in read_demos(tsv)] == [
        "Step 2: Relate(directed_by, forward)"]


def test_instructions_follow_the_kbs_ops():
    example = instructions(ops_for_kb(load_kb(EXAMPLE)))
    assert "QueryAttr" in example and "an attribute's value" in example
    assert "Count for how many" in example
    prefix = PromptBuilder.for_kb(load_kb(EXAMPLE)).prefix
    assert prefix.startswith(example)
    assert "directed_by" not in prefix and "starred_actors" not in prefix
