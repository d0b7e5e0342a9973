"""The typed IR: one frozen pydantic class per operation.

Functional inputs are child fields typed `AnyNode`; textual inputs are fields annotated with
their `ArgKind`. Each class carries its output type and its family; the kind of value it takes
is read from the `ArgKind` of its value field. A program is the root node of a tree.
Comparators, directions and select operators accept the raw text a model wrote when it is not
one of the enum's values (e.g. ``"bigger"``): the checker flags it and grounding repairs it.
Value literals are kept exactly as written (``"270 square kilometre"``); `koplc.kopl.values`
reads them.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

from koplc.kopl.types import (
    VALUE_KINDS,
    AmongOp,
    ArgKind,
    BetweenOp,
    Comparator,
    Direction,
    Family,
    Type,
    ValueKind,
)

_LEFT_FIRST = Field(union_mode="left_to_right")

Name = str
Text = str
Cmp = Annotated[Comparator | str, _LEFT_FIRST]
Dir = Annotated[Direction | str, _LEFT_FIRST]


class Hop(BaseModel):
    """One relation step of an S-expression ARGMAX/ARGMIN path."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    relation: str
    direction: Dir


class Node(BaseModel):
    """Base of every operation; never instantiated itself.

    An op's class is its signature and type rule: the fields (functional inputs with the `Type`
    each takes, textual inputs with their `ArgKind`) and `output`, which `koplc.kopl.check`
    applies to every op alike. Its semantics and its lowering are the method named by
    `koplc.kopl.registry.OPS[op].visitor` (``visit_<Op>``, or ``visit_<family>`` for a family
    whose ops differ only in value kind, e.g. ``visit_filter``), found in
    ``kopl/execution/<module>.py`` and ``sparql_backend/lower_<module>.py``, where `module`
    (`OpInfo.module`) is ``sets`` for ops giving entity sets, ``extensions`` for extension ops
    and ``queries`` for the rest.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    output: ClassVar[Type]
    family: ClassVar[Family]
    aliases: ClassVar[tuple[str, ...]] = ()
    extension: ClassVar[bool] = False

    if TYPE_CHECKING:  # `Node` stands for any op: its name, built from its fields
        op: str

        def __init__(self, **fields: Any) -> None: ...

    @property
    def children(self) -> tuple[Node, ...]:
        """The functional inputs, in signature order."""
        return tuple(getattr(self, name) for name in type(self).child_fields())

    @classmethod
    @cache
    def child_fields(cls) -> tuple[str, ...]:
        return tuple(name for name, _ in cls.child_types())

    @classmethod
    @cache
    def child_types(cls) -> tuple[tuple[str, Type], ...]:
        """The functional inputs with the type each expects, in signature order."""
        out = []
        for name, info in cls.model_fields.items():
            types = [m for m in info.metadata if isinstance(m, Type)]
            if types:
                out.append((name, types[0]))
        return tuple(out)

    @classmethod
    @cache
    def arg_fields(cls) -> tuple[tuple[str, ArgKind], ...]:
        """The textual inputs with their kinds, in signature order."""
        out = []
        for name, info in cls.model_fields.items():
            kinds = [m for m in info.metadata if isinstance(m, ArgKind)]
            if kinds:
                out.append((name, kinds[0]))
        return tuple(out)

    @classmethod
    @cache
    def value_field(cls) -> str | None:
        """The textual input holding the op's value literal (`value`, `qvalue`, `time`), if any."""
        return next((name for name, kind in cls.arg_fields() if kind in VALUE_KINDS), None)

    @classmethod
    @cache
    def value_kind(cls) -> ValueKind:
        """The kind of value the op takes, from its value field's `ArgKind`, or "none".

        >>> FilterNum.value_kind(), QFilterYear.value_kind(), Relate.value_kind()
        ('quantity', 'year', 'none')
        """
        field = cls.value_field()
        return "none" if field is None else VALUE_KINDS[dict(cls.arg_fields())[field]]

    def walk(self) -> Iterator[tuple[tuple[int, ...], Node]]:
        """Every node with its path (child indexes from the root), in post-order."""
        yield from _walk(self, ())


def _walk(node: Node, path: tuple[int, ...]) -> Iterator[tuple[tuple[int, ...], Node]]:
    for i, child in enumerate(node.children):
        yield from _walk(child, (*path, i))
    yield path, node


class FindAll(Node):
    """All entities of the KB."""

    op: Literal["FindAll"] = "FindAll"
    output = Type.ENTITIES
    family = "find"


class Find(Node):
    """The entities with the given name."""

    op: Literal["Find"] = "Find"
    output = Type.ENTITIES
    family = "find"
    name: Annotated[Name, ArgKind.ENTITY]


class Entity(Node):
    """The entity with the given KB identifier (an S-expression mid such as m.0178g)."""

    op: Literal["Entity"] = "Entity"
    output = Type.ENTITIES
    family = "find"
    extension = True
    id: Annotated[Name, ArgKind.ENTITY_ID]


class FilterConcept(Node):
    """The input entities that are instances of the concept (or of a sub-concept)."""

    op: Literal["FilterConcept"] = "FilterConcept"
    output = Type.ENTITIES
    family = "concept"
    input: Annotated[AnyNode, Type.ENTITIES]
    concept: Annotated[Name, ArgKind.CONCEPT]


class FilterStr(Node):
    """The input entities whose string attribute equals the value, with those facts."""

    op: Literal["FilterStr"] = "FilterStr"
    output = Type.ENTITIES_WITH_FACTS
    family = "filter"
    input: Annotated[AnyNode, Type.ENTITIES]
    key: Annotated[Name, ArgKind.ATTRIBUTE]
    value: Annotated[Text, ArgKind.STRING]


class FilterNum(Node):
    """The input entities whose quantity attribute compares true with the value."""

    op: Literal["FilterNum"] = "FilterNum"
    output = Type.ENTITIES_WITH_FACTS
    family = "filter"
    input: Annotated[AnyNode, Type.ENTITIES]
    key: Annotated[Name, ArgKind.ATTRIBUTE]
    value: Annotated[Text, ArgKind.NUMBER]
    comparator: Annotated[Cmp, ArgKind.COMPARATOR]


class FilterYear(Node):
    """The input entities whose year attribute compares true with the value."""

    op: Literal["FilterYear"] = "FilterYear"
    output = Type.ENTITIES_WITH_FACTS
    family = "filter"
    input: Annotated[AnyNode, Type.ENTITIES]
    key: Annotated[Name, ArgKind.ATTRIBUTE]
    value: Annotated[Text, ArgKind.YEAR]
    comparator: Annotated[Cmp, ArgKind.COMPARATOR]


class FilterDate(Node):
    """The input entities whose date attribute compares true with the value."""

    op: Literal["FilterDate"] = "FilterDate"
    output = Type.ENTITIES_WITH_FACTS
    family = "filter"
    input: Annotated[AnyNode, Type.ENTITIES]
    key: Annotated[Name, ArgKind.ATTRIBUTE]
    value: Annotated[Text, ArgKind.DATE]
    comparator: Annotated[Cmp, ArgKind.COMPARATOR]


class QFilterStr(Node):
    """The input facts whose string qualifier equals the value."""

    op: Literal["QFilterStr"] = "QFilterStr"
    output = Type.ENTITIES_WITH_FACTS
    family = "qfilter"
    input: Annotated[AnyNode, Type.ENTITIES_WITH_FACTS]
    qkey: Annotated[Name, ArgKind.QUALIFIER]
    qvalue: Annotated[Text, ArgKind.STRING]


class QFilterNum(Node):
    """The input facts whose quantity qualifier compares true with the value."""

    op: Literal["QFilterNum"] = "QFilterNum"
    output = Type.ENTITIES_WITH_FACTS
    family = "qfilter"
    input: Annotated[AnyNode, Type.ENTITIES_WITH_FACTS]
    qkey: Annotated[Name, ArgKind.QUALIFIER]
    qvalue: Annotated[Text, ArgKind.NUMBER]
    comparator: Annotated[Cmp, ArgKind.COMPARATOR]


class QFilterYear(Node):
    """The input facts whose year qualifier compares true with the value."""

    op: Literal["QFilterYear"] = "QFilterYear"
    output = Type.ENTITIES_WITH_FACTS
    family = "qfilter"
    input: Annotated[AnyNode, Type.ENTITIES_WITH_FACTS]
    qkey: Annotated[Name, ArgKind.QUALIFIER]
    qvalue: Annotated[Text, ArgKind.YEAR]
    comparator: Annotated[Cmp, ArgKind.COMPARATOR]


class QFilterDate(Node):
    """The input facts whose date qualifier compares true with the value."""

    op: Literal["QFilterDate"] = "QFilterDate"
    output = Type.ENTITIES_WITH_FACTS
    family = "qfilter"
    input: Annotated[AnyNode, Type.ENTITIES_WITH_FACTS]
    qkey: Annotated[Name, ArgKind.QUALIFIER]
    qvalue: Annotated[Text, ArgKind.DATE]
    comparator: Annotated[Cmp, ArgKind.COMPARATOR]


class Relate(Node):
    """The entities linked to the input by the relation, with those facts.

    `forward`: the input is the subject; `backward`: the input is the object. `None` means the
    program did not say (the checker flags it; grounding fills it in).
    """

    op: Literal["Relate"] = "Relate"
    output = Type.ENTITIES_WITH_FACTS
    family = "relate"
    input: Annotated[AnyNode, Type.ENTITIES]
    relation: Annotated[Name, ArgKind.RELATION]
    direction: Annotated[Dir | None, ArgKind.DIRECTION] = None


class And(Node):
    """The intersection of two entity sets."""

    op: Literal["And"] = "And"
    output = Type.ENTITIES
    family = "set"
    left: Annotated[AnyNode, Type.ENTITIES]
    right: Annotated[AnyNode, Type.ENTITIES]


class Or(Node):
    """The union of two entity sets."""

    op: Literal["Or"] = "Or"
    output = Type.ENTITIES
    family = "set"
    left: Annotated[AnyNode, Type.ENTITIES]
    right: Annotated[AnyNode, Type.ENTITIES]


class QueryName(Node):
    """The names of the input entities."""

    op: Literal["QueryName"] = "QueryName"
    output = Type.NAMES
    family = "name"
    aliases = ("What",)
    input: Annotated[AnyNode, Type.ENTITIES]


class Count(Node):
    """The number of input entities."""

    op: Literal["Count"] = "Count"
    output = Type.COUNT
    family = "count"
    input: Annotated[AnyNode, Type.ENTITIES]


class QueryAttr(Node):
    """The values of the attribute on the input entities."""

    op: Literal["QueryAttr"] = "QueryAttr"
    output = Type.VALUES
    family = "attribute"
    input: Annotated[AnyNode, Type.ENTITIES]
    key: Annotated[Name, ArgKind.ATTRIBUTE]


class QueryAttrUnderCondition(Node):
    """The values of the attribute on the input entities whose fact has the qualifier value."""

    op: Literal["QueryAttrUnderCondition"] = "QueryAttrUnderCondition"
    output = Type.VALUES
    family = "attribute"
    input: Annotated[AnyNode, Type.ENTITIES]
    key: Annotated[Name, ArgKind.ATTRIBUTE]
    qkey: Annotated[Name, ArgKind.QUALIFIER]
    qvalue: Annotated[Text, ArgKind.VALUE]


class QueryRelation(Node):
    """The labels of the relations from the left entities to the right entities."""

    op: Literal["QueryRelation"] = "QueryRelation"
    output = Type.RELATIONS
    family = "relation"
    left: Annotated[AnyNode, Type.ENTITIES]
    right: Annotated[AnyNode, Type.ENTITIES]


class SelectBetween(Node):
    """The name of whichever of two entities has the less or greater attribute value."""

    op: Literal["SelectBetween"] = "SelectBetween"
    output = Type.NAMES
    family = "select"
    left: Annotated[AnyNode, Type.ENTITIES]
    right: Annotated[AnyNode, Type.ENTITIES]
    key: Annotated[Name, ArgKind.ATTRIBUTE]
    comparator: Annotated[Annotated[BetweenOp | str, _LEFT_FIRST], ArgKind.BETWEEN]


class SelectAmong(Node):
    """The names of the input entities with the smallest or largest attribute value."""

    op: Literal["SelectAmong"] = "SelectAmong"
    output = Type.NAMES
    family = "select"
    input: Annotated[AnyNode, Type.ENTITIES]
    key: Annotated[Name, ArgKind.ATTRIBUTE]
    comparator: Annotated[Annotated[AmongOp | str, _LEFT_FIRST], ArgKind.AMONG]


class VerifyStr(Node):
    """Whether the input values equal the string: yes, no or not sure."""

    op: Literal["VerifyStr"] = "VerifyStr"
    output = Type.BOOLEAN
    family = "verify"
    input: Annotated[AnyNode, Type.VALUES]
    value: Annotated[Text, ArgKind.STRING]


class VerifyNum(Node):
    """Whether the input quantities compare true with the value: yes, no or not sure."""

    op: Literal["VerifyNum"] = "VerifyNum"
    output = Type.BOOLEAN
    family = "verify"
    input: Annotated[AnyNode, Type.VALUES]
    value: Annotated[Text, ArgKind.NUMBER]
    comparator: Annotated[Cmp, ArgKind.COMPARATOR]


class VerifyYear(Node):
    """Whether the input years compare true with the value: yes, no or not sure."""

    op: Literal["VerifyYear"] = "VerifyYear"
    output = Type.BOOLEAN
    family = "verify"
    input: Annotated[AnyNode, Type.VALUES]
    value: Annotated[Text, ArgKind.YEAR]
    comparator: Annotated[Cmp, ArgKind.COMPARATOR]


class VerifyDate(Node):
    """Whether the input dates compare true with the value: yes, no or not sure."""

    op: Literal["VerifyDate"] = "VerifyDate"
    output = Type.BOOLEAN
    family = "verify"
    input: Annotated[AnyNode, Type.VALUES]
    value: Annotated[Text, ArgKind.DATE]
    comparator: Annotated[Cmp, ArgKind.COMPARATOR]


class QueryAttrQualifier(Node):
    """The qualifier values of the input entities' attribute fact with the given value."""

    op: Literal["QueryAttrQualifier"] = "QueryAttrQualifier"
    output = Type.QUALIFIER_VALUES
    family = "attribute"
    input: Annotated[AnyNode, Type.ENTITIES]
    key: Annotated[Name, ArgKind.ATTRIBUTE]
    value: Annotated[Text, ArgKind.VALUE]
    qkey: Annotated[Name, ArgKind.QUALIFIER]


class QueryRelationQualifier(Node):
    """The qualifier values of the relation facts from the left to the right entities."""

    op: Literal["QueryRelationQualifier"] = "QueryRelationQualifier"
    output = Type.QUALIFIER_VALUES
    family = "relation"
    left: Annotated[AnyNode, Type.ENTITIES]
    right: Annotated[AnyNode, Type.ENTITIES]
    relation: Annotated[Name, ArgKind.RELATION]
    qkey: Annotated[Name, ArgKind.QUALIFIER]


class ArgMax(Node):
    """The input entities whose attribute, reached through the path, is largest (ties kept)."""

    op: Literal["ArgMax"] = "ArgMax"
    output = Type.ENTITIES
    family = "superlative"
    extension = True
    input: Annotated[AnyNode, Type.ENTITIES]
    key: Annotated[Name, ArgKind.ATTRIBUTE]
    path: Annotated[tuple[Hop, ...], ArgKind.PATH] = ()


class ArgMin(Node):
    """The input entities whose attribute, reached through the path, is smallest (ties kept)."""

    op: Literal["ArgMin"] = "ArgMin"
    output = Type.ENTITIES
    family = "superlative"
    extension = True
    input: Annotated[AnyNode, Type.ENTITIES]
    key: Annotated[Name, ArgKind.ATTRIBUTE]
    path: Annotated[tuple[Hop, ...], ArgKind.PATH] = ()


class TimeConstraint(Node):
    """The input entities whose relation fact holds at the time (a year, a date, or NOW)."""

    op: Literal["TimeConstraint"] = "TimeConstraint"
    output = Type.ENTITIES
    family = "temporal"
    extension = True
    input: Annotated[AnyNode, Type.ENTITIES]
    relation: Annotated[Name, ArgKind.RELATION]
    time: Annotated[Text, ArgKind.TIME]


class Exists(Node):
    """Whether the input entity set holds any entity: yes or no ("is Han Solo from Tatooine":
    do Han Solo's homeworlds and Tatooine meet)."""

    op: Literal["Exists"] = "Exists"
    output = Type.BOOLEAN
    family = "exists"
    extension = True
    input: Annotated[AnyNode, Type.ENTITIES]


OP_CLASSES: tuple[type[Node], ...] = tuple(
    cls for cls in list(globals().values())
    if isinstance(cls, type) and issubclass(cls, Node) and cls is not Node
)

if TYPE_CHECKING:  # the union is built at run time; to a type checker a child is any op
    AnyNode = Node
else:
    AnyNode = Annotated[Union[OP_CLASSES], Field(discriminator="op")]  # noqa: UP007

for _cls in OP_CLASSES:
    _cls.model_rebuild(_types_namespace={"AnyNode": AnyNode})
