"""The function catalogue of a prompt, generated from the op registry (never written by hand)."""

from __future__ import annotations

from koplc.kopl.registry import OPS, OpInfo
from koplc.kopl.types import ArgKind, Type

_NEEDS = {ArgKind.ATTRIBUTE: "attribute keys", ArgKind.QUALIFIER: "qualifier keys"}


def ops_for_kb(kb=None, *, extensions: bool = False) -> list[OpInfo]:
    """The registry's ops a program over `kb` can use: no extensions by default, and none that
    needs attribute or qualifier keys when the KB has none."""
    stats = kb.stats() if kb is not None else {}
    lacking = {kind for kind, stat in _NEEDS.items() if kb is not None and not stats.get(stat)}
    usable = [op for op in OPS.values() if (extensions or not op.extension)
              and not lacking & {kind for _, kind in op.args}]
    made = {op.output for op in usable} | {Type.ENTITIES}
    return [op for op in usable if all(t in made for _, t in op.inputs)]


def catalogue_line(op: OpInfo) -> str:
    """One op as the prompt lists it.

    >>> catalogue_line(OPS["Count"])
    '- Count(entities) -> count: The number of input entities.'
    """
    return f"- {op.signature()}: {op.description}"


def catalogue(ops: list[OpInfo]) -> str:
    """The catalogue section of a prompt."""
    return "\n".join(catalogue_line(op) for op in ops)
