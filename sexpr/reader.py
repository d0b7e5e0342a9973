"""Read S-expression text into nested lists of atoms with spans; lark's errors become ours."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lark import Token
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedToken
from lark.tree import Meta
from lark.visitors import Transformer_NonRecursive, v_args

from koplc.grammar import load_grammar
from koplc.kopl.diagnostics import Span
from koplc.kopl.errors import ParseError
from koplc.kopl.syntax.lark_errors import span_of

MAX_DEPTH = 100  # far beyond any real logical form; keeps interpretation off the stack limit


@dataclass(frozen=True)
class Atom:
    """One atom as written; `quoted` for a double-quoted string (with any @lang or ^^type)."""

    text: str
    span: Span
    quoted: bool = False


@dataclass(frozen=True)
class SList:
    """A parenthesised list of items."""

    items: tuple[Atom | SList, ...]
    span: Span
    depth: int = 1

    @property
    def head(self) -> Atom | SList | None:
        return self.items[0] if self.items else None

    @property
    def args(self) -> tuple[Atom | SList, ...]:
        return self.items[1:]


Item = Atom | SList


class _ToItems(Transformer_NonRecursive):
    """Builds `Atom`s and `SList`s from lark's tree; methods named after the grammar's rules."""

    def __init__(self, text: str):
        super().__init__()
        self.text = text

    def ATOM(self, token: Token) -> Atom:
        return Atom(str(token), span_of(self.text, token))

    def STRING(self, token: Token) -> Atom:
        return Atom(str(token), span_of(self.text, token), quoted=True)

    # Sequence, not list: in the class body `list` is the rule method below.
    @v_args(meta=True)
    def list(self, meta: Meta, children: Sequence[Item]) -> SList:
        depth = 1 + max((c.depth for c in children if isinstance(c, SList)), default=0)
        span = Span.at_offset(self.text, meta.start_pos, meta.end_pos)
        return SList(tuple(children), span, depth)

    def start(self, children: Sequence[Item]) -> Item:
        return children[0]


def read_items(text: str) -> Item:
    """The item tree of `text`; raises ParseError pointing at the first syntax problem."""
    try:
        tree = load_grammar("sexpr").parse(text)
    except UnexpectedCharacters as error:
        raise _unexpected_character(text, error.pos_in_stream or 0) from None
    except UnexpectedToken as error:
        raise _unexpected_token(text, error.token) from None
    except LarkError as error:
        raise ParseError(f"cannot read the S-expression: {error}",
                         span=Span.at_offset(text, 0)) from None
    item = _ToItems(text).transform(tree)
    if isinstance(item, SList) and item.depth > MAX_DEPTH:
        raise ParseError(f"the expression nests deeper than {MAX_DEPTH} lists", code="too-deep",
                         span=item.span)
    return item


def _unexpected_character(text: str, offset: int) -> ParseError:
    if text[offset:offset + 1] == '"':
        return ParseError("unterminated string: this '\"' has no closing quote",
                          code="unterminated-string", span=Span.at_offset(text, offset, offset + 1))
    return ParseError(f"unexpected character {text[offset:offset + 1]!r}",
                      span=Span.at_offset(text, offset, offset + 1))


def _unexpected_token(text: str, token: Token) -> ParseError:
    if token.type == "$END":
        if not text.strip():
            return ParseError("the input is empty; expected an S-expression",
                              code="empty-program", span=Span.at_offset(text, 0))
        offset = _unclosed_paren(text)
        if offset is not None:
            return ParseError("unbalanced parentheses: this '(' is never closed",
                              code="unbalanced-parens",
                              span=Span.at_offset(text, offset, offset + 1))
        return ParseError("unexpected end of input", span=Span.at_offset(text, len(text)))
    start = token.start_pos or 0
    span = Span.at_offset(text, start, token.end_pos or start + 1)
    if token.type == "RPAR":
        return ParseError("unbalanced parentheses: this ')' has no matching '('",
                          code="unbalanced-parens", span=span)
    return ParseError(f"unexpected {str(token)!r} after the end of the expression; "
                      "write one S-expression", code="trailing-text", span=span)


def _unclosed_paren(text: str) -> int | None:
    """The offset of the innermost '(' left open at the end of the text, skipping strings."""
    opened: list[int] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == '"':
            i = _string_end(text, i)
            continue
        if char == "(":
            opened.append(i)
        elif char == ")" and opened:
            opened.pop()
        i += 1
    return opened[-1] if opened else None


def _string_end(text: str, start: int) -> int:
    i = start + 1
    while i < len(text) and text[i] != '"':
        i += 2 if text[i] == "\\" else 1
    return i + 1
