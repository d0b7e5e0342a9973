"""How each op of the registry reads in English: the deterministic canonical verbaliser.

`READINGS` maps every op name of the registry to a `Reading`: how the op reads as a phrase
inside a larger question (`phrase`, a noun phrase, or a clause for Verify*) and, optionally, how
it reads as a whole question at the root (`question`). Templates name the op's fields: a child
field stands for its phrase, a textual field for its value. Ops without a question template are
asked by their output type (`_ASK`). `canonical_question(program)` reads a program this way: no
model, the same question every time. Relation names are read by `relation_phrase`, so
``discovered_by`` and ``place of birth`` both read naturally enough. The English (prepositions,
verb forms, plurals, comparator words) comes from `koplc.kopl.lexicon`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from koplc.kopl import ir
from koplc.kopl.lexicon import (
    COMPARATOR_READINGS,
    PREPOSITIONS,
    TIME_COMPARATOR_READINGS,
    plural,
    simple_past,
)
from koplc.kopl.naming import name_head
from koplc.kopl.relatives import converse
from koplc.kopl.types import Type

# A reading function is called with a node of the op that `READINGS` files it under, so its
# node is typed Any: each reads the fields of its own op.
ReadOp = Callable[[Any, dict[str, str]], str]
Template = str | ReadOp


@dataclass(frozen=True)
class Reading:
    """An op's English: as a phrase inside a question, and (optionally) as the whole question."""

    phrase: Template
    question: Template | None = None


def words(name: str) -> str:
    """A schema name as words, in any naming convention (koplc.kopl.naming): of a path, its
    last segment's, since the domain and type before it say what the entities already are
    ("the people person spouses of X" says "person" of someone named).

    >>> words("location.location.contains"), words("__people__person__spouse_s")
    ('contains', 'spouses')
    >>> words("birthPlace")
    'birth place'
    """
    return " ".join(name_head(name)) or name


def _active(relation: str) -> str | None:
    """The simple past of a passive relation name's verb ("discovered by" -> "discovered",
    "written by" -> "wrote"), None when the name is not '<participle> by'.

    >>> [_active(r) for r in ("discovered by", "book written by", "born in", "has genre")]
    ['discovered', 'wrote', None, None]
    """
    head, _, last = relation.rpartition(" ")
    verb = head.rpartition(" ")[2]
    if last != "by" or not verb:
        return None
    return simple_past(verb)


def relation_phrase(relation: str, direction: str, subject: str, noun: str = "entities") -> str:
    """The entities a relation reaches from `subject`, read by the shape of its name; `noun`
    names them where the name does not ("the elements discovered by ...").

    >>> relation_phrase("discovered_by", "backward", "Marie Curie")
    'the entities discovered by Marie Curie'
    >>> relation_phrase("place of birth", "forward", "LeBron James")
    'the place of birth of LeBron James'
    """
    r = words(relation)
    head, _, rest = r.partition(" ")
    verbal = r.rpartition(" ")[2] in PREPOSITIONS  # "discovered by", "born in"
    if direction == "backward":
        if verbal or head == "in":
            return f"the {noun} {r} {subject}"
        if head == "has" and rest:
            return f"the {noun} that have {rest} {subject}"
        other = _other_side(r)
        if other:
            return f"the {other} of {subject}"
        return f"the {noun} whose {r} is {subject}"
    if verbal:
        past = _active(r)
        if past:
            return f"the {noun} that {past} {subject}"
        return f"the {noun} that {subject} is {r}"
    if head in ("has", "in") and rest:
        return f"the {rest} of {subject}"
    return f"the {r} of {subject}"


def _other_side(relation: str) -> str | None:
    """What a relation named by one side of a family tie ("children") calls the other
    (`relatives.converse`: "parents"); None for any other name.

    >>> _other_side("children"), _other_side("place of birth")
    ('parents', None)
    """
    return converse(relation) if " " not in relation else None


def _relate(node: ir.Relate, parts: dict[str, str]) -> str:
    if parts.get("levels"):  # down or up a hierarchy (`_down_from`)
        into = "in" if node.direction == "backward" else "of"
        return f"the {parts['noun']} {into} {parts['input']}"
    return relation_phrase(node.relation, str(node.direction or "forward"), parts["input"],
                           parts.get("noun", "entities"))


def _compared(field: str, time: bool = False) -> ReadOp:
    """`<value>` with its comparator's words: 'greater than 5', 'before 1990'."""
    table = TIME_COMPARATOR_READINGS if time else COMPARATOR_READINGS

    def read(node: Any, parts: dict[str, str]) -> str:
        # A Comparator or the raw word: a StrEnum member finds the same entry as its text.
        return table.get(node.comparator, f"{node.comparator} ") + parts[field]
    return read


def _filter(what: str, field: str, time: bool = False) -> Template:
    compared = _compared(field, time)

    def read(node: ir.Node, parts: dict[str, str]) -> str:
        return f"{parts['input']} whose {parts[what]} is {compared(node, parts)}"
    return read


def _verify(time: bool = False) -> Reading:
    compared = _compared("value", time)
    return Reading(lambda n, p: f"{p['input']} is {compared(n, p)}",
                   lambda n, p: f"Is {p['input']} {compared(n, p)}?")


def _count(node: ir.Count, parts: dict[str, str]) -> str:
    what = parts["input"]
    return f"How many {what.removeprefix('the ')} are there?"


def _arg_extreme(word: str) -> Template:
    def read(node: ir.ArgMax, parts: dict[str, str]) -> str:
        path = "".join(f"{words(h.relation)} " for h in node.path)
        return f"{parts['input']} with the {word} {path}{parts['key']}"
    return read


def _joined(conjunction: str, pair: str) -> Template:
    """Two sets read as one ("the entities whose club is X and whose country is Y") when
    both read as the same things, else as two ("the entities that are both ... and ...").

    >>> from koplc.kopl.ir import And, Find, Relate
    >>> club = Relate(input=Find(name="X"), relation="club", direction="backward")
    >>> country = Relate(input=Find(name="Y"), relation="country", direction="backward")
    >>> phrase(And(left=club, right=country))
    'the entities whose club is X and whose country is Y'
    """
    def read(node: ir.Node, parts: dict[str, str]) -> str:
        left, right = parts["left"], parts["right"]
        head = re.match(r"the [\w-]+ ", left)
        if head and right.startswith(head.group()):
            return f"{left} {conjunction} {right[head.end():]}"
        return f"the entities that are {pair} {left} {conjunction} {right}"
    return read


def _exists(node: ir.Exists, parts: dict[str, str]) -> str:
    """'Is Tatooine the homeworld of Han Solo?' for an entity met by a set; else whether the
    set has any member."""
    inner = node.input
    if isinstance(inner, ir.And) and isinstance(inner.right, ir.Find):
        left = phrase(inner.left)
        among = "among " if left.startswith("the entities") else ""
        return f"Is {inner.right.name} {among}{left}?"
    return f"Are there any of {parts['input']}?"


def _filter_concept(node: ir.FilterConcept, parts: dict[str, str]) -> str:
    """'the element entities' of everything; of a set, what it holds that are of the concept,
    or the set alone when it already reads as the concept's members and is all of them ("the
    manufacturers that make vans", kept to manufacturers: each counted once).

    >>> from koplc.kopl.ir import FilterConcept, Find, Relate
    >>> made = Relate(input=Find(name="Van"), relation="made_by", direction="backward")
    >>> phrase(FilterConcept(input=made, concept="manufacturer"), lambda n: "manufacturers")
    'the manufacturers made by Van'
    >>> phrase(FilterConcept(input=made, concept="noble gas"), lambda n: "elements")
    'the elements made by Van that are noble gas entities'
    """
    if isinstance(node.input, ir.FindAll):
        return f"the {parts['concept']} entities"
    noun = plural(parts["concept"])
    if parts.get("noun") == noun and re.match(rf"the {re.escape(noun)}\b", parts["input"]):
        return parts["input"]
    return f"{parts['input']} that are {parts['concept']} entities"


READINGS: dict[str, Reading] = {
    "FindAll": Reading("the entities"),
    "Find": Reading("{name}"),
    "Entity": Reading("the entity {id}"),
    "FilterConcept": Reading(_filter_concept),
    "FilterStr": Reading("{input} whose {key} is {value}"),
    "FilterNum": Reading(_filter("key", "value")),
    "FilterYear": Reading(_filter("key", "value", time=True)),
    "FilterDate": Reading(_filter("key", "value", time=True)),
    "QFilterStr": Reading("{input}, where the fact's {qkey} is {qvalue}"),
    "QFilterNum": Reading(lambda n, p: f"{p['input']}, where the fact's {p['qkey']} is "
                          + _compared("qvalue")(n, p)),
    "QFilterYear": Reading(lambda n, p: f"{p['input']}, where the fact's {p['qkey']} is "
                           + _compared("qvalue", time=True)(n, p)),
    "QFilterDate": Reading(lambda n, p: f"{p['input']}, where the fact's {p['qkey']} is "
                           + _compared("qvalue", time=True)(n, p)),
    "Relate": Reading(_relate),
    "And": Reading(_joined("and", "both")),
    "Or": Reading(_joined("or", "either")),
    "QueryName": Reading("the names of {input}", "What are {input}?"),
    "Count": Reading("the number of {input}", _count),
    "QueryAttr": Reading("the {key} of {input}"),
    "QueryAttrUnderCondition": Reading("the {key} of {input} when its {qkey} is {qvalue}"),
    "QueryRelation": Reading("the relation from {left} to {right}",
                             "How is {left} related to {right}?"),
    "SelectBetween": Reading("whichever of {left} and {right} has the {comparator} {key}",
                             "Which has the {comparator} {key}, {left} or {right}?"),
    "SelectAmong": Reading("whichever of {input} has the {comparator} {key}",
                           "Which of {input} has the {comparator} {key}?"),
    "VerifyStr": Reading("{input} is {value}", "Is {input} {value}?"),
    "VerifyNum": _verify(),
    "VerifyYear": _verify(time=True),
    "VerifyDate": _verify(time=True),
    "QueryAttrQualifier": Reading("the {qkey} of the {key} {value} of {input}"),
    "QueryRelationQualifier": Reading(lambda n, p: (
        f"the {p['qkey']} of the {p['relation']} fact of {p['left']}"  # to what it reaches
        if isinstance(n.right, ir.Relate) and n.right.input == n.left
        else f"the {p['qkey']} of the {p['relation']} fact from {p['left']} to {p['right']}")),
    "ArgMax": Reading(_arg_extreme("largest")),
    "ArgMin": Reading(_arg_extreme("smallest")),
    "TimeConstraint": Reading("{input} whose {relation} holds at {time}"),
    "Exists": Reading("there are {input}", _exists),
}

# How a root op without its own question template is asked, by what it gives.
_ASK = {Type.ENTITIES: "Which are {}?", Type.ENTITIES_WITH_FACTS: "Which are {}?",
        Type.NAMES: "What are {}?", Type.VALUES: "What is {}?",
        Type.QUALIFIER_VALUES: "What is {}?", Type.COUNT: "What is {}?",
        Type.BOOLEAN: "Is it true that {}?", Type.RELATIONS: "What is {}?"}


Nouns = Callable[[ir.Node], "str | None"]


def _parts(node: ir.Node, nouns: Nouns | None) -> dict[str, str]:
    noun = nouns(node) if nouns is not None else None
    start = (_down_from(node, nouns) if noun and nouns is not None
             and isinstance(node, ir.Relate) else None)
    parts = {name: phrase(start if name == "input" and start is not None else child, nouns)
             for name, child in zip(type(node).child_fields(), node.children, strict=True)}
    if noun:
        parts["noun"] = noun
    if start is not None:
        parts["levels"] = "yes"
    for name, _ in type(node).arg_fields():
        value = getattr(node, name)
        parts[name] = words(value) if name in ("key", "qkey", "relation", "concept") \
            else str(value) if not isinstance(value, tuple) else ""
    return parts


def _down_from(node: ir.Relate, nouns: Nouns) -> ir.Node | None:
    """Where a relation followed through the levels of a hierarchy starts: the same relation
    followed the same way more than once, each step reaching another concept (an order's
    genera, then their species). Such a chain reads as one step from its start, as English
    says "the mammals in Rodentia" or "the order of the horse"; None for one step, or a
    relation that stays in one concept (a child's child reads step by step).

    >>> from koplc.kopl.ir import Find, Relate
    >>> down = lambda node: Relate(input=node, relation="parent taxon", direction="backward")
    >>> genera = down(Find(name="Rodentia"))
    >>> level = {str(genera): "genera", str(down(genera)): "mammals"}
    >>> [phrase(n, lambda n: level.get(str(n))) for n in (genera, down(genera))]
    ['the genera whose parent taxon is Rodentia', 'the mammals in Rodentia']
    """
    start, noun = node.input, nouns(node)
    while (isinstance(start, ir.Relate) and start.relation == node.relation
           and start.direction == node.direction and (level := nouns(start)) and level != noun):
        noun, start = level, start.input
    return None if start is node.input else start


def _fill(template: Template, node: ir.Node, nouns: Nouns | None = None) -> str:
    parts = _parts(node, nouns)
    return template(node, parts) if callable(template) else template.format(**parts)


def phrase(node: ir.Node, nouns: Nouns | None = None) -> str:
    """The program read as a phrase (a noun phrase, or a clause for Verify*); `nouns` may name
    what an entity set holds (plural, "elements"), else it reads "the entities".

    >>> from koplc.kopl.ir import Find, QueryAttr
    >>> phrase(QueryAttr(input=Find(name="Iron"), key="melting point"))
    'the melting point of Iron'
    """
    return _fill(READINGS[type(node).__name__].phrase, node, nouns)


def canonical_question(program: ir.Node, nouns: Nouns | None = None) -> str:
    """The one canonical English question for a program (`nouns`: as for `phrase`).

    >>> from koplc.kopl.ir import Find, QueryName, Relate
    >>> canonical_question(QueryName(input=Relate(input=Find(name="Marie Curie"),
    ...                                           relation="discovered_by", direction="backward")))
    'What are the entities discovered by Marie Curie?'
    """
    reading = READINGS[type(program).__name__]
    if reading.question is not None:
        text = _fill(reading.question, program, nouns)
    else:
        text = _ASK[program.output].format(phrase(program, nouns))
    return text[0].upper() + text[1:]
