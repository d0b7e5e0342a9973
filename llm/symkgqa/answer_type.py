"""The answer type a question's form asks for, and programs that give it.

A yes/no question wants yes or no; a how-many question a number (a count, or a quantity such as
"how many kilograms"); a question opening with "who", or asking "which" thing (not which year
or date), wants names. A chosen program that gives another type (a small model copies
`QueryAttr` from an attribute demonstration into "which humans are taller than ...") gives way
to a program of the right type: another candidate, or the same entity set queried for what the
question asks. The rules read English question words (koplc.kopl.lexicon), not any dataset's
templates.
"""

from __future__ import annotations

import re

from koplc.kopl.ir import Count, Node, QueryName
from koplc.kopl.lexicon import WH_ANSWER_TYPES, asked_noun, asks_how_many, is_yes_no, singular
from koplc.kopl.registry import info_of
from koplc.kopl.types import Type

_TIMES = frozenset(WH_ANSWER_TYPES["when"].split())
_NAMES_ASKED = re.compile(r"^\W*(?:who|whom)\b|\bwhich\b", re.IGNORECASE)


def asked_types(question: str, valued: frozenset[str] = frozenset()) -> frozenset[Type] | None:
    """The output types the question's form allows; None when its form does not say.
    `valued` are the nouns the KB names values by and not things by (`value_nouns`): "which
    episode" asks for a value where episodes are a qualifier's numbers.

    >>> [sorted(t.value for t in asked_types(q) or ()) for q in (
    ...     "Is Iron heavier than Gold?", "How many moons does Mars have?",
    ...     "Which humans are taller than 190 cm?", "Which year was it built?",
    ...     "What is the capital of France?")]
    [['yes/no'], ['attribute values', 'count'], ['names'], [], []]
    >>> asked_types("In which episodes was she star baker?", frozenset({"episode"})) is None
    True
    """
    if is_yes_no(question):
        return frozenset({Type.BOOLEAN})
    if asks_how_many(question):
        return frozenset({Type.COUNT, Type.VALUES})
    noun = asked_noun(question)
    if _NAMES_ASKED.search(question) and noun not in _TIMES and noun not in valued:
        return frozenset({Type.NAMES})
    return None


def value_nouns(keys, concepts) -> frozenset[str]:
    """The last words (in the singular, lower case) of the attribute and qualifier `keys` that
    are no word of a concept's name among `concepts`.

    >>> sorted(value_nouns(["episode", "average UK viewers", "series"], ["series", "baker"]))
    ['episode', 'viewer']
    """
    things = {w for c in concepts for w in singular(c.lower()).split()}
    heads = {singular(k.lower().split()[-1]) for k in keys if k.split()}
    return frozenset(heads - things)


def output_type(node: Node) -> Type:
    """What the program's last op gives (the op registry's signature)."""
    return info_of(node).output


def retyped(node: Node, wanted: frozenset[Type]) -> Node | None:
    """The program with its last op replaced so that it gives one of `wanted`: the names of the
    entity set an attribute query reads, or the count of the set a name query lists; None
    when neither applies.

    >>> from koplc.kopl.ir import Find, QueryAttr
    >>> retyped(QueryAttr(input=Find(name="X"), key="height"), frozenset({Type.NAMES})).op
    'QueryName'
    """
    inputs = node.children
    if len(inputs) != 1 or output_type(inputs[0]) not in (Type.ENTITIES, Type.ENTITIES_WITH_FACTS):
        return None
    if Type.NAMES in wanted and node.op != "QueryName":
        return QueryName(input=inputs[0])
    if Type.COUNT in wanted and node.op == "QueryName":
        return Count(input=inputs[0])
    return None

