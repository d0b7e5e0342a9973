"""`koplc serve`: a web page and JSON API to watch the agent and correct it, and to compile
with the other front ends side by side (Starlette on uvicorn, loopback by default).

API (JSON in and out; no request names a file):
  POST /api/runs {"question"}            start an agent run -> {"id"}
  GET  /api/runs/{id}                    its turns, state and, once finished, the result
  POST /api/runs/{id}/replace {"index", "action"}   a person's action at round `index`
  POST /api/runs/{id}/resume | /stop | /save
  POST /api/compile {"question", "frontend"}        another front end's program and answer
Bodies over `max_body` bytes get 413, bad JSON 400, unknown runs 404, and more than
`max_runs` agent runs at once 429.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
from dataclasses import dataclass, field

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Route

from koplc.kopl.errors import KoplcError
from koplc.serve_page import PAGE


class LockedLM:
    """An LM used by one thread at a time (llama.cpp contexts are not thread-safe)."""

    def __init__(self, lm):
        self.lm, self.lock = lm, threading.Lock()
        self.name = getattr(lm, "name", "lm")

    def generate(self, *args, **kwargs):
        with self.lock:
            return self.lm.generate(*args, **kwargs)

    def score(self, *args, **kwargs):
        with self.lock:
            return self.lm.score(*args, **kwargs)


@dataclass
class ServerState:
    """What the app serves: the KB, the agent, the other front ends, the runs in memory."""

    kb: object
    agent: object
    frontends: dict = field(default_factory=dict)
    max_runs: int = 2
    max_body: int = 1 << 20
    runs: dict = field(default_factory=dict)
    busy: set = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)
    ids: itertools.count = field(default_factory=lambda: itertools.count(1))


def create_app(state: ServerState) -> Starlette:
    """The ASGI app over `state`."""

    def error(status: int, message: str) -> JSONResponse:
        return JSONResponse({"error": message}, status_code=status)

    async def body(request: Request) -> dict:
        size = request.headers.get("content-length")
        if size is not None and (not size.isdigit() or int(size) > state.max_body):
            raise _HTTP(413, f"request body over {state.max_body} bytes")
        data = b""
        async for chunk in request.stream():
            data += chunk
            if len(data) > state.max_body:
                raise _HTTP(413, f"request body over {state.max_body} bytes")
        try:
            parsed = json.loads(data or b"{}")
        except (ValueError, UnicodeDecodeError) as err:
            raise _HTTP(400, f"malformed JSON: {err}") from None
        if not isinstance(parsed, dict):
            raise _HTTP(400, "the body must be a JSON object")
        return parsed

    def question_of(data: dict) -> str:
        question = data.get("question")
        if not isinstance(question, str) or not question.strip() or len(question) > 1000:
            raise _HTTP(400, "\"question\" must be a non-empty string of at most 1000 characters")
        return question

    def run_of(request: Request):
        run = state.runs.get(request.path_params["run_id"])
        if run is None:
            raise _HTTP(404, f"no run {request.path_params['run_id']!r}")
        return run

    def start_worker(run_id: str) -> None:
        with state.lock:
            if run_id in state.busy:
                return
            if len(state.busy) >= state.max_runs:
                raise _HTTP(429, f"{state.max_runs} agent runs are going; try again later")
            state.busy.add(run_id)
        threading.Thread(target=_advance, args=(state, run_id), daemon=True).start()

    async def page(request: Request):
        return HTMLResponse(PAGE)

    async def start(request: Request):
        question = question_of(await body(request))
        run_id = f"r{next(state.ids)}"
        with state.lock:  # the slot is held from here: starting a run plans with the LM
            if len(state.busy) >= state.max_runs:
                return error(429, f"{state.max_runs} agent runs are going; try again later")
            state.busy.add(run_id)
        try:
            state.runs[run_id] = await asyncio.to_thread(state.agent.start, question)
        except BaseException:
            state.busy.discard(run_id)
            raise
        threading.Thread(target=_advance, args=(state, run_id), daemon=True).start()
        return JSONResponse({"id": run_id})

    async def show(request: Request):
        run = run_of(request)
        return JSONResponse(_view(run, request.path_params["run_id"] in state.busy))

    async def replace(request: Request):
        run, data = run_of(request), await body(request)
        if request.path_params["run_id"] in state.busy:
            return error(409, "the agent is taking a round; stop it first")
        index, action = data.get("index"), data.get("action")
        if not isinstance(index, int) or not 0 <= index <= len(run.dialog.turns) or \
                not isinstance(action, str) or len(action) > 5000:
            return error(400, "\"index\" must be a round number and \"action\" a string")
        try:
            await asyncio.to_thread(run.replace, index, action)
        except ValueError as err:
            return error(400, str(err))
        return JSONResponse(_view(run, False))

    async def resume(request: Request):
        run = run_of(request)
        run.finished = None if run.finished in ("stopped", "repeat", None) else run.finished
        if run.finished is None:
            start_worker(request.path_params["run_id"])
        return JSONResponse({"ok": True})

    async def stop(request: Request):
        run_of(request).stop()
        return JSONResponse({"ok": True})

    async def save(request: Request):
        run = run_of(request)
        await asyncio.to_thread(state.agent.memory.save, run.dialog)
        return JSONResponse({"ok": True, "saved": len(run.dialog.turns)})

    async def compile_other(request: Request):
        data = await body(request)
        question, name = question_of(data), data.get("frontend", "llm")
        frontend = state.frontends.get(name)
        if frontend is None:
            return error(400, f"unknown front end {name!r}; this server has "
                         f"{', '.join(state.frontends) or 'none'}")
        with state.lock:
            if len(state.busy) >= state.max_runs:
                return error(429, f"{state.max_runs} runs are going; try again later")
            state.busy.add(f"compile-{id(data)}")
        try:
            compiled = await asyncio.to_thread(frontend.compile, question, state.kb)
        finally:
            state.busy.discard(f"compile-{id(data)}")
        return JSONResponse(_result(compiled))

    async def handled(request: Request, handler):
        try:
            return await handler(request)
        except _HTTP as err:
            return error(err.status, err.message)
        except KoplcError as err:
            return error(400, err.render())

    def route(path, handler, methods):
        async def endpoint(request):
            return await handled(request, handler)
        return Route(path, endpoint, methods=methods)

    return Starlette(routes=[
        route("/", page, ["GET"]),
        route("/api/runs", start, ["POST"]),
        route("/api/runs/{run_id}", show, ["GET"]),
        route("/api/runs/{run_id}/replace", replace, ["POST"]),
        route("/api/runs/{run_id}/resume", resume, ["POST"]),
        route("/api/runs/{run_id}/stop", stop, ["POST"]),
        route("/api/runs/{run_id}/save", save, ["POST"]),
        route("/api/compile", compile_other, ["POST"]),
    ])


class _HTTP(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


def _advance(state: ServerState, run_id: str) -> None:
    run = state.runs[run_id]
    try:
        while not run.finished and run.advance() is not None:
            pass
    except Exception as err:  # noqa: BLE001 - a failed round ends the run, not the server
        run.finished = f"error: {type(err).__name__}: {err}"
    finally:
        state.busy.discard(run_id)


def _view(run, busy: bool) -> dict:
    view = {"question": run.question, "turns": [t.__dict__ for t in run.dialog.turns],
            "finished": run.finished, "busy": busy, "result": None}
    if run.finished and not busy:
        from koplc.llm.agent.frontend import compiled_of

        view["result"] = _result(compiled_of(run))
    return view


def _result(compiled) -> dict:
    from koplc.frontends import lower_sparql
    from koplc.kopl.syntax import steps as steps_syntax

    program = compiled.final
    sparql = compiled.sparql
    if sparql is None and program is not None:
        sparql, _ = lower_sparql(program)
    return {"frontend": compiled.frontend, "answers": list(compiled.answers),
            "program": steps_syntax.print_program(program) if program is not None else None,
            "sparql": sparql, "failure": compiled.failure, "error": compiled.error}


def serve(state: ServerState, host: str = "127.0.0.1", port: int = 8321) -> None:
    """Serve the app with uvicorn until interrupted."""
    import uvicorn

    uvicorn.run(create_app(state), host=host, port=port, log_level="warning",
                limit_concurrency=64)
