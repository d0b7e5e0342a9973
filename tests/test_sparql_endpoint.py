"""The remote SPARQL client against a real local HTTP server that misbehaves on purpose:
an unreachable endpoint, a timeout and a malformed response each give a clear BackendError
naming the endpoint; transient errors are retried; GET and POST both follow the protocol."""

from __future__ import annotations

import socket

import pytest

from koplc.kopl.errors import BackendError
from koplc.kopl.ir import Count, FindAll
from koplc.sparql_backend.endpoint import Endpoint
from koplc.sparql_backend.lower import lower
from koplc.sparql_backend.results import run_lowered
from misbehaving_endpoint import serve


def unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.server
def test_an_answering_endpoint_runs_a_lowered_program_by_post():
    with serve("ok") as (url, server):
        answer = run_lowered(lower(Count(input=FindAll())), Endpoint(url))
        assert answer.value == "3"
        assert server.requests[0][0] == "POST" and "COUNT(*)" in server.requests[0][1]


@pytest.mark.server
def test_get_sends_the_query_in_the_url():
    with serve("ok") as (url, server):
        assert Endpoint(url, method="GET").ask("ASK { ?s ?p ?o }") is False
        assert server.requests == [("GET", "ASK { ?s ?p ?o }")]


@pytest.mark.server
def test_queries_share_one_kept_alive_connection():
    with serve("ok", http11=True) as (url, server):
        endpoint = Endpoint(url)
        for _ in range(20):
            assert endpoint.select("SELECT (COUNT(*) AS ?count) WHERE { ?s ?p ?o }")
        assert len(server.requests) == 20 and len(set(server.clients)) == 1


@pytest.mark.server
def test_a_connection_closed_while_idle_is_opened_again_without_a_retry():
    with serve("drops-idle", http11=True) as (url, server):
        endpoint = Endpoint(url, retries=0)
        for _ in range(3):
            assert endpoint.ask("ASK { ?s ?p ?o }") is False
        assert len(server.requests) == 3 and len(set(server.clients)) == 3


def test_an_unreachable_endpoint_is_named_after_the_retries():
    url = f"http://127.0.0.1:{unused_port()}/sparql"
    with pytest.raises(BackendError) as caught:
        Endpoint(url, retries=2, backoff=0.01).select("SELECT * WHERE { ?s ?p ?o }")
    message = str(caught.value)
    assert url in message and "cannot connect" in message and "after 3 attempts" in message
    assert caught.value.diagnostics[0].code == "endpoint-unreachable"


@pytest.mark.server
def test_a_timeout_says_how_long_it_waited():
    with serve("slow") as (url, server):
        with pytest.raises(BackendError, match=r"no answer within 0.3 s \(timeout\)") as caught:
            Endpoint(url, timeout=0.3, retries=1, backoff=0.01).select("SELECT * {}")
        assert url in str(caught.value) and len(server.requests) == 2


@pytest.mark.server
@pytest.mark.parametrize("mode, message", [
    ("garbage", "the response is not JSON"),
    ("wrong-shape", "the response is not SPARQL JSON SELECT results"),
])
def test_a_malformed_response_fails_at_once(mode, message):
    with serve(mode) as (url, server):
        with pytest.raises(BackendError, match=message) as caught:
            Endpoint(url, retries=3).select("SELECT * {}")
        assert url in str(caught.value) and len(server.requests) == 1
        assert caught.value.diagnostics[0].code == "endpoint-bad-response"


@pytest.mark.server
def test_a_malformed_ask_answer_fails_too():
    with serve("wrong-shape") as (url, _):
        with pytest.raises(BackendError, match="not a SPARQL JSON ASK result"):
            Endpoint(url).ask("ASK {}")


@pytest.mark.server
def test_transient_errors_are_retried_until_the_endpoint_answers():
    with serve("flaky") as (url, server):
        rows = Endpoint(url, retries=2, backoff=0.01).select("SELECT * {}")
        assert rows[0]["count"].value == "3" and len(server.requests) == 3


@pytest.mark.server
def test_a_server_error_that_persists_reports_its_status_and_body():
    with serve("html-500") as (url, server):
        with pytest.raises(BackendError, match=r"HTTP 500 .*Internal Server Error"):
            Endpoint(url, retries=1, backoff=0.01).select("SELECT * {}")
        assert len(server.requests) == 2


@pytest.mark.server
def test_a_bad_request_is_not_retried_and_shows_the_servers_message():
    with serve("bad-request") as (url, server):
        with pytest.raises(BackendError, match="HTTP 400 .*SPARQL compiler"):
            Endpoint(url, retries=3).select("SELECT * {}")
        assert len(server.requests) == 1


@pytest.mark.server
def test_a_hang_up_is_a_transient_failure():
    with serve("hang-up") as (url, server):
        with pytest.raises(BackendError, match=url):
            Endpoint(url, retries=1, backoff=0.01).select("SELECT * {}")
        assert len(server.requests) == 2


def test_only_http_urls_are_endpoints():
    with pytest.raises(BackendError, match="expected an http"):
        Endpoint("file:///etc/passwd")
