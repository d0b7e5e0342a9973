"""Quoted string arguments: reading them with their escapes and writing them back."""

from __future__ import annotations

import json

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "/": "/", "\\": "\\",
            '"': '"', "'": "'", "0": "\0"}


def scan_quoted(text: str, start: int) -> int | None:
    """The offset just past the closing quote of the string opening at `start`, or None."""
    quote = text[start]
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == quote:
            return i + 1
        elif text[i] == "\n":
            return None
        else:
            i += 1
    return None


def unquote(raw: str) -> str:
    """The value of a single- or double-quoted string with backslash escapes.

    >>> unquote(r'"a \\"b\\" \\u00e9"'), unquote("'it\\\\'s'")
    ('a "b" é', "it's")
    """
    body = raw[1:-1]
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\" or i + 1 >= len(body):
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt == "u" and _is_hex(body[i + 2:i + 6]):
            out.append(chr(int(body[i + 2:i + 6], 16)))
            i += 6
        else:
            out.append(_ESCAPES.get(nxt, "\\" + nxt))
            i += 2
    return "".join(out)


def _is_hex(text: str) -> bool:
    return len(text) == 4 and all(c in "0123456789abcdefABCDEF" for c in text)


def quote(value: str) -> str:
    """A double-quoted form of `value` that `unquote` reads back exactly.

    >>> quote('say "hi"')
    '"say \\\\"hi\\\\""'
    """
    return json.dumps(value, ensure_ascii=False)
