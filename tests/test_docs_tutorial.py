"""The tutorial's commands, run as a reader on a fresh machine runs them.

A ```bash block after `<!-- test: run -->` is run and must exit 0, or the status a mark
`<!-- test: run, exit N -->` names; a block after `<!-- test: output -->` is what the run
block before it prints on standard output (doctest's `...` stands for any text).
The blocks of a page run in order in one shell, from the repository's root, with koplc on the
PATH (as `source .venv/bin/activate` puts it) and a home folder of the test's own, so the user
cache starts empty as on a fresh machine. `make setup` itself is not run.
"""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MARKED = re.compile(r"<!-- test: (run|output)(?:, exit (\d+))? -->\s*\n```\w*\n(.*?)\n```", re.S)
FENCED = re.compile(r"^```bash\n(.*?)\n```", re.S | re.M)
# What a reader does once, before the tested commands: not run here.
SETUP_ONLY = ("make setup", "source .venv/bin/activate")
SEPARATOR = "@@koplc-docs-block@@"


def marked_blocks(text: str) -> list[tuple[str, str, int]]:
    """The page's marked blocks in order, as (`run` or `output`, text, exit status)."""
    return [(kind, body, int(status or 0)) for kind, status, body in MARKED.findall(text)]


def run_page(blocks: list[tuple[str, str, int]], home: Path) -> list[str]:
    """Run the page's `run` blocks in one shell; the standard output of each."""
    script = ["set -euo pipefail", f"cd {_quote(ROOT)}"]
    for kind, body, status in blocks:
        if kind == "run" and status == 0:
            script += [f"echo {SEPARATOR}", body]
        elif kind == "run":  # the last command's status is the one named
            script += [f"echo {SEPARATOR}", "set +e", body,
                       f"status=$?; set -e; [ $status = {status} ] || "
                       f"{{ echo \"a block exited $status, not {status}\" >&2; exit 1; }}"]
    env = {name: value for name, value in os.environ.items()
           if name not in ("KOPLC_CACHE_DIR", "XDG_CACHE_HOME", "KOPLC_RESPONSE_CACHE")}
    env |= {"HOME": str(home), "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}",
            "COLUMNS": "100"}
    done = subprocess.run(["bash", "-c", "\n".join(script)], capture_output=True, text=True,
                          env=env, timeout=600)
    assert done.returncode == 0, f"the page's commands failed:\n{done.stdout}\n{done.stderr}"
    return [chunk.removeprefix("\n") for chunk in done.stdout.split(SEPARATOR + "\n")[1:]]


def _quote(path: Path) -> str:
    return "'" + str(path).replace("'", "'\\''") + "'"


def check_outputs(blocks: list[tuple[str, str, int]], printed: list[str]) -> list[str]:
    """Where a shown output differs from what its run block printed, as messages."""
    problems, checker, last = [], doctest.OutputChecker(), -1
    for kind, body, _ in blocks:
        if kind == "run":
            last += 1
            continue
        want, got = body.rstrip() + "\n", printed[last].rstrip() + "\n"
        if not checker.check_output(want, got, doctest.ELLIPSIS):
            problems.append(f"block {last + 1} shows:\n{want}but printed:\n{got}")
    return problems


def test_the_marks_are_read():
    page = ("<!-- test: run -->\n```bash\necho hi\n```\n\n<!-- test: output -->\n```text\n"
            "hi\n```\n\n```bash\nnot run\n```\n")
    blocks = marked_blocks(page)
    assert blocks == [("run", "echo hi", 0), ("output", "hi", 0)]
    assert check_outputs(blocks, ["hi\n"]) == []
    assert check_outputs(blocks, ["ho\n"]) != []


def test_every_tutorial_command_is_run_but_setup():
    text = (ROOT / "docs/tutorial.md").read_text(encoding="utf-8")
    run = {body for kind, body, _ in marked_blocks(text) if kind == "run"}
    untested = [block for block in FENCED.findall(text) if block not in run]
    for block in untested:
        commands = [line.split("#")[0].strip() for line in block.splitlines()]
        assert all(command in SETUP_ONLY for command in commands if command), block
    formats = " ".join(run)
    assert ".nt" in formats and ".json" in formats and "--schema" in formats


@pytest.mark.model  # the byokg front end scores programs with MiniLM
@pytest.mark.parametrize("page", ["docs/tutorial.md", "README.md"])
def test_the_page_commands_work_as_shown(page, tmp_path):
    blocks = marked_blocks((ROOT / page).read_text(encoding="utf-8"))
    assert any(kind == "run" for kind, _, _ in blocks)
    printed = run_page(blocks, tmp_path)
    assert check_outputs(blocks, printed) == []


@pytest.mark.model  # its last example answers a question with the byokg front end (MiniLM)
def test_the_python_guide_runs(monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("KOPLC_CACHE_DIR", str(tmp_path / "cache"))
    result = doctest.testfile(str(ROOT / "docs/how-to/python-ir.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted >= 20
