"""Load a `.lark` grammar shipped in this folder, once per (name, options)."""

from functools import cache
from importlib.resources import files

from lark import Lark


@cache
def load_grammar(name: str, parser: str = "lalr", start: str = "start") -> Lark:
    """Return the Lark parser for `grammar/<name>.lark`, with source positions kept.

    >>> load_grammar("sexpr").parse("(COUNT m.01)").data
    Token('RULE', 'start')
    """
    text = files("koplc.grammar").joinpath(f"{name}.lark").read_text(encoding="utf-8")
    return Lark(text, parser=parser, start=start, propagate_positions=True, maybe_placeholders=False)
