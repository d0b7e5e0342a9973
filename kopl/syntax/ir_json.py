"""The IR's own JSON form, the interchange format for other tools (pydantic dump/validate)."""

from __future__ import annotations

import json
import re

from pydantic import ValidationError

from koplc.kopl.diagnostics import Diagnostic, Span
from koplc.kopl.errors import ParseError
from koplc.kopl.ir import Node
from koplc.kopl.program import Parsed, SourceMap, program_from_data, program_to_json

NAME = "ir-json"
_OP_KEY = re.compile(r'"op"\s*:')


def looks_like(text: str) -> bool:
    """Whether the text is a JSON object with an `op` field at its top level; text that is not
    valid JSON looks like IR JSON when it starts an object and has an "op" key (so its error is
    reported as IR JSON's).

    >>> looks_like('{"functions": ["Find"], "inputs": [["op"]]}')
    False
    """
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return text.lstrip().startswith("{") and _OP_KEY.search(text) is not None
    return isinstance(data, dict) and "op" in data


def parse(text: str) -> Parsed:
    """Read IR JSON; raises ParseError at the JSON error or naming the invalid field."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ParseError(f"invalid JSON: {err.msg}", code="bad-json",
                         span=Span.at_offset(text, err.pos, err.pos + 1), source=text) from None
    except RecursionError:
        raise ParseError("JSON nested too deeply", code="too-deep",
                         span=Span.at_offset(text, 0), source=text) from None
    return Parsed(parse_data(data, text), SourceMap(), text)


def parse_data(data: object, text: str = "") -> Node:
    """The program held by already-decoded IR JSON data."""
    try:
        return program_from_data(data)
    except ValidationError as err:
        diagnostics = [Diagnostic("bad-ir", f"{_location(e['loc'])}: {e['msg']}",
                                  Span.at_offset(text, 0))
                       for e in err.errors()[:10]]
        raise ParseError(diagnostics, source=text) from None
    except RecursionError:
        raise ParseError("program nested too deeply", code="too-deep",
                         span=Span.at_offset(text, 0), source=text) from None


def _location(loc: tuple) -> str:
    parts = [str(p) for p in loc]
    if len(parts) > 6:
        parts = ["…", *parts[-4:]]
    return ".".join(parts) or "program"


def print_program(program: Node) -> str:
    """The program as compact IR JSON."""
    return program_to_json(program)
