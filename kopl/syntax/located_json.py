"""JSON read into values that remember where they were written, for the JSON KoPL syntaxes.

`load` parses with ``grammar/json.lark``; every value comes back as a `Located` carrying its
span (and, for an object, its keys' spans). The checking helpers below add one diagnostic per
problem instead of stopping at the first, so a parser can report everything at once.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from lark import Token, Tree

from koplc.grammar.load import load_grammar
from koplc.kopl.diagnostics import Diagnostic, Span
from koplc.kopl.errors import ParseError
from koplc.kopl.syntax.lark_errors import parse_nonempty, span_of

MAX_DEPTH = 64
_LABELS = {"STRING": "a string", "NUMBER": "a number", "LBRACE": "'{'", "LSQB": "'['",
           "COMMA": "','", "COLON": "':'", "RSQB": "']'", "RBRACE": "'}'",
           "TRUE": "true", "FALSE": "false", "NULL": "null", "$END": "the end of the input"}
_BRACKETS = {"[": "]", "{": "}"}
_INTEGER = re.compile(r"-?\d{1,15}")  # longer ones are no index anyway (and int() caps digits)


@dataclass(frozen=True)
class Number:
    """A JSON number, kept as the text written (``180``, ``-1.5e3``)."""

    text: str


@dataclass(frozen=True)
class Located:
    """A JSON value with its span; arrays hold Located items, objects map keys to Located."""

    value: str | Number | bool | None | list[Located] | dict[str, Located]
    span: Span
    key_spans: dict[str, Span] = field(default_factory=dict)


def load(text: str) -> Located:
    """The JSON value of `text` with spans; raises ParseError on bad JSON or bad strings."""
    tree = parse_nonempty(load_grammar("json"), text, _LABELS, _BRACKETS, what="input")
    diagnostics: list[Diagnostic] = []
    value = _convert(tree, text, diagnostics, 0)
    if diagnostics:
        raise ParseError(diagnostics, source=text)
    return value


def _convert(node: Tree | Token, text: str, diagnostics: list[Diagnostic], depth: int) -> Located:
    if isinstance(node, Token):
        return Located(_scalar(node, text, diagnostics), span_of(text, node))
    if node.data == "start":  # only when the grammar does not inline a lone value
        return _convert(node.children[0], text, diagnostics, depth)
    span = span_of(text, node)
    if depth >= MAX_DEPTH:
        raise ParseError(f"JSON nested more than {MAX_DEPTH} levels deep", code="too-deep",
                         span=span, source=text)
    items = [c for c in node.children if not (isinstance(c, Token) and c.type in
                                              ("LSQB", "RSQB", "LBRACE", "RBRACE"))]
    if node.data == "array":
        return Located([_convert(c, text, diagnostics, depth + 1) for c in items], span)
    members: dict[str, Located] = {}
    key_spans: dict[str, Span] = {}
    for pair in items:
        key_token, value_node = pair.children
        assert isinstance(key_token, Token)  # the grammar's pair is STRING ":" value
        key, key_span = _string(key_token, text, diagnostics), span_of(text, key_token)
        if key in members:
            diagnostics.append(Diagnostic("duplicate-key", f"duplicate key {key!r}", key_span))
        members[key] = _convert(value_node, text, diagnostics, depth + 1)
        key_spans[key] = key_span
    return Located(members, span, key_spans)


def _scalar(token: Token, text: str, diagnostics: list[Diagnostic]) -> str | Number | bool | None:
    if token.type == "STRING":
        return _string(token, text, diagnostics)
    if token.type == "NUMBER":
        return Number(token.value)
    return {"TRUE": True, "FALSE": False, "NULL": None}[token.type]


def _string(token: Token, text: str, diagnostics: list[Diagnostic]) -> str:
    try:
        return json.loads(token.value)
    except ValueError:
        diagnostics.append(Diagnostic("bad-string", "invalid string: bad escape or raw "
                                      "control character", span_of(text, token)))
        return token.value[1:-1]


def describe(located: Located) -> str:
    """What kind of JSON value this is, for messages: ``a string``, ``an array``..."""
    value = located.value
    if isinstance(value, bool):
        return "a boolean"
    kinds = {str: "a string", Number: "a number", list: "an array", dict: "an object"}
    return kinds.get(type(value), "null")


def wrong_type(located: Located, expected: str, what: str) -> Diagnostic:
    """The diagnostic for a value of the wrong kind."""
    return Diagnostic("wrong-type", f"{what} must be {expected}, not {describe(located)}",
                      located.span)


def fields(located: Located, keys: tuple[str, ...], what: str,
           diagnostics: list[Diagnostic]) -> dict[str, Located] | None:
    """An object's members when it has exactly `keys`; otherwise diagnostics and None."""
    if not isinstance(located.value, dict):
        diagnostics.append(wrong_type(located, f"an object with keys {_keys(keys)}", what))
        return None
    ok = True
    for key, span in located.key_spans.items():
        if key not in keys:
            diagnostics.append(Diagnostic("unknown-key", f"unknown key {key!r} in {what}; "
                                          f"expected {_keys(keys)}", span))
            ok = False
    for key in keys:
        if key not in located.value:
            diagnostics.append(Diagnostic("missing-key", f"{what} has no {key!r} key",
                                          located.span))
            ok = False
    return located.value if ok else None


def _keys(keys: tuple[str, ...]) -> str:
    return ", ".join(json.dumps(k) for k in keys)


def string(located: Located, what: str, diagnostics: list[Diagnostic]) -> str | None:
    """A string value (a number counts, as its literal text), or a diagnostic and None."""
    if isinstance(located.value, str):
        return located.value
    if isinstance(located.value, Number):
        return located.value.text
    diagnostics.append(wrong_type(located, "a string", what))
    return None


def array(located: Located, what: str, diagnostics: list[Diagnostic]) -> list[Located] | None:
    """An array's items, or a diagnostic and None."""
    if isinstance(located.value, list):
        return located.value
    diagnostics.append(wrong_type(located, "an array", what))
    return None


def strings(located: Located, what: str, diagnostics: list[Diagnostic]
            ) -> list[tuple[str, Span]] | None:
    """An array of strings (numbers as their text) with each item's span, or None."""
    items = array(located, what, diagnostics)
    if items is None:
        return None
    out = [(string(item, f"each item of {what}", diagnostics), item.span) for item in items]
    found = [(value, span) for value, span in out if value is not None]
    return found if len(found) == len(out) else None


def indexes(located: Located, what: str, diagnostics: list[Diagnostic]) -> list[int] | None:
    """An array of integers, or diagnostics and None."""
    items = array(located, what, diagnostics)
    if items is None:
        return None
    out = []
    for item in items:
        if isinstance(item.value, Number) and _INTEGER.fullmatch(item.value.text):
            out.append(int(item.value.text))
        else:
            diagnostics.append(wrong_type(item, "an integer", f"each item of {what}"))
    return out if len(out) == len(items) else None
