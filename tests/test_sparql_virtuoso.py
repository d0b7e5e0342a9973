"""The differential suite over HTTP against a real Virtuoso (Debian's virtuoso-opensource),
started on 127.0.0.1 by the `virtuoso` session fixture: every conformance case, every MetaQA
dev gold program and generated programs answer as the native executor does."""

from __future__ import annotations

import json
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import FIXTURES
from kb_fixtures import EXAMPLE_KB, EXAMPLE_KB_EXT, METAQA_KB, kb_for_fixture, metaqa_dev  # noqa: F401
from koplc.kopl.datasets.metaqa import gold_program, read_questions
from koplc.kopl.execution.executor import ExecOptions
from koplc.kopl.syntax.kqapro_json import parse
from koplc.sparql_backend.encodings import ENCODINGS
from koplc.sparql_backend.endpoint import Endpoint
from koplc.sparql_backend.export import write_ntriples
from sparql_fixtures import ENCODING_OF, native, same, through_sparql
from test_sparql_differential import differential
from virtuoso_server import virtuoso_fixture  # noqa: F401 - the virtuoso fixture

pytestmark = pytest.mark.server

CASES = json.loads((FIXTURES / "conformance/kopl_engine_cases.json").read_text())["cases"]
GENERATED = [(EXAMPLE_KB, "guided", 100), (EXAMPLE_KB_EXT, "blind", 60), (METAQA_KB, "guided", 40),
             (METAQA_KB, "blind-small", 40)]


@pytest.fixture(scope="session")
def endpoint_for(virtuoso, kb_for):
    """endpoint_for(kb path) -> an Endpoint whose default graph holds that KB."""
    endpoints: dict[str, Endpoint] = {}
    folder = Path(tempfile.mkdtemp(prefix="koplc-nt-", dir=virtuoso.folder))

    def get(relative: str) -> Endpoint:
        if relative not in endpoints:
            graph = f"urn:koplc:test:{relative}"
            nt = folder / (relative.replace("/", "_") + ".nt")
            write_ntriples(kb_for(relative), ENCODINGS[ENCODING_OF[relative]], nt)
            virtuoso.load(nt, graph)
            endpoints[relative] = Endpoint(virtuoso.graph_endpoint(graph), timeout=120)
        return endpoints[relative]

    return get


def test_the_server_listens_on_loopback_only(virtuoso):
    assert virtuoso.endpoint.startswith("http://127.0.0.1:")
    ini = (virtuoso.folder / "virtuoso.ini").read_text()
    assert f"ServerPort = 127.0.0.1:{virtuoso.http_port}" in ini
    assert f"ServerPort = 127.0.0.1:{virtuoso.isql_port}" in ini


def test_every_conformance_case_answers_the_same_on_virtuoso(kb_for, endpoint_for):
    differ = []
    for case in CASES:
        program = parse(json.dumps(case["program"])).program
        expected = native(program, kb_for(case["kb"]))
        got = through_sparql(program, endpoint_for(case["kb"]), ENCODING_OF[case["kb"]])
        if not same(expected, got):
            differ.append((case["name"], expected and expected.render(), got and got.render()))
    assert not differ, differ[:3]


def test_metaqa_gold_programs_answer_the_same_on_virtuoso(kb_for, endpoint_for):
    """Every tenth verified question of each hop (3,185 of the whole KB's 31,835)."""
    kb, endpoint = kb_for(METAQA_KB), endpoint_for(METAQA_KB)
    programs = [gold_program(q.topic, q.qtype) for hop in (1, 2, 3)
                for q in read_questions(metaqa_dev(hop))[::10]]
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = list(pool.map(lambda p: through_sparql(p, endpoint, "plain"), programs))
    differ = [p for p, got in zip(programs, answers, strict=True) if not same(native(p, kb), got)]
    assert len(programs) == 948 + 1488 + 749
    assert not differ, differ[:3]


@pytest.mark.parametrize("kb_path, strategy, count", GENERATED,
                         ids=[f"{k.split('/')[-1]}-{s}" for k, s, _ in GENERATED])
def test_generated_programs_answer_the_same_on_virtuoso(kb_path, strategy, count, kb_for,
                                                        endpoint_for):
    runs, disagreements = differential(kb_for(kb_path), endpoint_for(kb_path),
                                       ENCODING_OF[kb_path], strategy, count)
    assert not disagreements, disagreements[:3]
    assert len(runs) >= count


def test_unit_conversion_answers_the_same_on_virtuoso(kb_for, endpoint_for):
    """Heights in centimetres and metres, masses in pounds and kilograms: converted in the
    query (a VALUES table of the KB's units), as the executor converts."""
    runs, disagreements = differential(kb_for(EXAMPLE_KB_EXT), endpoint_for(EXAMPLE_KB_EXT),
                                       ENCODING_OF[EXAMPLE_KB_EXT], "guided", 60,
                                       ExecOptions(unit_conversion=True))
    assert not disagreements, disagreements[:3]
    assert len(runs) >= 60


def test_at_least_two_hundred_generated_programs_run_on_virtuoso():
    assert sum(count for *_, count in GENERATED) >= 200
