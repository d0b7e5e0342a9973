"""A GBNF grammar for constrained decoding, generated from the op registry.

It fixes the program format of the prompt (one call a line, no labels), every op's name and
argument shapes (enumerated directions, comparators, …), and as much of the type discipline as
a context-free grammar can carry: the first step has no functional input, every step's output
is used (a Find that no later And or Or joins is not a program), and an op whose output no op
consumes (names, count, yes/no, …) must be the last step.
"""

from __future__ import annotations

from functools import cache

from koplc.kopl.registry import OpInfo
from koplc.kopl.types import ArgKind, Type

_ENUMS = {
    ArgKind.DIRECTION: ("forward", "backward"),
    ArgKind.COMPARATOR: ("=", "!=", "<", ">"),
    ArgKind.BETWEEN: ("less", "greater"),
    ArgKind.AMONG: ("smallest", "largest"),
}
MAX_STEPS = 8
MAX_DEPTH = 3  # branches open at once


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
    """The GBNF text: lines calling the given ops, each ending in a newline.

    Steps keep a stack of open branches: a source opens one, a unary op works on the top one,
    a binary op joins the top two. Rule `sK-D` is the rest of a program with at most K more
    steps when D branches are open, so every branch is used and the program ends with one."""
    consumed = {t for op in ops for _, t in op.inputs}
    if Type.ENTITIES in consumed:
        consumed.add(Type.ENTITIES_WITH_FACTS)
    kinds = {
        "source": [op for op in ops if op.arity == 0],
        "unary": [op for op in ops if op.arity == 1 and op.output in consumed],
        "binary": [op for op in ops if op.arity == 2 and op.output in consumed],
        "final": [op for op in ops if op.arity == 1 and op.output not in consumed],
        "final2": [op for op in ops if op.arity == 2 and op.output not in consumed],
    }
    present = {name for name, members in kinds.items() if members}
    rules = {"root": ""}
    rules |= {name: " | ".join(_call(op) for op in kinds[name]) for name in kinds
              if name in present}
    rules["text"] = "[^,()\\n]+"

    @cache
    def ways(steps: int, depth: int) -> tuple[tuple[str, tuple[int, int] | None], ...]:
        """(kind of step, state after it, None when it ends the program) from `depth` open
        branches with at most `steps` steps left, into states that can still end."""
        ends = {1: ["final", "unary"], 2: ["final2", "binary"]}.get(depth, [])
        out = [(kind, None) for kind in ends if kind in present]
        for kind, after in (("source", depth + 1), ("unary", depth), ("binary", depth - 1)):
            if kind in present and steps > 1 and 1 <= after <= MAX_DEPTH and ways(steps - 1, after):
                out.append((kind, (steps - 1, after)))
        return tuple(out)

    def state(steps: int, depth: int) -> str:
        name = f"s{steps}-{depth}"
        if name not in rules:
            rules[name] = " | ".join(f'{kind} "\\n"' + (f" {state(*after)}" if after else "")
                                     for kind, after in ways(steps, depth))
        return name

    rules["root"] = f'source "\\n" {state(MAX_STEPS - 1, 1)}'
    return "\n".join(f"{name} ::= {body}" for name, body in rules.items()) + "\n"
