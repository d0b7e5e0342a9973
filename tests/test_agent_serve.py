"""koplc serve end to end: a real uvicorn server on 127.0.0.1 with the embedded model, driven
through its JSON API and in a real headless Chromium (Playwright). Screenshots go to
build/screenshots/."""

from __future__ import annotations

import argparse
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytestmark = [pytest.mark.model, pytest.mark.server]

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures"
SHOTS = ROOT / "build" / "screenshots"
CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    import uvicorn

    from koplc.cli.serve import server_state
    from koplc.server import create_app

    saved = tmp_path_factory.mktemp("serve") / "dialogs.jsonl"
    args = argparse.Namespace(kb=str(FIXTURES / "kopl" / "example_kb.json"), schema=None,
                              lm="embedded",
                              demos=str(FIXTURES / "agent" / "example_demos.jsonl"),
                              saved=str(saved), k=1, max_runs=2, frontends="")
    state = server_state(args)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = uvicorn.Server(uvicorn.Config(create_app(state), host="127.0.0.1", port=port,
                                        log_level="warning"))
    thread = threading.Thread(target=app.run, daemon=True)
    thread.start()
    while not app.started:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", state, saved
    app.should_exit = True
    thread.join(5)


def post(url: str, data: bytes | dict, timeout: float = 30) -> tuple[int, dict]:
    body = data if isinstance(data, bytes) else json.dumps(data).encode()
    request = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def post_large(base: str, path: str, size: int) -> tuple[int, dict]:
    """POST `size` bytes; the server may answer before it has read them all."""
    import http.client

    host, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    connection.putrequest("POST", path)
    connection.putheader("Content-Type", "application/json")
    connection.putheader("Content-Length", str(size))
    connection.endheaders()
    try:
        connection.send(b"x" * size)
    except (BrokenPipeError, ConnectionResetError):
        pass
    response = connection.getresponse()
    return response.status, json.loads(response.read())


def get(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def wait_idle(base: str, run_id: str, limit: float = 240) -> dict:
    clock = time.time()
    while time.time() - clock < limit:
        status, view = get(f"{base}/api/runs/{run_id}")
        if not view["busy"]:
            return view
        time.sleep(0.3)
    raise AssertionError("the run did not finish")


def test_bad_requests_get_clear_errors(server):
    base, state, _ = server
    assert post(f"{base}/api/runs", b"{not json")[0] == 400
    assert post(f"{base}/api/runs", b"[1, 2]")[0] == 400
    assert post(f"{base}/api/runs", {"question": ""})[0] == 400
    assert get(f"{base}/api/runs/nope")[0] == 404
    assert post(f"{base}/api/runs/nope/replace", {"index": 0, "action": "Done"})[0] == 404
    status, reply = post_large(base, "/api/runs", 10 << 20)
    assert status == 413 and "over" in reply["error"]
    status, reply = post(f"{base}/api/compile", {"question": "q", "frontend": "/etc/passwd"})
    assert status == 400 and "unknown front end" in reply["error"]


def test_twenty_concurrent_runs_are_bounded(server, monkeypatch):
    base, state, _ = server
    gate = threading.Event()  # runs hold their slots until the burst is over
    start = state.agent.start

    def held(question):
        run = start(question)
        advance = run.advance
        run.advance = lambda: gate.wait(60) and advance()
        return run

    monkeypatch.setattr(state.agent, "start", held)
    with ThreadPoolExecutor(20) as pool:
        replies = list(pool.map(lambda i: post(f"{base}/api/runs",
                                               {"question": f"How many athletes are there {i}?"}),
                                range(20)))
    gate.set()
    codes = sorted(code for code, _ in replies)
    assert set(codes) <= {200, 429} and codes.count(200) == state.max_runs
    for code, reply in replies:
        if code == 200:
            state.runs[reply["id"]].stop()
            wait_idle(base, reply["id"])


def test_a_sparql_update_through_a_person_is_an_observation(server):
    base, state, _ = server
    code, reply = post(f"{base}/api/runs", {"question": "How tall is LeBron James?"})
    run_id = reply["id"]
    state.runs[run_id].stop()
    wait_idle(base, run_id)
    code, view = post(f"{base}/api/runs/{run_id}/replace",
                      {"index": 0, "action": "ExecuteSPARQL(DELETE WHERE { ?s ?p ?o })"})
    assert code == 200 and "read-only" in view["turns"][0]["observation"]
    assert len(state.agent.tools.kb.ids) > 0


@pytest.fixture(scope="module")
def page():
    # Fails, not skips, without the browser: `make setup` installs Debian's chromium.
    assert CHROMIUM.exists(), "no /usr/bin/chromium: run `make setup` (apt-get install chromium)"
    import playwright.sync_api as playwright
    SHOTS.mkdir(parents=True, exist_ok=True)
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield browser.new_page()
        browser.close()


def ask(page, base: str, question: str) -> None:
    page.goto(base)
    page.fill("#question", question)
    page.click("#ask")


def wait_for_answer(page) -> None:
    page.wait_for_function("document.getElementById('answer').textContent.length > 0",
                           timeout=240_000)


@pytest.mark.browser
def test_browser_asks_and_sees_the_answer(server, page):
    base, _, _ = server
    ask(page, base, "How many basketball teams are there?")
    wait_for_answer(page)
    page.screenshot(path=str(SHOTS / "agent_answer.png"), full_page=True)
    assert page.text_content("#answer") == "1"
    assert "Count()" in page.text_content("#program")
    assert "COUNT" in page.text_content("#sparql")


# A two-hop question whose plan the embedded model gets wrong (it skips the father).
QUESTION, ANSWER = "What is the date of birth of the father of LeBron James Jr.?", "1984-12-30"


@pytest.mark.browser
def test_browser_corrects_a_wrong_step_and_the_answer_changes(server, page):
    base, state, saved = server
    ask(page, base, QUESTION)
    page.wait_for_selector(".turn", timeout=240_000)
    page.click("#stop")
    wait_for_answer(page)
    before = page.text_content("#answer")
    page.screenshot(path=str(SHOTS / "agent_before_correction.png"), full_page=True)
    for index, action in enumerate(["Find(LeBron James Jr.)", "Relate(father, forward)",
                                    "QueryAttr(date of birth)", "Done"]):
        page.fill("#index", str(index))
        page.fill("#action", action)
        page.click("#replace")
        page.wait_for_selector(f".turn[data-round='{index}'] >> text={action}")
    page.wait_for_function("document.getElementById('answer').textContent == "
                           f"'{ANSWER}'", timeout=60_000)
    assert before != ANSWER
    page.click("#save")
    page.wait_for_function("document.getElementById('status').textContent == 'saved'")
    page.screenshot(path=str(SHOTS / "agent_after_correction.png"), full_page=True)
    record = json.loads(saved.read_text().splitlines()[-1])
    assert record["turns"][0]["rejected"] and record["turns"][0]["by"] == "person"


@pytest.mark.browser
def test_browser_a_failed_question_is_answered_from_the_saved_dialog(server, page):
    base, _, _ = server
    ask(page, base, QUESTION)
    wait_for_answer(page)
    page.screenshot(path=str(SHOTS / "agent_from_saved_dialog.png"), full_page=True)
    assert page.text_content("#answer") == ANSWER
