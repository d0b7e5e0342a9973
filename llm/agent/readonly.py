"""The read-only gate of the SPARQL tool: a query runs only when it is a SELECT, ASK,
CONSTRUCT or DESCRIBE with no update operation and no SERVICE clause anywhere."""

from __future__ import annotations

import re

from koplc.kopl.errors import KoplcError

# Strings, IRIs and comments are blanked first, so a name such as "Delete Me" is no keyword.
_OPAQUE = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|'
                     r"'(?:[^'\\\n]|\\.)*'|<[^<>\s{}]*>|#[^\n]*|[?$]\w+|[\w.-]*:[\w.-]+")
_FORBIDDEN = ("INSERT", "DELETE", "LOAD", "CLEAR", "CREATE", "DROP", "COPY", "MOVE", "ADD",
              "WITH", "SERVICE")
_WORD = re.compile(r"\b(" + "|".join(_FORBIDDEN) + r")\b", re.IGNORECASE)
_FORM = re.compile(r"^\s*(?:(?:PREFIX\s+\S*:\s*|BASE\s*)<>\s*)*(SELECT|ASK|CONSTRUCT|DESCRIBE)\b",
                   re.IGNORECASE)


class UnsafeQuery(KoplcError):
    """A SPARQL text the tool refuses to run."""

    default_code = "unsafe-query"


def blanked(query: str) -> str:
    """The query with its strings, IRIs and comments emptied.

    >>> blanked('SELECT ?x WHERE { ?x <p> "DELETE" } # LOAD')
    'SELECT ?v WHERE { ?v <> "" } '
    """
    def blank(match: re.Match) -> str:
        text = match.group(0)
        if text.startswith("#"):
            return ""
        if text.startswith(('"""', "'''")):
            return text[:3] + text[-3:]
        if text[0] in "<\"'":
            return text[0] + text[-1]
        return "?v" if text[0] in "?$" else "p:n"
    return _OPAQUE.sub(blank, query)


def require_read_only(query: str) -> None:
    """Raise UnsafeQuery unless `query` is a read-only query form without SERVICE."""
    text = blanked(query)
    found = _WORD.search(text)
    if found:
        word = found.group(1).upper()
        what = "a federated SERVICE call" if word == "SERVICE" else f"an update ({word})"
        raise UnsafeQuery(f"the SPARQL tool runs read-only queries only; this query has {what}")
    if not _FORM.match(text):
        raise UnsafeQuery("the SPARQL tool runs SELECT, ASK, CONSTRUCT or DESCRIBE queries only")
