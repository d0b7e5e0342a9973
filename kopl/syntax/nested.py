"""KoPL as nested calls: ``QueryName(Relate(Find('X'), 'r', 'forward'))``.

The form of the KoPL docs: an optional ``engine.`` prefix on each call, functional inputs (calls)
before textual ones, single- or double-quoted strings with Python's backslash escapes, and bare
numbers kept as written. The call tree is flattened to post-order steps with explicit
dependencies and handed to `build_tree`.
"""

from __future__ import annotations

import re

from lark import Token, Tree

from koplc.grammar.load import load_grammar
from koplc.kopl.diagnostics import Diagnostic, Span
from koplc.kopl.errors import ParseError
from koplc.kopl.ir import Node
from koplc.kopl.program import Parsed
from koplc.kopl.syntax.lark_errors import parse_nonempty, span_of
from koplc.kopl.syntax.quoting import quote, unquote
from koplc.kopl.syntax.step_list import Step, build_tree, linearize

NAME = "kopl-nested"

_LABELS = {"NAME": "a function name", "STRING": "a string", "NUMBER": "a number", "DOT": "'.'",
           "LPAR": "'('", "COMMA": "','", "RPAR": "')'", "$END": "the end of the input"}
_BRACKETS = {"(": ")"}
_START = re.compile(r"\s*(?:[A-Za-z_]\w*\s*\.\s*)*[A-Za-z_]\w*\s*\(")


def looks_like(text: str) -> bool:
    """Whether the text starts with a call such as ``Name(`` or ``engine.Name(``."""
    return _START.match(text) is not None


def parse(text: str) -> Parsed:
    """Parse nested calls into the IR; raises ParseError with every problem found."""
    tree = parse_nonempty(load_grammar("kopl_nested"), text, _LABELS, _BRACKETS)
    diagnostics: list[Diagnostic] = []
    steps = _steps(tree.children[0], text, diagnostics)
    if not diagnostics:
        return build_tree(steps, text)
    try:
        build_tree(steps, text)
    except ParseError as err:
        diagnostics += err.diagnostics
    raise ParseError(diagnostics, source=text)


def _steps(root: Tree, text: str, diagnostics: list[Diagnostic]) -> list[Step]:
    """The calls in post-order, each depending on its inner calls (iterative: no depth limit)."""
    steps: list[Step] = []
    done: list[int] = []  # step indexes of finished calls, innermost last
    todo: list[tuple[Tree, bool]] = [(root, False)]
    while todo:
        call, expanded = todo.pop()
        inner = [c for c in call.children if isinstance(c, Tree)]
        if not expanded:
            todo.append((call, True))
            todo.extend((c, False) for c in reversed(inner))
            continue
        deps = done[len(done) - len(inner):]
        del done[len(done) - len(inner):]
        steps.append(_step(call, deps, text, diagnostics))
        done.append(len(steps) - 1)
    return steps


def _step(call: Tree, deps: list[int], text: str, diagnostics: list[Diagnostic]) -> Step:
    span = Span.at_offset(text, call.meta.start_pos, call.meta.end_pos)
    names = [c for c in call.children if isinstance(c, Token) and c.type == "NAME"]
    args: list[str] = []
    arg_spans: list[Span] = []
    for child in call.children:
        if isinstance(child, Tree):
            if args:
                diagnostics.append(Diagnostic(
                    "argument-order", "functional inputs (calls) must come before textual "
                    "inputs", Span.at_offset(text, child.meta.start_pos, child.meta.end_pos)))
        elif child.type in ("STRING", "NUMBER"):
            arg_span = span_of(text, child)
            args.append(_value(child, arg_span, diagnostics))
            arg_spans.append(arg_span)
    function = names[-1]
    return Step(str(function), args, span, function_span=span_of(text, function),
                arg_spans=arg_spans, dependencies=deps, dependencies_span=span)


def _value(token: Token, span: Span, diagnostics: list[Diagnostic]) -> str:
    if token.type == "NUMBER":
        return str(token)
    try:
        return unquote(str(token))
    except (ValueError, KeyError):
        diagnostics.append(Diagnostic("bad-escape", "invalid escape sequence in string", span))
        return str(token)[1:-1]


def print_program(program: Node) -> str:
    """The canonical nested-call text of a program: one line, double-quoted strings.

    >>> from koplc.kopl.ir import Find, QueryName, Relate
    >>> print_program(QueryName(input=Relate(input=Find(name="X"), relation="r")))
    'QueryName(Relate(Find("X"), "r"))'
    """
    rendered: list[str] = []
    for step in linearize(program):
        parts = [rendered[d] for d in step.dependencies]
        parts += [quote(arg) for arg in step.args]
        rendered.append(f"{step.function}({', '.join(parts)})")
    return rendered[-1]
