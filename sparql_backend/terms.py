"""RDF terms as text: escaped literals and IRIs for SPARQL and N-Triples, and the neutral
`Term` both stores return.

Every name, key and value that reaches a query or an N-Triples file goes through here. IRIs are
built by percent-encoding a local name (so no quote, bracket, brace, space or `#` can end one);
literals escape quotes, backslashes and line breaks with the ECHAR escapes both languages share.
SPARQL's ``\\u`` escapes are never written: the standard applies them before parsing, where an
escaped quote would end the string.
"""

from __future__ import annotations

import math
from datetime import date
from typing import NamedTuple
from urllib.parse import quote, unquote

XSD = "http://www.w3.org/2001/XMLSchema#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
_SPARQL_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r",
                                 "\t": "\\t", "\b": "\\b", "\f": "\\f"})
# N-Triples also takes \u escapes inside strings (no pre-pass there): use them for the other
# control characters, which some stores refuse raw.
_NT_ESCAPES = str.maketrans({**{chr(c): f"\\u{c:04X}" for c in range(32)},
                             "\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t",
                             "\x7f": "\\u007F"})


class Term(NamedTuple):
    """One RDF term of a query result: kind is iri, literal or bnode."""

    kind: str
    value: str
    datatype: str | None = None
    lang: str | None = None


def local_name(name: str, underscores: bool = False) -> str:
    """`name` made safe for an IRI's last segment (an injective encoding).

    With `underscores` a space is written ``_`` (KQA Pro's convention) and a real ``_`` is
    percent-encoded, so the two stay distinct.

    >>> local_name("Human Development Index", underscores=True), local_name('a>b"c')
    ('Human_Development_Index', 'a%3Eb%22c')
    """
    if underscores:
        # Every % of quote's output starts an escape, so "%20" is only ever a space.
        return quote(name, safe="").replace("_", "%5F").replace("%20", "_")
    return quote(name, safe="")


def name_of(segment: str, underscores: bool = False) -> str:
    """The name `local_name` encoded into `segment`."""
    if underscores:
        segment = segment.replace("_", " ")
    return unquote(segment)


def iri(text: str) -> str:
    """An IRI reference as written in SPARQL and N-Triples; `text` must be percent-encoded."""
    return f"<{text}>"


def string(text: str) -> str:
    """A plain string literal in SPARQL.

    >>> string('say "hi"\\n')
    '"say \\\\"hi\\\\"\\\\n"'
    """
    return f'"{text.translate(_SPARQL_ESCAPES)}"'


def nt_string(text: str) -> str:
    """A plain string literal in N-Triples."""
    return f'"{text.translate(_NT_ESCAPES)}"'


def double_text(number: float) -> str:
    """The xsd:double lexical form of a float (round-trips exactly)."""
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "INF" if number > 0 else "-INF"
    return repr(float(number))


# Typed literals in queries, which declare the xsd: prefix.

def double(number: float) -> str:
    """An xsd:double literal."""
    return f'"{double_text(number)}"^^xsd:double'


def integer(number: int) -> str:
    return f'"{int(number)}"^^xsd:integer'


def date_literal(day: date) -> str:
    return f'"{day.isoformat()}"^^xsd:date'


def gyear_text(year: int) -> str:
    """The xsd:gYear lexical form (at least four digits)."""
    return f"{'-' if year < 0 else ''}{abs(year):04d}"


def lang_string(text: str, lang: str, nt: bool = False) -> str:
    return f"{nt_string(text) if nt else string(text)}@{lang}"
