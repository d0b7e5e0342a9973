"""L2M verbalisation of explored programs with the embedded model: sub-questions bottom up,
kept only through the inverse-consistency check, recorded with what made them."""

from __future__ import annotations

from pathlib import Path

import pytest

from koplc.kopl.exploration import ExploreOptions, explore
from koplc.kopl.kb.cache import load_kb
from koplc.llm.byokg.l2m import sub_programs, with_l2m_questions

EXAMPLE = Path(__file__).resolve().parent / "fixtures" / "kopl" / "example_kb.json"


pytestmark = [pytest.mark.model, pytest.mark.usefixtures("private_caches")]


def test_two_hop_program_gets_a_checked_question():
    from koplc.llm.lm.defaults import open_lm

    kb = load_kb(EXAMPLE)
    # seed 2 draws "the place of birth of the father of LeBron James Jr." among its first 40
    entries = [e for e in explore(kb, ExploreOptions(programs=40, seed=2)) if e.hops == 2
               and e.ops == ["Find", "Relate", "QueryName"]][:1]
    assert entries, "the example KB explores a two-hop Find -> Relate -> QueryName program"
    assert len(sub_programs(entries[0].program)) == 3
    [(entry, made)] = list(with_l2m_questions(entries, open_lm("embedded"), kb, "gemma"))
    assert len(made.sub_questions) == 2 and made.question
    assert made.kept == (made.margin > 0)
    if made.kept:
        assert entry.questions[-1].text == made.question
        assert entry.questions[-1].by == "gemma:l2m+inverse-consistency"
    else:
        assert [q.by for q in entry.questions] == ["canonical"]


def test_explore_cli_writes_l2m_questions_and_their_speed(tmp_path, capsys):
    import json

    from koplc.cli import main
    from koplc.kopl.exploration import read_pool

    out = tmp_path / "pool.jsonl"
    assert main(["explore", str(EXAMPLE), "--programs", "30", "--out", str(out), "--l2m", "3",
                 "--quiet"]) == 0
    l2m = json.loads(capsys.readouterr().out)["l2m"]
    assert l2m["programs"] == 3 and 0 <= l2m["kept"] <= 3 and l2m["questions_per_second"] > 0
    entries = read_pool(out)
    assert len(entries) == 30
    made = [q for e in entries for q in e.questions if q.by.endswith(":l2m+inverse-consistency")]
    assert len(made) <= l2m["kept"]  # a question equal to the canonical one is not added twice
