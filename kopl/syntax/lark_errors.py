"""Lark's parse exceptions turned into our ParseError, with a span and a plain message; the
span of a parsed token or subtree.

Shared by the lark-based KoPL syntaxes (nested calls, JSON, BART). Each passes labels for its
terminal names (``{"RPAR": "')'"}``) and its bracket pairs, so messages read "expected ',' or
')'" and an input that ends inside a bracket points at the bracket never closed.
"""

from __future__ import annotations

from lark import Lark, Token, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from koplc.kopl.diagnostics import Span
from koplc.kopl.errors import ParseError

_BRACKET_WORDS = {"(": "parentheses", "[": "brackets", "{": "braces"}


def offsets(node: Tree | Token) -> tuple[int, int]:
    """Where a parsed token or subtree starts and ends in the text (0-based offsets)."""
    if isinstance(node, Token):
        # lark types token positions as optional for tokens made by hand; the lexer sets them.
        assert node.start_pos is not None and node.end_pos is not None
        return node.start_pos, node.end_pos
    return node.meta.start_pos, node.meta.end_pos


def span_of(text: str, node: Tree | Token) -> Span:
    """The span in `text` of a parsed token or subtree."""
    return Span.at_offset(text, *offsets(node))


def parse_with(parser: Lark, text: str, labels: dict[str, str],
               brackets: dict[str, str]) -> Tree:
    """`parser.parse(text)`, raising ParseError (never a lark exception) on bad input."""
    try:
        return parser.parse(text)
    except UnexpectedInput as err:
        raise syntax_error(err, parser, text, labels, brackets) from None
    except LarkError as err:  # pragma: no cover - lark internals, not input errors
        raise ParseError(str(err), span=Span.at_offset(text, 0), source=text) from None


def parse_nonempty(parser: Lark, text: str, labels: dict[str, str], brackets: dict[str, str],
                   what: str = "program") -> Tree:
    """`parse_with`, but blank text is an `empty-program` ParseError ("the program is empty")."""
    if not text.strip():
        raise ParseError(f"the {what} is empty", code="empty-program",
                         span=Span.at_offset(text, 0), source=text)
    return parse_with(parser, text, labels, brackets)


def syntax_error(err: UnexpectedInput, parser: Lark, text: str, labels: dict[str, str],
                 brackets: dict[str, str]) -> ParseError:
    """The ParseError for one of lark's UnexpectedInput exceptions."""
    if isinstance(err, UnexpectedCharacters):
        return _bad_character(err, text, labels)
    if isinstance(err, UnexpectedToken):
        return _bad_token(err, parser, text, labels, brackets)
    pos = _clamp(text, getattr(err, "pos_in_stream", None))
    return ParseError("unexpected input", span=Span.at_offset(text, pos, pos + 1), source=text)


def _bad_character(err: UnexpectedCharacters, text: str, labels: dict[str, str]) -> ParseError:
    pos = _clamp(text, err.pos_in_stream)
    char = text[pos] if pos < len(text) else ""
    if char in "\"'":
        end = text.find("\n", pos)
        return ParseError("unterminated string", code="unterminated-string",
                          span=Span.at_offset(text, pos, len(text) if end == -1 else end),
                          source=text)
    message = f"unexpected character {char!r}"
    expected = _expected(err.allowed or (), labels)
    if expected:
        message += f"; expected {expected}"
    return ParseError(message, span=Span.at_offset(text, pos, pos + 1), source=text)


def _bad_token(err: UnexpectedToken, parser: Lark, text: str, labels: dict[str, str],
               brackets: dict[str, str]) -> ParseError:
    token = err.token
    at_end = token.type == "$END"
    pos = len(text) if at_end else _clamp(text, token.start_pos)
    opened = _open_brackets(parser, text, pos, brackets)
    closers = {close: open_ for open_, close in brackets.items()}
    if at_end and opened:
        bracket = opened[-1]
        return ParseError(f"unbalanced {_BRACKET_WORDS.get(bracket.value, 'brackets')}: "
                          f"{bracket.value!r} is never closed", code=_unbalanced(bracket.value),
                          span=span_of(text, bracket),
                          source=text)
    if not at_end and str(token) in closers and not any(
            b.value == closers[str(token)] for b in opened):
        return ParseError(f"unbalanced {_BRACKET_WORDS.get(closers[str(token)], 'brackets')}: "
                          f"{str(token)!r} has no matching {closers[str(token)]!r}",
                          code=_unbalanced(closers[str(token)]),
                          span=Span.at_offset(text, pos, token.end_pos), source=text)
    found = "the end of the input" if at_end else repr(_shorten(str(token)))
    expected = _expected(_acceptable(err), labels)
    message = f"expected {expected}, found {found}" if expected else f"unexpected {found}"
    end = pos if at_end else token.end_pos
    return ParseError(message, span=Span.at_offset(text, pos, end), source=text)


def _open_brackets(parser: Lark, text: str, pos: int, brackets: dict[str, str]) -> list[Token]:
    """The brackets still open before `pos`, outermost first (strings are skipped by the lexer)."""
    closers = {close: open_ for open_, close in brackets.items()}
    stack: list[Token] = []
    try:
        for token in parser.lex(text[:pos]):
            if token.value in brackets:
                stack.append(token)
            elif token.value in closers and stack and stack[-1].value == closers[token.value]:
                stack.pop()
    except LarkError:
        pass
    return stack


def _acceptable(err: UnexpectedToken) -> set[str]:
    """The terminals the parser would take here; LALR's own `expected` may over-report."""
    try:
        return err.interactive_parser.accepts()
    except (LarkError, AttributeError):
        return set(err.expected or ())


def _expected(names, labels: dict[str, str]) -> str:
    known = [labels[name] for name in labels if name in set(names)]
    if not known:
        return ""
    return known[0] if len(known) == 1 else f"{', '.join(known[:-1])} or {known[-1]}"


def _unbalanced(bracket: str) -> str:
    return "unbalanced-parens" if bracket == "(" else "unbalanced-brackets"


def _shorten(value: str) -> str:
    return value if len(value) <= 30 else value[:27] + "..."


def _clamp(text: str, pos: int | None) -> int:
    return len(text) if pos is None else max(0, min(pos, len(text)))
