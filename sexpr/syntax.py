"""GrailQA-style S-expressions ⇄ IR: `parse`, `print_program` and the `looks_like` sniff.

Operators: AND JOIN R COUNT ARGMAX ARGMIN lt le gt ge TC, with typed literals such as
``2.916e+06^^http://www.w3.org/2001/XMLSchema#float``. Also read: Pangu's prompt forms, where a
reverse relation is written ``r_inv`` and an entity by its name, spaces included
(``(JOIN r canadian law)``). Printing is canonical: single spaces, ``(R r)`` for a reverse
relation, full datatype IRIs.

An S-expression always denotes a set of entities (or, under COUNT, a count): the answer is the
set itself. So `parse` never adds a `QueryName` at the root, and `print_program` prints a root
`QueryName(X)` as X. Anything else the S-expressions cannot say (attribute and relation queries,
verification, qualifiers, `Or`, `Select*`, a nested `QueryName`) raises UnsupportedConstruct.
"""

from __future__ import annotations

import re

from koplc.kopl.errors import KoplcError, ParseError
from koplc.kopl.program import Parsed
from koplc.sexpr.atoms import OPERATORS
from koplc.sexpr.parser import build_program
from koplc.sexpr.printer import print_program
from koplc.sexpr.reader import read_items

NAME = "sexpr"

__all__ = ["NAME", "looks_like", "parse", "print_program"]

_HEAD = re.compile(rf"\(\s*(?:{'|'.join(OPERATORS)})(?=[\s()]|$)", re.IGNORECASE)
_BARE_ATOM = re.compile(r'[^\s()"\[\]{}]+')


def parse(text: str) -> Parsed:
    """The IR of an S-expression, with its source map; raises ParseError.

    >>> parse("(COUNT (JOIN (R book.written_work.author) m.0bxtg))").program.op
    'Count'
    """
    try:
        return build_program(read_items(text), text)
    except KoplcError as error:
        raise error.with_source(text) from None
    except RecursionError:
        raise ParseError("the expression nests too deeply to read", code="too-deep",
                         source=text) from None


def looks_like(text: str) -> bool:
    """Whether the text is probably an S-expression: `(` and an operator, or one bare atom.

    >>> looks_like("(AND law.constitution (JOIN r m.01))"), looks_like("Find(x)")
    (True, False)
    """
    stripped = text.strip()
    return bool(_HEAD.match(stripped) or _BARE_ATOM.fullmatch(stripped))
