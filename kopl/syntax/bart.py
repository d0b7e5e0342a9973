"""The KQA Pro BART baseline string: ``Find <arg> Ireland <func> Relate <arg> capital <arg> forward``.

Steps are separated by ``<func>``, a step's name and arguments by ``<arg>``; each piece is
stripped of surrounding whitespace. A trailing ``<arg>`` with nothing after it adds no argument.
No dependencies are written: `build_tree` infers them with the engine's branch stack.
"""

from __future__ import annotations

import re

from lark import Tree

from koplc.grammar.load import load_grammar
from koplc.kopl import registry
from koplc.kopl.diagnostics import Diagnostic, Span
from koplc.kopl.errors import ParseError, UnsupportedConstruct
from koplc.kopl.ir import Node
from koplc.kopl.program import Parsed
from koplc.kopl.syntax.lark_errors import parse_nonempty, span_of
from koplc.kopl.syntax.step_list import Step, build_tree, linearize

NAME = "kopl-bart"

_FUNC, _ARG = "<func>", "<arg>"
_SEPARATOR = re.compile(f"{_FUNC}|{_ARG}")
_LABELS = {"PIECE": "a function name", "ARG": "'<arg>'", "FUNC": "'<func>'",
           "$END": "the end of the input"}


def looks_like(text: str) -> bool:
    """Whether the text reads as BART: a separator with no call before it, or a bare op name."""
    # "No call before it": a separator inside a nested call's or S-expression's string is not one.
    separator = _SEPARATOR.search(text)
    if separator is None:
        return registry.lookup(text.strip()) is not None
    return "(" not in text[:separator.start()]


def parse(text: str) -> Parsed:
    """Parse a BART program string into the IR; raises ParseError with every problem found."""
    tree = parse_nonempty(load_grammar("kopl_bart"), text, _LABELS, {})
    diagnostics: list[Diagnostic] = []
    steps = [_step(node, text, diagnostics) for node in tree.children if isinstance(node, Tree)]
    if diagnostics:
        raise ParseError(diagnostics, source=text)
    return build_tree(steps, text)


def _step(node: Tree, text: str, diagnostics: list[Diagnostic]) -> Step:
    function, *args = node.children
    if args and len(args[-1].children) == 1:  # a dangling <arg>: no argument
        args.pop()
    values: list[str] = []
    spans: list[Span] = []
    for arg in args:
        separator, *piece = arg.children
        if not piece:
            diagnostics.append(Diagnostic("empty-argument", "empty argument after '<arg>'",
                                          span_of(text, separator)))
            continue
        values.append(str(piece[0]))
        spans.append(span_of(text, piece[0]))
    return Step(str(function), values, span_of(text, node), function_span=span_of(text, function),
                arg_spans=spans)


def print_program(program: Node) -> str:
    """The canonical BART string of a program; raises UnsupportedConstruct for unsayable args.

    >>> from koplc.kopl.ir import Find, QueryName
    >>> print_program(QueryName(input=Find(name="Ireland")))
    'Find <arg> Ireland <func> QueryName'
    """
    pieces = []
    for step in linearize(program):
        for arg in step.args:
            _check(step.function, arg)
        pieces.append(f" {_ARG} ".join([step.function, *step.args]))
    return f" {_FUNC} ".join(pieces)


def _check(function: str, arg: str) -> None:
    if not arg:
        problem = "is empty"
    elif arg != arg.strip():
        problem = "has leading or trailing whitespace"
    elif _ARG in arg or _FUNC in arg:
        problem = f"contains {_ARG!r} or {_FUNC!r}"
    else:
        return
    raise UnsupportedConstruct(f"the BART syntax cannot express the argument {arg!r} of "
                               f"{function}: it {problem}")
