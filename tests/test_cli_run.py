"""`koplc run`, `koplc kb stats`, `koplc kb convert` and the API functions behind them."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import FIXTURES
from koplc import api
from koplc.cli import main
from koplc.kopl.errors import ExecutionError

STEPS = "Step 1: Find(LeBron James)\nStep 2: Relate(child, forward)\nStep 3: What()\nDone\n"
NESTED = "Count(FilterConcept(FindAll(), 'athlete'))"
KQAPRO = json.dumps([{"function": "Find", "dependencies": [], "inputs": ["LeBron James"]},
                     {"function": "QueryAttr", "dependencies": [0], "inputs": ["height"]}])


@pytest.fixture
def kb_path(tmp_path, monkeypatch):
    monkeypatch.setenv("KOPLC_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "example_kb.json"
    shutil.copy(FIXTURES / "kopl/example_kb.json", path)
    return path


def cli(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("text, answer", [(STEPS, ["LeBron James Jr."]), (NESTED, "3"),
                                          (KQAPRO, ["206 centimetre"])])
def test_run_any_syntax(tmp_path, kb_path, capsys, text, answer):
    program = tmp_path / "program.txt"
    program.write_text(text)
    code, out, err = cli(["run", program, "--kb", kb_path], capsys)
    assert (code, err) == (0, "")
    assert json.loads(out)["answer"] == answer


def test_run_options_reach_the_executor(tmp_path, kb_path, capsys):
    program = tmp_path / "program.txt"
    program.write_text(NESTED)
    code, out, _ = cli(["run", program, "--kb", kb_path, "--no-findall-concepts"], capsys)
    assert code == 0 and json.loads(out)["answer"] == "2"
    program.write_text("QueryName(FilterNum(FindAll(), 'height', '2.1 metre', '<'))")
    code, out, _ = cli(["run", program, "--kb", kb_path, "--unit-conversion"], capsys)
    assert sorted(json.loads(out)["answer"]) == ["LeBron James", "LeBron James Jr."]


def test_run_jsonl_batch(tmp_path, kb_path, capsys):
    batch = tmp_path / "batch.jsonl"
    lines = [json.dumps({"id": 1, "program": STEPS}), json.dumps(NESTED),
             json.dumps({"id": 3, "program": "Count(Relate(Find('Akron'), 'r'))"}),
             json.dumps({"id": 4, "program": KQAPRO}), "not json"]
    batch.write_text("\n".join(lines) + "\n")
    code, out, _ = cli(["run", batch, "--kb", kb_path, "--jsonl"], capsys)
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 1  # some records failed
    assert records[0] == {"id": 1, "ok": True, "type": "names", "answer": ["LeBron James Jr."]}
    assert records[1]["answer"] == "3"
    assert records[2]["ok"] is False and records[2]["id"] == 3
    assert "Relate" in records[2]["diagnostics"][0]["message"]
    assert records[3]["answer"] == ["206 centimetre"]
    assert records[4]["ok"] is False
    assert len(records) == 5


def test_run_reports_errors_without_a_traceback(tmp_path, kb_path, capsys):
    program = tmp_path / "program.txt"
    program.write_text("QueryName(Relate(Find('LeBron James'), 'child'))")
    code, out, err = cli(["run", program, "--kb", kb_path], capsys)
    assert code == 1 and out == ""
    assert "step 2 (Relate): no direction" in err and "Traceback" not in err
    code, _, err = cli(["run", program, "--kb", tmp_path / "missing.json"], capsys)
    assert code == 1 and "no such KB file" in err


def test_kb_stats(kb_path, capsys):
    code, out, _ = cli(["kb", "stats", kb_path], capsys)
    assert code == 0
    stats = dict(line.split(": ") for line in out.splitlines())
    assert stats["concepts"] == "4" and stats["entities"] == "4"
    assert stats["attribute facts"] == "9" and stats["relations"] == "5"


def test_kb_convert_from_triples_writes_the_json_atomically(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("KOPLC_CACHE_DIR", str(tmp_path / "cache"))
    triples = tmp_path / "kb.txt"
    triples.write_text("Heat|directed_by|Michael Mann\nHeat|release_year|1995\n")
    out_file = tmp_path / "kb.json"
    code, out, _ = cli(["kb", "convert", triples, "--schema", "metaqa", "--to", "kopl-json",
                        "--out", out_file], capsys)
    assert code == 0 and out == ""
    data = json.loads(out_file.read_text())
    assert {e["name"] for e in data["entities"].values()} == {"Heat", "Michael Mann", "1995"}
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []
    code, out, _ = cli(["kb", "convert", triples, "--schema", "metaqa"], capsys)
    assert json.loads(out) == data


def test_the_api_functions(kb_path):
    kb = api.load_kb(kb_path)
    assert api.run(STEPS, kb).value == ["LeBron James Jr."]
    assert api.run(KQAPRO, kb, syntax="kqapro-json").render() == ["206 centimetre"]
    assert api.kb_stats(kb)["qualifier values"] == 4
    assert json.loads(api.kb_convert(kb)) == json.loads(kb_path.read_text())
    with pytest.raises(ExecutionError):
        api.run("QueryName(Relate(Find('Akron'), 'r'))", kb)


def test_names_are_checked_against_the_kb(kb_path):
    kb = api.load_kb(kb_path)
    text = "Step 1: Find(Lebron James)\nStep 2: Relate(chlid, forward)\nStep 3: What()\nDone\n"
    warnings = api.check_names(text, kb)
    assert [(w.code, w.span.line) for w in warnings] == [("unknown-entity", 1),
                                                         ("unknown-relation", 2)]
    assert "did you mean 'LeBron James'?" in warnings[0].message
    assert not any(w.is_error for w in warnings)
    assert api.check_names(STEPS, kb) == []
    assert api.run(text, kb).value == []  # and execution answers as the engine would


def test_check_with_a_kb_warns_about_unknown_names(tmp_path, kb_path, capsys):
    path = tmp_path / "p.txt"
    path.write_text("Step 1: Find(LeBron James)\nStep 2: Relate(chlid, forward)\nStep 3: What()\nDone\n")
    code, out, err = cli(["check", path, "--kb", kb_path], capsys)
    assert (code, out.strip()) == (0, "ok")
    assert "warning[unknown-relation]: no relation 'chlid' in the KB; did you mean 'child'?" in err
    code, _, err = cli(["check", path], capsys)
    assert code == 0 and "unknown-relation" not in err
