"""A real HTTP server on 127.0.0.1 that plays a SPARQL endpoint and misbehaves on purpose.

`serve(mode)` starts it in a thread and yields (url, server); `server.requests` lists the
(method, query) of every request. Modes: ok (answers every query: one row with count 3, ASK
false), slow (answers after 2 s), garbage (200 with a body that is not JSON), wrong-shape (200
with JSON that is not SPARQL results), html-500 (always a 500 error page), flaky (503 twice,
then ok), bad-request (400 with Virtuoso's kind of message), hang-up (closes the connection
without answering), drops-idle (answers as ok, then closes the connection without saying so,
as a server does with an idle kept-alive connection). `server.clients` lists the client port of
every request; with `http11`, the server keeps connections alive as HTTP/1.1 does.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

OK_SELECT = {"head": {"vars": ["count"]}, "results": {"bindings": [{"count": {
    "type": "literal", "value": "3",
    "datatype": "http://www.w3.org/2001/XMLSchema#integer"}}]}}
OK_ASK = {"head": {}, "boolean": False}


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query).get("query", [""])
        self.respond("GET", query[0])

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
        self.respond("POST", urllib.parse.parse_qs(body).get("query", [""])[0])

    def respond(self, method: str, query: str) -> None:
        server = self.server
        server.requests.append((method, query))
        server.clients.append(self.client_address[1])
        mode = server.mode
        if mode == "drops-idle":
            self.close_connection = True  # after this answer, unannounced
            mode = "ok"
        if mode == "flaky" and len(server.requests) <= 2:
            return self.send(503, b"busy", "text/plain")
        if mode == "slow":
            time.sleep(2)
        if mode in ("ok", "flaky", "slow"):
            data = OK_ASK if query.lstrip().upper().startswith("ASK") or " ASK " in query else \
                OK_SELECT
            return self.send(200, json.dumps(data).encode(), "application/sparql-results+json")
        if mode == "garbage":
            return self.send(200, b"<html>this is not JSON", "application/sparql-results+json")
        if mode == "wrong-shape":
            return self.send(200, b'{"hello": "world"}', "application/sparql-results+json")
        if mode == "html-500":
            return self.send(500, b"<html><body>Internal Server Error</body></html>", "text/html")
        if mode == "bad-request":
            return self.send(400, b"Virtuoso 37000 Error SP030: SPARQL compiler, line 1: syntax "
                                  b"error", "text/plain")
        if mode == "hang-up":
            self.close_connection = True
            self.connection.close()

    def send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(OSError):
            self.wfile.write(body)

    def log_message(self, *args) -> None:  # keep pytest output clean
        pass


class _KeptAlive(_Handler):
    protocol_version = "HTTP/1.1"


@contextlib.contextmanager
def serve(mode: str, http11: bool = False):
    """Run a misbehaving endpoint on a free loopback port for the duration of the block."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _KeptAlive if http11 else _Handler)
    server.mode, server.requests, server.clients = mode, [], []
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/sparql", server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
