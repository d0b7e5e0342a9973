"""GrailQA-style S-expressions ⇄ IR (see `koplc.sexpr.syntax`)."""

from koplc.sexpr.syntax import NAME, looks_like, parse, print_program

__all__ = ["NAME", "looks_like", "parse", "print_program"]
