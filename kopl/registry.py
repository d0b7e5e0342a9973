"""The op registry: the single source of truth for names, aliases, signatures and descriptions.

Parsers, the checker, printers, prompt catalogues, grammars for constrained decoding and the
lowering completeness test all read this table; nothing else lists the operations.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from koplc.kopl import ir
from koplc.kopl.types import ArgKind, Type


@dataclass(frozen=True)
class OpInfo:
    """One operation's signature and documentation."""

    name: str
    cls: type[ir.Node]
    aliases: tuple[str, ...]
    inputs: tuple[tuple[str, Type], ...]
    args: tuple[tuple[str, ArgKind], ...]
    output: Type
    description: str
    extension: bool

    @property
    def arity(self) -> int:
        """How many functional inputs the operation takes."""
        return len(self.inputs)

    @property
    def min_args(self) -> int:
        """Fewest textual inputs: optional trailing ones (a direction, a path) may be left out."""
        return sum(1 for name, _ in self.args if self.cls.model_fields[name].is_required())

    @property
    def max_args(self) -> int | None:
        """Most textual inputs, or None when a path makes the list open-ended."""
        if any(kind is ArgKind.PATH for _, kind in self.args):
            return None
        return len(self.args)

    def signature(self) -> str:
        """`Name(functional inputs; textual inputs) -> output`, for docs and prompts.

        >>> OPS["Relate"].signature()
        'Relate(entities; relation, direction) -> entities with facts'
        """
        inputs = ", ".join(str(t) for _, t in self.inputs)
        args = ", ".join(str(k) for _, k in self.args)
        return f"{self.name}({inputs}{'; ' if inputs and args else ''}{args}) -> {self.output}"


def _info(cls: type[ir.Node]) -> OpInfo:
    return OpInfo(
        name=cls.__name__,
        cls=cls,
        aliases=cls.aliases,
        inputs=cls.child_types(),
        args=cls.arg_fields(),
        output=cls.output,
        description=(cls.__doc__ or "").strip().splitlines()[0],
        extension=cls.extension,
    )


OPS: dict[str, OpInfo] = {cls.__name__: _info(cls) for cls in ir.OP_CLASSES}
_BY_NAME: dict[str, OpInfo] = {
    **{alias: info for info in OPS.values() for alias in info.aliases},
    **OPS,
}


def lookup(name: str) -> OpInfo | None:
    """The op called `name` (or one of its aliases), or None.

    >>> lookup("What").name
    'QueryName'
    """
    return _BY_NAME.get(name)


def suggest(name: str) -> str | None:
    """The known op name closest to a misspelled one, for a "did you mean" hint.

    >>> suggest("FiltreConcept")
    'FilterConcept'
    """
    folded = {n.lower(): n for n in _BY_NAME}
    if name.lower() in folded:
        return folded[name.lower()]
    close = difflib.get_close_matches(name.lower(), list(folded), n=1, cutoff=0.6)
    return folded[close[0]] if close else None


def info_of(node: ir.Node) -> OpInfo:
    return OPS[type(node).__name__]
