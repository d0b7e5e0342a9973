"""The CLI: parse, check, fmt over files, stdin and JSONL; exit codes; no tracebacks."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from koplc.cli import main

STEPS = "Step 1: Find(The Grey)\nStep 2: Relate(written_by, forward)\nStep 3: What()\nDone\n"


def run(argv, capsys, stdin=None, monkeypatch=None):
    if stdin is not None:
        import io
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_parse_to_ir_json_and_back(tmp_path, capsys):
    path = tmp_path / "p.txt"
    path.write_text(STEPS)
    code, out, _ = run(["parse", str(path)], capsys)
    assert code == 0
    assert json.loads(out)["op"] == "QueryName"
    ir_path = tmp_path / "p.json"
    ir_path.write_text(out)
    code, out, _ = run(["parse", str(ir_path), "--to", "kopl-steps"], capsys)
    assert code == 0
    assert out == STEPS.replace("What", "QueryName")


def test_stdin_and_explicit_syntax(capsys, monkeypatch):
    code, out, _ = run(["parse", "-", "--from", "kopl-steps", "--to", "kopl-steps"], capsys,
                       stdin=STEPS, monkeypatch=monkeypatch)
    assert code == 0
    assert out.startswith("Step 1: Find(The Grey)")


def test_check_reports_errors_with_caret_and_exit_1(tmp_path, capsys):
    path = tmp_path / "bad.txt"
    path.write_text("Step 1: Find(X)\nStep 2: QFilterStr(a, b)\nStep 3: Count()\nDone\n")
    code, out, err = run(["check", str(path)], capsys)
    assert code == 1
    assert out == ""
    assert "error[type-mismatch]" in err and "Line 2, Col 1" in err and "^^^" in err


def test_check_ok_prints_warnings_and_exits_0(tmp_path, capsys):
    path = tmp_path / "p.txt"
    path.write_text("Step 1: Find(X)\nStep 2: Relate(r, forward)\nDone\n")
    code, out, err = run(["check", str(path)], capsys)
    assert (code, out.strip()) == (0, "ok")
    assert "warning[entity-set-result]" in err


def test_parse_error_exits_1_without_traceback(tmp_path, capsys):
    path = tmp_path / "bad.txt"
    path.write_text("Step 1: Find(X\nDone\n")
    code, _, err = run(["parse", str(path)], capsys)
    assert code == 1
    assert "unbalanced parentheses" in err and "Traceback" not in err


def test_missing_file_exits_1(tmp_path, capsys):
    code, _, err = run(["check", str(tmp_path / "nope.txt")], capsys)
    assert code == 1
    assert "nope.txt" in err


def test_usage_error_exits_2(capsys):
    try:
        main(["parse"])
    except SystemExit as exit_:
        assert exit_.code == 2
    else:
        raise AssertionError("argparse should have exited")


def test_jsonl_batch(tmp_path, capsys):
    path = tmp_path / "batch.jsonl"
    lines = [json.dumps(STEPS), json.dumps({"id": 7, "program": "Step 1: Find(X\nDone"}),
             "", json.dumps({"id": 8, "program": "(COUNT (JOIN r m.01))"})]
    path.write_text("\n".join(lines))
    code, out, _ = run(["parse", str(path), "--jsonl", "--to", "kopl-steps"], capsys)
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 1  # one record failed
    assert [r["ok"] for r in records] == [True, False, True]
    assert records[1]["id"] == 7 and records[1]["diagnostics"][0]["code"] == "unbalanced-parens"
    assert records[2]["program"].startswith("Step 1: Entity(m.01)")


def test_check_jsonl(tmp_path, capsys):
    path = tmp_path / "batch.jsonl"
    path.write_text(json.dumps(STEPS) + "\n" + json.dumps("Step 1: Find(X)\nStep 2: Count(a)\nDone"))
    code, out, _ = run(["check", str(path), "--jsonl"], capsys)
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 1
    assert records[0]["ok"] and not records[1]["ok"]
    assert records[1]["diagnostics"][0]["span"]["line"] == 2


def test_fmt_in_place_is_atomic_and_keeps_mode(tmp_path, capsys):
    path = tmp_path / "p.txt"
    path.write_text("Step# 1: Find( The Grey )\nStep# 2: What()\ndone\n")
    os.chmod(path, 0o640)
    code, out, _ = run(["fmt", str(path), "--in-place"], capsys)
    assert (code, out) == (0, "")
    assert path.read_text() == "Step 1: Find(The Grey)\nStep 2: QueryName()\nDone\n"
    assert oct(path.stat().st_mode & 0o777) == "0o640"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.txt"]


def test_fmt_in_place_leaves_file_untouched_on_error(tmp_path, capsys):
    path = tmp_path / "p.txt"
    original = "Step 1: Find(X\nDone\n"
    path.write_text(original)
    code, _, _ = run(["fmt", str(path), "--in-place"], capsys)
    assert code == 1
    assert path.read_text() == original


def test_console_script_runs_without_traceback(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("Step 1: Frind(X)\nDone\n")
    result = subprocess.run([sys.executable, "-m", "koplc", "check", str(path)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "did you mean 'Find'?" in result.stderr
    assert "Traceback" not in result.stderr
