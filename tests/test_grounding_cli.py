"""`koplc index` and `koplc ground`, and the API functions behind them."""

from __future__ import annotations

import json
import shutil

import pytest

from grounding_fixtures import GEO_KB
from koplc import api
from koplc.cli import main

pytestmark = pytest.mark.model

PROGRAM = "Step 1: Find(pariss)\nStep 2: Relate(location)\nDone\n"


@pytest.fixture
def kb_path(tmp_path, monkeypatch):
    monkeypatch.setenv("KOPLC_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "geo_kb.json"
    shutil.copy(GEO_KB, path)
    return path


def cli(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_index_then_ground_with_explain(tmp_path, kb_path, capsys):
    code, out, _ = cli(["index", kb_path], capsys)
    assert code == 0 and "entities: 9 names (built)" in out and "folder:" in out
    code, out, _ = cli(["index", kb_path], capsys)
    assert code == 0 and "entities: 9 names (current)" in out
    program = tmp_path / "program.txt"
    program.write_text(PROGRAM)
    code, out, err = cli(["ground", program, "--kb", kb_path, "--question",
                          "where is Paris", "--to", "kopl-steps", "--explain"], capsys)
    assert code == 0
    assert out == ("Step 1: Find(Paris)\nStep 2: Relate(located in, forward)\n"
                   "Step 3: QueryName()\nDone\n")
    assert "pariss" in err and "Paris (" in err and "located in" in err and "why" in err


def test_ground_prints_ir_json_by_default(tmp_path, kb_path, capsys):
    program = tmp_path / "program.txt"
    program.write_text(PROGRAM)
    code, out, err = cli(["ground", program, "--kb", kb_path], capsys)
    assert code == 0 and "error" not in err  # only the progress bar of the index build
    assert json.loads(out)["input"]["relation"] == "located in"
    code, out, err = cli(["ground", program, "--kb", kb_path], capsys)
    assert code == 0 and err == ""  # the indexes are current now


def test_ground_reports_an_ungroundable_name(tmp_path, kb_path, capsys):
    program = tmp_path / "program.txt"
    program.write_text("Step 1: Find(Paris)\nStep 2: Relate(qxzvbw jjkq)\nDone\n")
    code, out, err = cli(["ground", program, "--kb", kb_path], capsys)
    assert code == 1 and out == ""
    assert "error[ungroundable]" in err and "qxzvbw jjkq" in err and "Traceback" not in err


def test_the_api_grounds_any_syntax(kb_path):
    kb = api.load_kb(kb_path)
    grounded = api.ground("Count(FilterStr(FindAll(), 'area', 'more than 100 km2'))", kb,
                          "how many places are bigger than 100 km2", kb_path=kb_path)
    assert api.print_program(grounded.program, "kopl-nested") == \
        'Count(FilterNum(FindAll(), "area", "38.61021585 square mile", ">"))'
    assert {c.pass_name for c in grounded.changes} == {"repair", "units"}
    assert "38.61021585 square mile" in api.explain_grounding(grounded)
    assert api.run(api.print_program(grounded.program, "kopl-nested"), kb).value == "3"
