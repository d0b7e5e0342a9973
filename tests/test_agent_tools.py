"""The agent's tools on the example KB, on the native executor and on pyoxigraph: short,
deterministic outputs, names instead of IRIs, and every bad call an observation."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from koplc.kopl.kb.cache import load_kb
from koplc.llm.agent import tools as tools_module
from koplc.llm.agent.readonly import UnsafeQuery, require_read_only
from koplc.llm.agent.tools import Tools

KB_PATH = Path(__file__).parent / "fixtures" / "kopl" / "example_kb.json"


@pytest.fixture(scope="module")
def kb():
    return load_kb(KB_PATH)


@pytest.fixture(scope="module", params=["native", "oxigraph"])
def tools(request, kb):
    return Tools(kb, backend=request.param)


@pytest.mark.model
def test_search_nodes_names_entities_and_concepts(tools):
    seen = tools.call("SearchNodes", "Lebron")
    assert seen.ok and seen.text.splitlines()[0] == "LeBron James (entity)"
    assert "basketball player (concept)" in seen.text


@pytest.mark.model
def test_search_graph_patterns_ranks_by_meaning(tools):
    seen = tools.call("SearchGraphPatterns", 'Find("LeBron James")', "how tall")
    assert seen.text.splitlines()[0] == "attribute height -> 206 centimetre"
    assert "qualifier sport number of member of sports team -> 23" in seen.text
    assert seen.text.endswith("more")  # truncated, with a count
    assert seen == tools.call("SearchGraphPatterns", 'Find("LeBron James")', "how tall")


@pytest.mark.model
def test_search_graph_patterns_takes_sparql(tools):
    seen = tools.call("SearchGraphPatterns",
                      'SELECT ?e WHERE { ?e <pred:name> "LeBron James" }', "team")
    assert seen.text.splitlines()[0].startswith("relation member of sports team forward")


def test_execute_kopl_answers_with_names(tools):
    assert tools.call("ExecuteKoPL", 'QueryAttr(Find("LeBron James"), "height")').text == \
        "206 centimetre"
    seen = tools.call("ExecuteKoPL", "Find(LeBron James)\nRelate(member of sports team, forward)")
    assert seen.answers == ("Cleveland Cavaliers",)


def test_a_set_of_names_is_answered_sorted_once_each(tools):
    """Names or values of several entities come sorted, each once: not in the order a KB
    happens to store its entities in (a fragment of an endpoint's KB stores them otherwise)."""
    seen = tools.call("ExecuteKoPL", "FindAll()\nFilterConcept(athlete)\nQueryName()")
    assert len(seen.answers) > 1 and seen.answers == tuple(sorted(set(seen.answers)))


def test_a_patterns_sample_does_not_depend_on_the_order_facts_are_read_in(tools):
    nodes = tools.entity_nodes("FindAll()")[:60]
    assert tools.patterns(nodes) == tools.patterns(nodes[::-1])


def test_execute_sparql_answers_with_names(tools):
    seen = tools.call("ExecuteSPARQL", 'SELECT ?e WHERE { ?e <pred:name> "LeBron James" }')
    assert seen.answers == ("LeBron James",) and "http" not in seen.text


@pytest.mark.parametrize("query", [
    "INSERT DATA { <a> <b> <c> }", "DELETE WHERE { ?s ?p ?o }", "LOAD <http://127.0.0.1/x>",
    "CLEAR ALL", "SELECT * WHERE { SERVICE <http://127.0.0.1/sparql> { ?s ?p ?o } }",
    "PREFIX p: <urn:x> DROP GRAPH <urn:g>",
])
def test_updates_and_service_are_refused(tools, query):
    with pytest.raises(UnsafeQuery):
        require_read_only(query)
    seen = tools.call("ExecuteSPARQL", query)
    assert not seen.ok and "read-only" in seen.text


def test_a_keyword_inside_a_string_is_no_update():
    require_read_only('SELECT ?x WHERE { ?x <pred:name> "DELETE ME" } # INSERT')


@pytest.mark.parametrize("call", [
    ("ExecuteKoPL", "Foo("), ("ExecuteKoPL", "Find(Nobody)\nQueryName()"), ("NoSuchTool",),
    ("SearchGraphPatterns", "Count(FindAll())", "x"), ("ExecuteSPARQL", "SELECT nonsense"),
    ("SearchNodes",), ("SearchNodes", ""),
])
def test_a_bad_call_is_an_observation(tools, call):
    seen = tools.call(*call)
    assert isinstance(seen.text, str) and (not seen.ok or seen.answers == ())


def test_a_tool_that_hangs_times_out(kb, monkeypatch):
    slow = Tools(kb, timeout=0.3)
    monkeypatch.setattr(slow, "search_nodes", lambda name: time.sleep(2))  # fault injection
    clock = time.perf_counter()
    seen = slow.call("SearchNodes", "x")
    assert time.perf_counter() - clock < 1.5
    assert not seen.ok and "timed out" in seen.text


def test_output_is_limited(kb):
    seen = Tools(kb, limit=2).call("ExecuteKoPL", "FindAll()")
    assert seen.text.splitlines()[-1].startswith("... ") and len(seen.text.splitlines()) == 4
    assert len(tools_module.listing(["x" * 5000], 1)) < tools_module.MAX_CHARS + 20


@pytest.mark.parametrize("backend", ["native", "oxigraph"])
def test_programs_run_across_units_when_the_tools_convert(kb, backend):
    from koplc.kopl.execution.executor import CONVERTING

    program = 'VerifyNum(QueryAttr(Find("LeBron James"), "height"), "2 metre", ">")'
    assert Tools(kb, backend=backend, options=CONVERTING).execute_kopl(program).text == "yes"
    assert Tools(kb, backend=backend).execute_kopl(program).text != "yes"  # same unit only
