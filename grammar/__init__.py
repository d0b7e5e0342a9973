"""The `.lark` grammars of koplc's surface syntaxes and the one function that loads them."""

from koplc.grammar.load import load_grammar

__all__ = ["load_grammar"]
