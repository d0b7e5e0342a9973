"""A GBNF grammar for constrained decoding, generated from the op registry.

It fixes the program format of the prompt (one call a line, no labels), every op's name and
argument shapes (enumerated directions, comparators, …), the first step (an op with no functional input) and, as far as a context-free
grammar can carry types, which steps may continue: an op whose output no op consumes (names,
count, yes/no, …) must be the last step.
"""

from __future__ import annotations

from koplc.kopl.registry import OpInfo
from koplc.kopl.types import ArgKind, Type

_ENUMS = {
    ArgKind.DIRECTION: ("forward", "backward"),
    ArgKind.COMPARATOR: ("=", "!=", "<", ">"),
    ArgKind.BETWEEN: ("less", "greater"),
    ArgKind.AMONG: ("smallest", "largest"),
}
MAX_STEPS = 8


def _literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _arg(kind: ArgKind) -> str:
    if kind in _ENUMS:
        return "(" + " | ".join(_literal(v) for v in _ENUMS[kind]) + ")"
    if kind is ArgKind.PATH:
        return 'text ("," " "? text)*'
    return "text"


def _call(op: OpInfo) -> str:
    kinds = [kind for _, kind in op.args]
    required = " \", \" ".join(_arg(k) for k in kinds[:op.min_args])
    optional = "".join(f' ("," " "? {_arg(k)})?' for k in kinds[op.min_args:])
    return f'"{op.name}(" {required}{optional} ")"'.replace("( )", "()").replace('(" ")', '()"')


def grammar_for(ops: list[OpInfo]) -> str:
    """The GBNF text: lines calling the given ops, each ending in a newline."""
    consumed = {t for op in ops for _, t in op.inputs}
    if Type.ENTITIES in consumed:
        consumed.add(Type.ENTITIES_WITH_FACTS)
    sources = [op for op in ops if op.arity == 0]
    inner = [op for op in ops if op.arity and op.output in consumed]
    final = [op for op in ops if op.arity and op.output not in consumed]
    rules = {
        "root": f"first middle{{0,{MAX_STEPS - 2}}} last",
        "first": 'source "\\n"',
        "middle": '(source | inner) "\\n"',
        "last": '(inner | final) "\\n"',
        "source": " | ".join(_call(op) for op in sources),
        "inner": " | ".join(_call(op) for op in inner),
        "final": " | ".join(_call(op) for op in final) or "inner",
        "text": "[^,()\\n]+",
    }
    return "\n".join(f"{name} ::= {body}" for name, body in rules.items()) + "\n"
