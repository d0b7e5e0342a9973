"""The SPARQL commands: `koplc lower`, `koplc kb export`, and `koplc run --backend oxigraph |
endpoint`, with a clear error and a non-zero exit for an unreachable endpoint, a timeout and a
malformed response (a real local HTTP server misbehaving on purpose)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pyoxigraph
import pytest

from conftest import FIXTURES
from koplc import api
from koplc.cli import main
from misbehaving_endpoint import serve

EXAMPLE = str(FIXTURES / "kopl/example_kb.json")
PROGRAM = 'QueryName(FilterNum(FindAll(), "height", "200 centimetre", ">"))'


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "program.txt"
    path.write_text(PROGRAM)
    return str(path)


def test_lower_prints_sparql_that_pyoxigraph_parses(program, capsys):
    code, out, _ = run(["lower", program, "--to", "sparql", "--encoding", "plain"], capsys)
    assert code == 0 and out.startswith("PREFIX xsd:") and "<http://kb.invalid/key/height>" in out
    pyoxigraph.Store().query(out)
    assert out.rstrip("\n") == api.lower(PROGRAM, "plain")


def test_lower_refuses_what_the_executor_refuses(tmp_path, capsys):
    path = tmp_path / "bad.txt"
    path.write_text('Count(FilterNum(FindAll(), "height", "2", "bigger"))')
    code, _, err = run(["lower", str(path)], capsys)
    assert code == 1 and "unknown comparator 'bigger'" in err


def test_kb_export_writes_n_triples_atomically(tmp_path, capsys):
    out = tmp_path / "kb.nt"
    code, _, _ = run(["kb", "export", EXAMPLE, "--encoding", "kqapro", "--to", str(out)], capsys)
    assert code == 0
    store = pyoxigraph.Store()
    store.bulk_load(path=str(out), format=pyoxigraph.RdfFormat.N_TRIPLES)
    assert len(store) > 100
    code, _, err = run(["kb", "export", EXAMPLE, "--encoding", "plain", "--to",
                        str(tmp_path / "plain.nt")], capsys)
    assert code == 1 and "plain encoding cannot represent" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kb.nt"]


def test_run_on_pyoxigraph_answers_as_natively(program, tmp_path, capsys):
    code, native, _ = run(["run", program, "--kb", EXAMPLE], capsys)
    assert code == 0
    code, memory, _ = run(["run", program, "--kb", EXAMPLE, "--backend", "oxigraph"], capsys)
    assert code == 0 and json.loads(memory) == json.loads(native)
    for _ in range(2):  # loaded the first time, reopened the second
        code, stored, _ = run(["run", program, "--kb", EXAMPLE, "--backend", "oxigraph",
                               "--store", str(tmp_path / "store")], capsys)
        assert code == 0 and json.loads(stored) == json.loads(native)


@pytest.mark.server
def test_run_on_an_answering_endpoint(tmp_path, capsys):
    path = tmp_path / "count.txt"
    path.write_text('Count(FindAll())')
    with serve("ok") as (url, server):
        code, out, _ = run(["run", str(path), "--kb", EXAMPLE, "--backend", "endpoint",
                            "--endpoint", url], capsys)
    assert code == 0 and json.loads(out) == {"type": "count", "answer": "3"}
    assert server.requests[0][0] == "POST"


@pytest.mark.server
def test_results_without_the_asked_columns_are_a_clear_error(program, capsys):
    with serve("ok") as (url, _):  # answers every SELECT with a ?count column
        code, _, err = run(["run", program, "--kb", EXAMPLE, "--backend", "endpoint",
                            "--endpoint", url], capsys)
    assert code == 1 and f"SPARQL endpoint {url}" in err and "do not hold what the query" in err


def unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.server
@pytest.mark.parametrize("mode, message", [
    ("unreachable", "cannot connect"),
    ("slow", "no answer within 0.5 s"),
    ("garbage", "the response is not JSON"),
])
def test_endpoint_failures_exit_non_zero_with_a_clear_error(mode, message, program, capsys):
    if mode == "unreachable":
        url = f"http://127.0.0.1:{unused_port()}/sparql"
        code, out, err = run(["run", program, "--kb", EXAMPLE, "--backend", "endpoint",
                              "--endpoint", url, "--timeout", "0.5"], capsys)
    else:
        with serve(mode) as (url, _):
            code, out, err = run(["run", program, "--kb", EXAMPLE, "--backend", "endpoint",
                                  "--endpoint", url, "--timeout", "0.5"], capsys)
    assert code == 1 and out == ""
    assert f"SPARQL endpoint {url}" in err and message in err
    assert "Traceback" not in err


def test_the_installed_command_exits_non_zero_for_a_dead_endpoint(program):
    url = f"http://127.0.0.1:{unused_port()}/sparql"
    koplc = os.path.join(os.path.dirname(sys.executable), "koplc")
    done = subprocess.run([koplc, "run", program, "--kb", EXAMPLE, "--backend", "endpoint",
                           "--endpoint", url, "--timeout", "1"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and url in done.stderr and "cannot connect" in done.stderr


def test_the_endpoint_backend_needs_a_url(program, capsys):
    code, _, err = run(["run", program, "--kb", EXAMPLE, "--backend", "endpoint"], capsys)
    assert code == 1 and "--endpoint URL" in err
