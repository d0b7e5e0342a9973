"""A SPARQL 1.1 protocol client for remote endpoints (Virtuoso, Fuseki, QLever, ...).

Queries go by POST (form-encoded ``query=``) or GET, asking for SPARQL JSON results, over one
kept-alive HTTP connection a thread (a small query takes 0.9 ms so, against 2.4 ms on a new
connection each: benchmarks/endpoint_client.py). A connection that fails, a timeout, and HTTP
429/500/502/503/504 are retried with exponential backoff; anything else fails at once. Every
failure is a BackendError that names the endpoint and says what went wrong: unreachable, no
answer in time, an HTTP error with the start of its body, or a response that is not SPARQL JSON
results.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from koplc.kopl.errors import BackendError
from koplc.sparql_backend.terms import Term

TRANSIENT_STATUS = frozenset({429, 500, 502, 503, 504})
ACCEPT = "application/sparql-results+json"


class Endpoint:
    """A remote SPARQL endpoint at `url`."""

    def __init__(self, url: str, *, method: str = "POST", timeout: float = 30.0,
                 retries: int = 2, backoff: float = 0.25, headers: dict[str, str] | None = None):
        if method not in ("GET", "POST"):
            raise BackendError(f"SPARQL endpoint {url}: method must be GET or POST, not "
                               f"{method!r}", code="endpoint")
        scheme = urllib.parse.urlsplit(url).scheme
        if scheme not in ("http", "https"):
            raise BackendError(f"SPARQL endpoint {url!r}: expected an http:// or https:// URL",
                               code="endpoint")
        self.url, self.method, self.timeout = url, method, timeout
        self.retries, self.backoff = retries, backoff
        self.headers = {"Accept": ACCEPT, "User-Agent": "koplc", **(headers or {})}
        self.name = f"SPARQL endpoint {url}"
        self._local = threading.local()  # each thread's kept-alive connection

    def select(self, query: str) -> list[dict[str, Term]]:
        """The solutions of a SELECT query."""
        data = self.request(query)
        try:
            bindings = data["results"]["bindings"]
            return [{name: _term(value) for name, value in row.items()} for row in bindings]
        except (KeyError, TypeError, AttributeError, ValueError):
            raise self.failure("the response is not SPARQL JSON SELECT results "
                               f"({_excerpt(json.dumps(data))})", "bad-response") from None

    def ask(self, query: str) -> bool:
        """The answer of an ASK query. Virtuoso 7 answers ASK in JSON as a one-column result
        set (``__ASK_RETVAL``: one row holding 1, or none); that form is read too."""
        data = self.request(query)
        answer = data.get("boolean")
        if answer is None and data.get("head", {}).get("vars") == ["__ASK_RETVAL"]:
            rows = data.get("results", {}).get("bindings")
            if isinstance(rows, list):
                answer = any(row.get("__ASK_RETVAL", {}).get("value") not in (None, "0")
                             for row in rows)
        if not isinstance(answer, bool):
            raise self.failure("the response is not a SPARQL JSON ASK result "
                               f"({_excerpt(json.dumps(data))})", "bad-response")
        return answer

    def request(self, query: str) -> dict:
        """Send the query (retrying transient failures) and decode the JSON response."""
        attempt = 0
        while True:
            try:
                body = self._send(query)
                break
            except _Transient as problem:
                if attempt >= self.retries:
                    raise self.failure(f"{problem} (after {attempt + 1} attempts)",
                                       problem.code) from None
                time.sleep(self.backoff * 2 ** attempt)
                attempt += 1
        try:
            data = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise self.failure(f"the response is not JSON ({_excerpt(body)})",
                               "bad-response") from None
        if not isinstance(data, dict):
            raise self.failure(f"the response is not a JSON object ({_excerpt(body)})",
                               "bad-response")
        return data

    def _send(self, query: str) -> bytes:
        """The response body, over this thread's kept-alive connection; a connection the
        endpoint closed while idle is opened again at once, and a redirect is followed."""
        form = urllib.parse.urlencode({"query": query})
        parts = urllib.parse.urlsplit(self.url)
        target = parts.path or "/"
        if parts.query:
            target += f"?{parts.query}"
        if self.method == "GET":
            target += f"{'&' if parts.query else '?'}{form}"
            body, headers = None, self.headers
        else:
            body = form.encode("utf-8")
            headers = {**self.headers, "Content-Type": "application/x-www-form-urlencoded"}
        for fresh in (False, True):
            connection, reused = self._connection(parts, fresh)
            try:
                connection.request(self.method, target, body=body, headers=headers)
                response = connection.getresponse()
                data = response.read()
            except TimeoutError:
                self._drop()
                raise _Transient(f"no answer within {self.timeout:g} s (timeout)",
                                 "timeout") from None
            except (ConnectionError, OSError, http.client.HTTPException) as err:
                self._drop()
                if reused and not fresh:
                    continue  # closed by the endpoint while idle: once more, anew
                if isinstance(err, http.client.HTTPException):
                    raise _Transient(f"the connection broke: {type(err).__name__} {err}",
                                     "unreachable") from None
                raise _Transient(f"cannot connect: {err}", "unreachable") from None
            if response.will_close:
                self._drop()
            if response.status in (301, 302, 303, 307, 308):
                return self._send_following(query)
            if response.status >= 400:
                raise self._http_error(response.status, response.reason, data)
            return data
        raise AssertionError("unreachable")

    def _connection(self, parts, fresh: bool) -> tuple[http.client.HTTPConnection, bool]:
        """This thread's connection (a new one when `fresh` or none is open) and whether it
        served a query before."""
        held = getattr(self._local, "connection", None)
        if held is None or fresh:
            self._drop()
            kind = (http.client.HTTPSConnection if parts.scheme == "https"
                    else http.client.HTTPConnection)
            held = kind(parts.hostname, parts.port, timeout=self.timeout)
            self._local.connection, self._local.used = held, False
        elif held.sock is not None:
            held.sock.settimeout(self.timeout)  # the schema's queries may take longer
        reused, self._local.used = self._local.used, True
        return held, reused

    def _drop(self) -> None:
        held = getattr(self._local, "connection", None)
        if held is not None:
            held.close()
        self._local.connection = None

    def _send_following(self, query: str) -> bytes:
        """The response body by urllib, which follows redirects (a connection a query)."""
        form = urllib.parse.urlencode({"query": query})
        if self.method == "GET":
            separator = "&" if "?" in self.url else "?"
            request = urllib.request.Request(f"{self.url}{separator}{form}", headers=self.headers)
        else:
            request = urllib.request.Request(
                self.url, data=form.encode("utf-8"), method="POST",
                headers={**self.headers, "Content-Type": "application/x-www-form-urlencoded"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return response.read()
        except urllib.error.HTTPError as err:
            raise self._http_error(err.code, err.reason, err.read() or b"") from None
        except TimeoutError:
            raise _Transient(f"no answer within {self.timeout:g} s (timeout)", "timeout") from None
        except urllib.error.URLError as err:
            if isinstance(err.reason, (TimeoutError, socket.timeout)):
                raise _Transient(f"no answer within {self.timeout:g} s (timeout)",
                                 "timeout") from None
            raise _Transient(f"cannot connect: {err.reason}", "unreachable") from None
        except (ConnectionError, OSError) as err:
            raise _Transient(f"the connection failed: {err}", "unreachable") from None
        except http.client.HTTPException as err:
            raise _Transient(f"the connection broke: {type(err).__name__} {err}",
                             "unreachable") from None

    def _http_error(self, status: int, reason: str, body: bytes) -> Exception:
        """An HTTP error status as a transient failure (retried) or a final one."""
        message = f"HTTP {status} {reason}: {_excerpt(body)}"
        if status in TRANSIENT_STATUS:
            return _Transient(message, "http")
        return self.failure(message, "http")

    def failure(self, message: str, code: str) -> BackendError:
        return BackendError(f"{self.name}: {message}", code=f"endpoint-{code}")


class _Transient(Exception):
    def __init__(self, message: str, code: str):
        super().__init__(message)
        self.code = code


def _term(value: dict) -> Term:
    kind = value["type"]
    if kind == "uri":
        return Term("iri", value["value"])
    if kind in ("literal", "typed-literal"):
        return Term("literal", value["value"], value.get("datatype"), value.get("xml:lang"))
    if kind == "bnode":
        return Term("bnode", value["value"])
    raise ValueError(kind)


def _excerpt(data: bytes | str, limit: int = 200) -> str:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    text = " ".join(text.split())
    return repr(text[:limit] + ("..." if len(text) > limit else ""))
