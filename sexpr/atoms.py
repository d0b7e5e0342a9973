"""What an S-expression atom looks like: operators, mids, classes, names and typed literals.

Shared by the parser and the printer so that what one writes the other reads back the same way.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

OPERATORS = ("AND", "JOIN", "R", "COUNT", "ARGMAX", "ARGMIN", "lt", "le", "gt", "ge", "TC")
# Upper-case operators and NOW are refused as entity names; lt/le/gt/ge are ordinary words.
KEYWORDS = frozenset(("AND", "JOIN", "R", "COUNT", "ARGMAX", "ARGMIN", "TC", "NOW"))
COMPARISONS = {"lt": "<", "le": "<=", "gt": ">", "ge": ">="}
INVERSE_SUFFIX = "_inv"
XSD = "http://www.w3.org/2001/XMLSchema#"

_MID = re.compile(r"[mg]\.[0-9a-z_]+")
_CLASS = re.compile(r"[A-Za-z_][\w-]*(?:\.[\w-]+)+")
_PLAIN_ATOM = re.compile(r'[^\s()"]+')
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_YEAR = re.compile(r"-?\d+")
_DATE = re.compile(r"-?\d{4,}-\d{2}-\d{2}")
_DATATYPE = re.compile(r"<?(?:http://www\.w3\.org/2001/XMLSchema#|xsd:)(\w+)>?")

NUMBER_TYPES = frozenset({"integer", "int", "float", "double", "decimal"})
_KIND_OF_TYPE = {**dict.fromkeys(NUMBER_TYPES, "number"),
                 "gYear": "year", "date": "date", "string": "string"}
_VALUE_SHAPE = {"number": _NUMBER, "year": _YEAR, "date": _DATE}


def is_mid(text: str) -> bool:
    """Whether the atom is a Freebase machine id such as ``m.03zbbx9`` or ``g.11b6``."""
    return _MID.fullmatch(text) is not None


def is_class(text: str) -> bool:
    """Whether the atom is a dotted class name such as ``law.constitution`` (and not a mid)."""
    return _CLASS.fullmatch(text) is not None and not is_mid(text)


def is_plain_atom(text: str) -> bool:
    """Whether the text reads back as one unquoted atom that is not a typed literal."""
    return _PLAIN_ATOM.fullmatch(text) is not None and "^^" not in text


def operator_named(text: str) -> str | None:
    """The canonical spelling of an operator written in any case, or None."""
    folded = {op.lower(): op for op in OPERATORS}
    return folded.get(text.lower())


class LiteralProblem(ValueError):
    """A literal the IR has no filter for (`unsupported-literal`) or a malformed one."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Literal:
    """A typed literal: its kind (number, year, date, string) and its value text."""

    kind: str
    value: str


def read_literal(text: str, quoted: bool) -> Literal:
    """The literal an atom or quoted string writes; raises LiteralProblem.

    >>> read_literal("2.916e+06^^http://www.w3.org/2001/XMLSchema#float", quoted=False)
    Literal(kind='number', value='2.916e+06')
    """
    if quoted:
        body, suffix = _split_quoted(text)
        if not suffix.startswith("^^"):
            return Literal("string", body)
        return _typed(body, suffix[2:], text)
    value, sep, datatype = text.partition("^^")
    if not sep:
        raise LiteralProblem("unsupported-literal", f"{text!r} has no datatype; write a typed "
                             f"literal such as 1990^^{XSD}gYear or a quoted string")
    return _typed(value, datatype, text)


def _split_quoted(text: str) -> tuple[str, str]:
    end = text.rindex('"')
    return unquote(text[1:end]), text[end + 1:]


def _typed(value: str, datatype: str, text: str) -> Literal:
    match = _DATATYPE.fullmatch(datatype)
    kind = _KIND_OF_TYPE.get(match.group(1)) if match else None
    if kind is None:
        raise LiteralProblem("unsupported-literal", f"the datatype {datatype!r} of {text!r} has "
                             "no IR filter (supported: xsd integer, int, float, double, decimal, "
                             "gYear, date, string)")
    shape = _VALUE_SHAPE.get(kind)
    if shape is not None and shape.fullmatch(value) is None:
        raise LiteralProblem("bad-literal", f"{value!r} is not a valid {match.group(1)}")
    return Literal(kind, value)


def unquote(body: str) -> str:
    """The value of a double-quoted string's body, backslash escapes resolved."""
    try:
        return json.loads(f'"{body}"')
    except ValueError:
        escapes = {"n": "\n", "t": "\t", "r": "\r"}
        return re.sub(r"\\(.)", lambda m: escapes.get(m.group(1), m.group(1)), body, flags=re.S)


def write_literal(kind: str, value: str) -> str | None:
    """The canonical text of a literal, or None when the value cannot be written as one.

    >>> write_literal("number", "3"), write_literal("year", "1990")
    ('3^^http://www.w3.org/2001/XMLSchema#integer', '1990^^http://www.w3.org/2001/XMLSchema#gYear')
    """
    if kind == "string":
        return json.dumps(value, ensure_ascii=False)
    if _VALUE_SHAPE[kind].fullmatch(value) is None:
        return None
    if kind == "number":
        datatype = "float" if any(c in value for c in ".eE") else "integer"
    else:
        datatype = {"year": "gYear", "date": "date"}[kind]
    return f"{value}^^{XSD}{datatype}"


def read_time(text: str) -> str | None:
    """The time of a TC constraint: NOW, a year or a date, typed or bare; None otherwise."""
    if text.upper() == "NOW":
        return "NOW"
    if "^^" in text:
        try:
            literal = read_literal(text, quoted=False)
        except LiteralProblem:
            return None
        return literal.value if literal.kind in ("year", "date") else None
    return text if is_time(text) else None


def is_time(text: str) -> bool:
    """Whether the text is NOW, a bare year or a bare date, as TC prints it."""
    return text == "NOW" or bool(_YEAR.fullmatch(text) or _DATE.fullmatch(text))

