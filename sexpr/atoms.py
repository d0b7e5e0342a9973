"""What an S-expression atom looks like: operators, mids, classes, names and typed literals.

Shared by the parser and the printer so that what one writes the other reads back the same way.
A typed literal's value is read by `koplc.kopl.values` (the reader the checker and the executor
use): a number is what the engine reads as a quantity without a unit, a gYear what it reads as a
year, a date what it reads as a date; the value must also be one plain atom, so that it prints
back as it was read.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from koplc.kopl import values
from koplc.kopl.values import DATE, NOW, QUANTITY, TIME, YEAR

OPERATORS = ("AND", "JOIN", "R", "COUNT", "ARGMAX", "ARGMIN", "lt", "le", "gt", "ge", "TC")
# Upper-case operators and NOW are refused as entity names; lt/le/gt/ge are ordinary words.
KEYWORDS = frozenset(("AND", "JOIN", "R", "COUNT", "ARGMAX", "ARGMIN", "TC", "NOW"))
COMPARISONS = {"lt": "<", "le": "<=", "gt": ">", "ge": ">="}
INVERSE_SUFFIX = "_inv"
XSD = "http://www.w3.org/2001/XMLSchema#"

_MID = re.compile(r"[mg]\.[0-9a-z_]+")
_CLASS = re.compile(r"[A-Za-z_][\w-]*(?:\.[\w-]+)+")
_PLAIN_ATOM = re.compile(r'[^\s()"]+')
_DATATYPE = re.compile(r"<?(?:http://www\.w3\.org/2001/XMLSchema#|xsd:)(\w+)>?")

NUMBER_TYPES = frozenset({"integer", "int", "float", "double", "decimal"})
_KIND_OF_TYPE = {**dict.fromkeys(NUMBER_TYPES, "number"),
                 "gYear": "year", "date": "date", "string": "string"}
_VALUE_TYPE = {"number": QUANTITY, "year": YEAR, "date": DATE}


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
    if match is None or kind is None:
        raise LiteralProblem("unsupported-literal", f"the datatype {datatype!r} of {text!r} has "
                             "no IR filter (supported: xsd integer, int, float, double, decimal, "
                             "gYear, date, string)")
    if kind != "string" and not reads_as(kind, value):
        raise LiteralProblem("bad-literal", f"{value!r} is not a valid {match.group(1)}")
    return Literal(kind, value)


def reads_as(kind: str, value: str) -> bool:
    """Whether `value` is one plain atom that reads as a literal of `kind` (number, year, date).

    >>> reads_as("year", "1990"), reads_as("year", "1990-01-01"), reads_as("number", "3 m")
    (True, False, False)
    """
    if not is_plain_atom(value):
        return False
    wanted = _VALUE_TYPE[kind]
    read = values.read_literal(value, wanted)
    return read is not None and read.type == wanted


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
    if not reads_as(kind, value):
        return None
    if kind == "number":
        datatype = "integer" if _is_integer(value) else "float"
    else:
        datatype = {"year": "gYear", "date": "date"}[kind]
    return f"{value}^^{XSD}{datatype}"


def _is_integer(value: str) -> bool:
    try:
        int(value)
    except ValueError:
        return False
    return True


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
    return text == NOW or (is_plain_atom(text) and values.read_literal(text, TIME) is not None)

