"""KoPL steps, the form LLMs write: ``Step N: Func(args)`` lines ending in ``Done``.

Tolerant of real model output: ``Step#`` labels, unquoted arguments with spaces, ``,`` with or
without a space, names that contain commas or parentheses (extra comma-separated pieces are
merged back into the last free-text argument), quoted arguments, a missing Relate direction.
"""

from __future__ import annotations

import re

from lark import Tree
from lark.exceptions import LarkError, UnexpectedInput

from koplc.grammar import load_grammar
from koplc.kopl import registry
from koplc.kopl.diagnostics import Diagnostic, Severity, Span
from koplc.kopl.errors import ParseError
from koplc.kopl.ir import Node
from koplc.kopl.program import Parsed
from koplc.kopl.syntax.lark_errors import offsets, span_of
from koplc.kopl.syntax.quoting import quote, scan_quoted, unquote
from koplc.kopl.syntax.step_list import Step, build_tree, linearize
from koplc.kopl.types import ArgKind

NAME = "kopl-steps"

_DONE_LINE = re.compile(r"^[ \t]*done\.?[ \t]*\r?$", re.IGNORECASE | re.MULTILINE)
_FREE_TEXT = {ArgKind.DIRECTION, ArgKind.COMPARATOR, ArgKind.BETWEEN, ArgKind.AMONG}


def looks_like(text: str) -> bool:
    """Whether the text starts like a steps program."""
    return re.match(r"\s*step\s*#?\s*\d", text, re.IGNORECASE) is not None


def parse(text: str) -> Parsed:
    """Parse a steps program into the IR; raises ParseError with every problem found."""
    if not _DONE_LINE.search(text):
        raise ParseError("the program must end with a 'Done' line", code="missing-done",
                         span=Span.at_offset(text, len(text.rstrip())), source=text)
    try:
        tree = load_grammar("kopl_steps").parse(text)
    except UnexpectedInput as err:
        raise _syntax_error(text, err) from None
    except LarkError as err:  # pragma: no cover - lark internals
        raise ParseError(str(err), span=Span.at_offset(text, 0), source=text) from None
    diagnostics: list[Diagnostic] = []
    steps = [_step(text, node, diagnostics) for node in tree.find_data("step")]
    errors = [d for d in diagnostics if d.is_error]
    if errors:
        raise ParseError(errors, source=text)
    parsed = build_tree(steps, text)
    parsed.warnings = diagnostics + _numbering_warnings(tree, text)
    return parsed


def parse_step(call: str) -> Step:
    """One call as a step reads it: the function name and its textual arguments (quotes
    removed, commas inside parentheses kept); raises ParseError.

    >>> parse_step('Relate("directed by", forward)').args
    ['directed by', 'forward']
    """
    text = f"Step 1: {call.strip()}\nDone"
    try:
        tree = load_grammar("kopl_steps").parse(text)
    except UnexpectedInput as err:
        raise _syntax_error(text, err) from None
    diagnostics: list[Diagnostic] = []
    [step] = [_step(text, node, diagnostics) for node in tree.find_data("step")]
    errors = [d for d in diagnostics if d.is_error]
    if errors:
        raise ParseError(errors, source=text)
    return step


def print_call(function: str, args: list[str]) -> str:
    """One call in canonical form: `print_call("Find", ["Heat"])` is 'Find(Heat)'."""
    return f"{function}({', '.join(_print_arg(a) for a in args)})"


def print_program(program: Node) -> str:
    """The canonical steps text of a program.

    >>> from koplc.kopl.ir import Find, QueryName
    >>> print(print_program(QueryName(input=Find(name="Mercury (planet)"))))
    Step 1: Find(Mercury (planet))
    Step 2: QueryName()
    Done
    """
    lines = [f"Step {i}: {print_call(s.function, s.args)}"
             for i, s in enumerate(linearize(program), start=1)]
    return "\n".join([*lines, "Done"])


def _print_arg(value: str) -> str:
    return quote(value) if _needs_quotes(value) else value


def _needs_quotes(value: str) -> bool:
    if not value or value != value.strip() or value[0] in "\"'" or "," in value:
        return True
    if any(ord(c) < 32 or c in "\x7f\u2028\u2029\x85" for c in value):
        return True
    depth = 0
    for c in value:
        depth += (c == "(") - (c == ")")
        if depth < 0:
            return True
    return depth != 0


def _step(text: str, tree: Tree, diagnostics: list[Diagnostic]) -> Step:
    label, func, *rest = tree.children
    span = Span.at_offset(text, tree.meta.start_pos, tree.meta.end_pos)
    func_span = span_of(text, func)
    pieces: list[tuple[str, int, int, bool]] = []
    if rest:
        pieces = _split_args(text, *offsets(rest[0]), diagnostics)
    info = registry.lookup(str(func))
    if info is not None and info.max_args is not None and len(pieces) > info.max_args:
        pieces = _merge_extra(text, pieces, info)
    return Step(str(func), [p[0] for p in pieces], span, func_span,
                [Span.at_offset(text, s, e) for _, s, e, _ in pieces])


def _split_args(text: str, i: int, end: int, diagnostics: list[Diagnostic]
                ) -> list[tuple[str, int, int, bool]]:
    """(value, start, end, quoted) per comma-separated argument of `text[i:end]`; commas in
    parens don't split."""
    pieces: list[tuple[str, int, int, bool]] = []
    while i <= end:
        while i < end and text[i] in " \t":
            i += 1
        if i < end and text[i] in "\"'":
            close = scan_quoted(text, i)
            if close is None or close > end:
                diagnostics.append(Diagnostic("unterminated-string", "unterminated string",
                                              Span.at_offset(text, i, end)))
                return pieces
            try:
                value = unquote(text[i:close])
            except (ValueError, KeyError):
                diagnostics.append(Diagnostic("bad-escape", "invalid escape sequence in string",
                                              Span.at_offset(text, i, close)))
                return pieces
            pieces.append((value, i, close, True))
            i = close
            while i < end and text[i] in " \t":
                i += 1
            if i < end and text[i] != ",":
                diagnostics.append(Diagnostic(
                    "syntax", "expected ',' or ')' after a quoted argument",
                    Span.at_offset(text, i, i + 1)))
                return pieces
        else:
            start, depth = i, 0
            while i < end and (text[i] != "," or depth > 0):
                depth += (text[i] == "(") - (text[i] == ")")
                i += 1
            value = text[start:i].strip()
            stop = start + len(text[start:i].rstrip())
            if not value:
                diagnostics.append(Diagnostic("empty-argument", "empty argument",
                                              Span.at_offset(text, start, max(stop, start + 1))))
            pieces.append((value, start, stop, False))
        i += 1  # past the comma (or past the end)
    return pieces


def _merge_extra(text: str, pieces: list[tuple[str, int, int, bool]], info: registry.OpInfo
                 ) -> list[tuple[str, int, int, bool]]:
    """Join surplus unquoted pieces into the last free-text argument, as written in the text."""
    kinds = [k for _, k in info.args]
    tail = 0
    while tail < len(kinds) and kinds[len(kinds) - 1 - tail] in _FREE_TEXT:
        tail += 1
    head_count = len(kinds) - tail
    if head_count == 0:
        return pieces
    surplus = len(pieces) - len(kinds)
    first = head_count - 1
    group = pieces[first:first + surplus + 1]
    if any(quoted for *_, quoted in group):
        return pieces
    start, end = group[0][1], group[-1][2]
    merged = (text[start:end], start, end, False)
    return [*pieces[:first], merged, *pieces[first + surplus + 1:]]


def _numbering_warnings(tree: Tree, text: str) -> list[Diagnostic]:
    out = []
    for expected, node in enumerate(tree.find_data("step"), start=1):
        label = node.children[0]
        digits = re.search(r"\d+", str(label))
        assert digits is not None  # the grammar's LABEL has one
        number = int(digits.group())
        if number != expected:
            out.append(Diagnostic(
                "step-number", f"step labelled {number} is step {expected}",
                span_of(text, label), Severity.WARNING))
    return out


def _syntax_error(text: str, err: UnexpectedInput) -> ParseError:
    pos = getattr(err, "pos_in_stream", None)
    if pos is None:
        pos = len(text)
    line_start = text.rfind("\n", 0, pos) + 1
    line_end = text.find("\n", pos)
    line = text[line_start:line_end if line_end != -1 else len(text)]
    span = Span.at_offset(text, pos, pos + 1)
    if line.count("(") != line.count(")"):
        code, message = "unbalanced-parens", "unbalanced parentheses in this step"
        span = Span.at_offset(text, line_start + _unmatched_paren(line))
    elif not re.match(r"\s*(step\s*#?\s*\d+\s*[:.\-]|done)", line, re.IGNORECASE):
        code, message = "syntax", "expected 'Step N: Function(arguments)' or 'Done'"
        span = Span.at_offset(text, line_start + len(line) - len(line.lstrip()))
    elif re.match(r"\s*done", line, re.IGNORECASE):
        code, message = "text-after-done", "nothing may follow 'Done'"
    else:
        code, message = "syntax", "expected 'Function(arguments)' after the step label"
    return ParseError(message, code=code, span=span, source=text)


def _unmatched_paren(line: str) -> int:
    """The index of the first ')' with no '(' before it, else of the last unclosed '('."""
    opened: list[int] = []
    for i, c in enumerate(line):
        if c == "(":
            opened.append(i)
        elif c == ")":
            if not opened:
                return i
            opened.pop()
    return opened[-1] if opened else len(line)
