"""Bad programs are refused alike by the native executor and the SPARQL backends: the same code
and the same message from the executor, embedded pyoxigraph and a real Virtuoso.

The programs: `fixtures/refused_programs.jsonl` (one or more per refusal of the pre-check
`koplc.kopl.runnable`, the order it picks between several, and the errors that need data, each
with its expected code and message), every program of `fixtures/diagnostics.jsonl` that parses,
and the programs of the grounding fixtures before and after grounding (operator words, units,
repairs, names). A program that is not refused must give the same answer everywhere.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from conftest import FIXTURES
from koplc import api
from koplc.kopl.answer import Answer
from koplc.kopl.check import check
from koplc.kopl.errors import ExecutionError, LoweringError, ParseError
from koplc.kopl.execution.executor import ExecOptions, execute
from koplc.kopl.kb.kopl_json import load_kopl_json
from koplc.sparql_backend.encodings import ENCODINGS
from koplc.sparql_backend.endpoint import Endpoint
from koplc.sparql_backend.export import write_ntriples
from koplc.sparql_backend.lower import lower
from koplc.sparql_backend.results import run_lowered
from sparql_fixtures import load_store, same
from virtuoso_server import virtuoso_fixture  # noqa: F401 - the virtuoso fixture

EXAMPLE, GEO = "example", "geo"
KB_FILES = {EXAMPLE: FIXTURES / "kopl" / "example_kb.json",
            GEO: FIXTURES / "grounding" / "geo_kb.json"}
ENCODING = "kqapro"
STORES = ("oxigraph", "virtuoso")


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


REFUSED = read_jsonl(FIXTURES / "refused_programs.jsonl")


def _parses(text: str, syntax: str = "auto") -> bool:
    try:
        api.parse(text, syntax)
    except ParseError:
        return False
    return True


def _bad_programs() -> list[tuple[str, str, str, str]]:
    """(id, KB, syntax, text) of the diagnostics programs that parse and of the grounding
    fixtures' programs."""
    out = [(f"diagnostics-{i}-{case['code']}", EXAMPLE, case["syntax"], case["program"])
           for i, case in enumerate(read_jsonl(FIXTURES / "diagnostics.jsonl"))
           if _parses(case["program"], case["syntax"])]
    for name in ("operators", "units", "repair", "names"):
        for i, case in enumerate(read_jsonl(FIXTURES / "grounding" / f"{name}.jsonl")):
            for when in ("before", "after"):
                out.append((f"{name}-{i}-{when}", GEO, "kopl-nested", case[when]))
    return out


BAD = _bad_programs()


@pytest.fixture(scope="module")
def kbs():
    return {name: load_kopl_json(path) for name, path in KB_FILES.items()}


@pytest.fixture(scope="module")
def stores(kbs, virtuoso):
    """stores[backend][KB name]: pyoxigraph in memory, and Virtuoso's graph of that KB."""
    folder = Path(tempfile.mkdtemp(prefix="koplc-refusals-", dir=virtuoso.folder))
    endpoints = {}
    for name, kb in kbs.items():
        nt = folder / f"{name}.nt"
        write_ntriples(kb, ENCODINGS[ENCODING], nt)
        graph = f"urn:koplc:test:refusals:{name}"
        virtuoso.load(nt, graph)
        endpoints[name] = Endpoint(virtuoso.graph_endpoint(graph), timeout=120)
    return {"oxigraph": {name: load_store(kb, ENCODING) for name, kb in kbs.items()},
            "virtuoso": endpoints}


def outcome(run) -> Answer | tuple[str, str]:
    """The answer, or the (code, message) of the refusal."""
    try:
        return run()
    except (ExecutionError, LoweringError) as err:
        return err.diagnostics[0].code, err.diagnostics[0].message


def agree(a, b) -> bool:
    if isinstance(a, Answer) and isinstance(b, Answer):
        return same(a, b)
    return a == b


def native(program, kb, options: ExecOptions):
    return outcome(lambda: execute(program, kb, options))


def through(store, program, options: ExecOptions):
    return outcome(lambda: run_lowered(lower(program, ENCODING, options), store))


@pytest.mark.server
@pytest.mark.parametrize("case", REFUSED, ids=[c["name"] for c in REFUSED])
def test_each_refusal_has_its_code_and_message_everywhere(case, kbs, stores):
    program = api.parse(case["program"], case["syntax"]).program
    options = ExecOptions(**case.get("options", {}))
    expected = (case["code"], case["message"])
    assert native(program, kbs[EXAMPLE], options) == expected
    for backend in STORES:
        assert through(stores[backend][EXAMPLE], program, options) == expected, backend


@pytest.mark.parametrize("case", [c for c in REFUSED if c["code"] != "execution"],
                         ids=lambda c: c["name"])
def test_a_refusal_whatever_the_data_comes_before_any_data(case):
    """The pre-check's refusals: raised by `lower` itself, before any store is asked, and a
    checker error of the same code where the type checker has the rule."""
    program = api.parse(case["program"], case["syntax"]).program
    options = ExecOptions(**case.get("options", {}))
    with pytest.raises(LoweringError) as caught:
        lower(program, ENCODING, options)
    assert caught.value.diagnostics[0].code == case["code"]
    if case["code"] != "extension-op":
        assert case["code"] in {d.code for d in check(program) if d.is_error}


@pytest.mark.server
@pytest.mark.parametrize(("name", "kb", "syntax", "text"), BAD, ids=[b[0] for b in BAD])
def test_bad_programs_fare_alike_on_every_backend(name, kb, syntax, text, kbs, stores):
    program = api.parse(text, syntax).program
    options = ExecOptions()
    expected = native(program, kbs[kb], options)
    for backend in STORES:
        got = through(stores[backend][kb], program, options)
        assert agree(expected, got), (backend, expected, got)


def test_the_fixtures_cover_every_refusal():
    codes = {case["code"] for case in REFUSED}
    assert {"bad-comparator", "bad-direction", "missing-direction", "bad-operator",
            "bad-literal", "extension-op", "type-mismatch", "execution"} <= codes
    assert len(BAD) >= 60
