"""koplc serve: the page and JSON API to watch and correct the agent."""

from __future__ import annotations

from koplc import api
from koplc.cli.common import add_schema


def add_serve(commands) -> None:
    sub = commands.add_parser("serve", help="serve the agent's web page and JSON API",
                              description=__doc__)
    sub.add_argument("--kb", help="KB file (default: the MetaQA movie KB)")
    add_schema(sub)
    sub.add_argument("--lm", default="embedded", help="embedded, a server URL, a .gguf file")
    sub.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback)")
    sub.add_argument("--port", type=int, default=8321)
    sub.add_argument("--demos", help="JSONL of {question, program} demonstrations "
                     "(default: the pool the few-shot front end uses on the KB)")
    sub.add_argument("--saved", help="JSONL file corrected dialogs are appended to "
                     "(default: agent-dialogs.jsonl in koplc's cache folder)")
    sub.add_argument("-k", type=int, default=6, help="candidate actions a round (1: greedy)")
    sub.add_argument("--max-runs", type=int, default=2, help="agent runs at once")
    sub.add_argument("--frontends", default="llm", help="other front ends the page offers")
    sub.set_defaults(run=serve)


def serve(args) -> int:
    from koplc.server import serve as serve_app

    serve_app(server_state(args), args.host, args.port)
    return 0


def server_state(args):
    """The server's state from the command's options (also used by the tests). Every front
    end, the agent too, is opened through the registry (`api.open_frontend`)."""
    from koplc.endpoint_mode import is_endpoint
    from koplc.kopl.errors import KoplcError
    from koplc.llm.agent.frontend import AgentSettings
    from koplc.llm.agent.loop import AgentOptions
    from koplc.llm.lm.model_cache import cache_root
    from koplc.llm.symkgqa.kb_pool import read_demos
    from koplc.server import LockedLM, ServerState

    if is_endpoint(args.kb):  # the page steps the agent on one KB in memory
        raise KoplcError("koplc serve takes a KB file; a SPARQL endpoint's KB is not served "
                         "yet (koplc compile and koplc eval take --kb URL)", code="usage")
    kb = api.load_kb(args.kb, schema=args.schema)
    lm = LockedLM(api.open_lm(args.lm) if isinstance(args.lm, str) else args.lm)
    saved = args.saved or str(cache_root() / "agent-dialogs.jsonl")
    settings = AgentSettings(AgentOptions(k=args.k), demos=tuple(read_demos(args.demos))
                             if args.demos else None, saved=saved)
    # The page steps the agent's runs itself, so it holds the Agent behind the front end.
    agent = api.open_frontend("agent", lm=lm, options=settings).inner.agent(kb)
    others = {name: api.open_frontend(name, lm=lm)
              for name in args.frontends.split(",") if name and name != "agent"}
    return ServerState(kb, agent, others, max_runs=args.max_runs)
