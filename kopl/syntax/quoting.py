"""Quoted string arguments: reading them with Python's backslash escapes, writing them back."""

from __future__ import annotations

import json
import re
import unicodedata

_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{[^}]*\}|[0-7]{1,3}|.)",
                     re.DOTALL)
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "a": "\a",
                   "\\": "\\", "'": "'", '"': '"'}


def scan_quoted(text: str, start: int) -> int | None:
    """The offset just past the closing quote of the string opening at `start`, or None."""
    quote_char = text[start]
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == quote_char:
            return i + 1
        elif text[i] == "\n":
            return None
        else:
            i += 1
    return None


def unquote(literal: str) -> str:
    r"""The value of a single- or double-quoted string literal, with Python's escapes.

    Raises ValueError or KeyError for a malformed escape (e.g. ``\U`` beyond Unicode).

    >>> unquote(r"'it\'s \u00e9\n'"), unquote(r'"say \"hi\""')
    ("it's é\n", 'say "hi"')
    """
    return _ESCAPE.sub(_unescape, literal[1:-1])


def _unescape(match: re.Match) -> str:
    code = match.group(1)
    if code[0] in "xuU" and len(code) > 1:
        return chr(int(code[1:], 16))
    if code[0] == "N" and len(code) > 1:
        return unicodedata.lookup(code[2:-1])
    if code[0] in "01234567":
        return chr(int(code, 8))
    # Like Python, an unknown escape (e.g. "\d") keeps its backslash.
    return _SIMPLE_ESCAPES.get(code, "\\" + code)


def quote(value: str) -> str:
    """A double-quoted form of `value` that `unquote` reads back exactly.

    >>> quote('say "hi"')
    '"say \\\\"hi\\\\""'
    """
    return json.dumps(value, ensure_ascii=False)
