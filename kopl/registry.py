"""The op registry: the single source of truth for names, aliases, signatures and descriptions.

Parsers, the checker, printers, prompt catalogues, grammars for constrained decoding and the
lowering completeness test all read this table; nothing else lists the operations. Families and
value kinds are data too: `op_for("filter", "quantity")` is FilterNum, `ops_of("verify")` the
Verify* ops, `family_of` and `value_kind_of` say what an op is; nothing keeps its own table of
them.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from koplc.kopl import ir
from koplc.kopl.types import ArgKind, Family, Type, ValueKind

Op = ir.Node | type[ir.Node] | str  # a node, an op class, or an op's name or alias


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
    family: Family
    value_kind: ValueKind
    visitor: str
    module: str

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


    @property
    def value_field(self) -> str | None:
        """The textual input that holds the op's value literal, if any."""
        return self.cls.value_field()


def _shares_visitor(family: str) -> bool:
    """Whether the family's ops differ only in their value kind (Filter*, QFilter*, Verify*):
    then one method per backend, ``visit_<family>``, runs them all."""
    kinds = [cls.value_kind() for cls in ir.OP_CLASSES if cls.family == family]
    return len(kinds) > 1 and len(set(kinds)) == len(kinds)


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
        family=cls.family,
        value_kind=cls.value_kind(),
        visitor=f"visit_{cls.family if _shares_visitor(cls.family) else cls.__name__}",
        module="extensions" if cls.extension else
        "sets" if cls.output.fits(Type.ENTITIES) else "queries",
    )


OPS: dict[str, OpInfo] = {cls.__name__: _info(cls) for cls in ir.OP_CLASSES}
_BY_CLASS: dict[type[ir.Node], OpInfo] = {info.cls: info for info in OPS.values()}
_BY_FAMILY_KIND: dict[tuple[str, str], list[OpInfo]] = {}
for _op in OPS.values():
    _BY_FAMILY_KIND.setdefault((_op.family, _op.value_kind), []).append(_op)
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


def info_of(op: Op) -> OpInfo:
    """The registry entry of a node, an op class, or an op's name or alias."""
    if isinstance(op, str):
        found = lookup(op)
        if found is None:
            raise KeyError(f"no op named {op!r}")
        return found
    return _BY_CLASS[op if isinstance(op, type) else type(op)]


def family_of(op: Op) -> Family:
    """What the op does.

    >>> family_of("QFilterYear"), family_of(ir.Count)
    ('qfilter', 'count')
    """
    return info_of(op).family


def value_kind_of(op: Op) -> ValueKind:
    """The kind of value the op takes ("none" when it takes none).

    >>> value_kind_of("FilterNum"), value_kind_of("VerifyDate"), value_kind_of("Relate")
    ('quantity', 'date', 'none')
    """
    return info_of(op).value_kind


def ops_of(*families: str) -> tuple[type[ir.Node], ...]:
    """The op classes of the families, in registry order.

    >>> [cls.__name__ for cls in ops_of("select")]
    ['SelectBetween', 'SelectAmong']
    """
    return tuple(info.cls for info in OPS.values() if info.family in families)


def value_kinds_of(family: str) -> tuple[ValueKind, ...]:
    """The value kinds the family's ops take, in registry order, each once.

    >>> value_kinds_of("filter")
    ('string', 'quantity', 'year', 'date')
    """
    return tuple(dict.fromkeys(info.value_kind for info in OPS.values()
                               if info.family == family))


def op_for(family: str, value_kind: str) -> type[ir.Node]:
    """The one op of the family that takes the kind of value; KeyError when there is none or
    more than one.

    >>> op_for("filter", "quantity").__name__, op_for("qfilter", "year").__name__
    ('FilterNum', 'QFilterYear')
    """
    found = _BY_FAMILY_KIND.get((family, value_kind), [])
    if len(found) != 1:
        which = "no" if not found else "more than one"
        raise KeyError(f"{which} {family} op takes a {value_kind} value")
    return found[0].cls
