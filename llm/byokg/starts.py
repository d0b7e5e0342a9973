"""Where the BYOKG search starts a question that names no entity or concept of the KB: from
everything each value it states keeps (`open_starts`), or, in a KB with no concepts, from the
largest side of a relation whose things are of the kind it counts or asks for
(`kind_starts`); a question naming nothing goes on to the search only where one of these
holds (`starts_unnamed`)."""

from __future__ import annotations

from koplc.kopl.answering.thing_kinds import roles_of_kind
from koplc.kopl.answering.unheld import unheld
from koplc.kopl.errors import KoplcError
from koplc.kopl.execution.executor import CONVERTING, execute
from koplc.kopl.exploration.readings import words
from koplc.kopl.grounding.mentions import Linked
from koplc.kopl.ir import FindAll, Node, Relate
from koplc.kopl.kb.memo import per_kb
from koplc.kopl.lexicon import WH_ANSWER_TYPES, singular
from koplc.kopl.relatives import closed_compound_head, kinds_of
from koplc.llm.byokg import fit
from koplc.llm.byokg.ops import Cues, cues, filters


@per_kb()
def open_starts(kb, cue: Cues) -> tuple[Node, ...]:
    """Where a question that names no entity or concept starts: everything `kb` holds kept by
    each value it states ("What weighs less than two thousand pounds?", "Which characters have
    blue eyes?"), by every key that value may be of and keeps some but not all of the entities
    that hold it; and everything, when it has a superlative ("Which character is the smallest
    of all?": the smallest of what holds a height). None for a yes/no question, which asks of
    something it names. Kept per KB and cue: whether a question may start at all is asked
    before its search, which starts from them."""
    if cue.yes_no:
        return ()
    starts: list[Node] = []
    for node in filters(FindAll(), kb, cue):
        try:
            kept = len(set(execute(node, kb, CONVERTING).entity_ids or ()))
        except KoplcError:
            continue
        if 0 < kept < len(kb.attr_index.get(node.key, ())):  # keeps some of those with the key
            starts.append(node)
    return (*starts, FindAll()) if cue.extremes else tuple(starts)


def starts_unnamed(kb, linked: Linked) -> bool:
    """Whether a question that names nothing of `kb` goes on to the search: it states a value
    (`open_starts`), or counts or asks for things of a kind `kb` holds (`kind_starts`) and
    asks of them nothing the KB names nothing like ("Which bakers are married?": `unheld`)."""
    if open_starts(kb, cues(linked.question, linked.spans)):
        return True
    return bool(kind_starts(kb, linked)) and unheld(kb, linked.masked(), ()) is None


def kind_starts(kb, linked: Linked) -> list[Node]:
    """Where a question that names no entity starts in a KB with no concepts, when it counts
    or asks for things of a kind WordNet names its things by (`thing_kinds`): the largest
    side of a relation whose things are of that kind ("How many mammals are in the table?":
    the subjects of the relation whose subjects are placentals)."""
    if linked.entities or kb.n_concepts:
        return []
    masked = linked.masked()
    noun = fit.counted_noun(masked) or fit.asked_type(masked)
    if not noun or noun in ("number", *WH_ANSWER_TYPES.values()):
        return []
    roles = roles_of_kind(kb, noun.split()[-1]) or named_roles(kb, noun.split()[-1])
    return [Relate(input=FindAll(), relation=r, direction=d) for r, d in roles[:1]]


def named_roles(kb, noun: str) -> list[tuple[str, str]]:
    """The (relation, direction) sides of `kb`'s relations whose names call their things
    `noun`s (or a kind of them, by WordNet), the largest first: the objects by the name's head
    ("homeworld": worlds, "plays in club": clubs) or a "by" verb's agent ("manufactured by":
    manufacturers), the subjects by a doer, holder or modifier (`fit.asks_doer`'s nouns:
    "plays in club": players)."""
    said = singular(noun.lower())
    kinds = kinds_of(said)
    found = []
    for relation in sorted(kb.relation_names):
        name = words(relation).lower()
        head = fit.reached(name, None).split()[-1]
        sides = (("forward", (fit.by_agent(name) or closed_compound_head(head),),
                  kb.in_objects.get(relation, {})),
                 ("backward", (*fit.doers(name), *fit.holders(name), *fit.modifiers(name)),
                  kb.out_objects.get(relation, {})))
        for direction, nouns, held in sides:
            if held and any(n == said or n in kinds for n in nouns):
                found.append((len(held), relation, direction))
    return [(relation, direction) for _, relation, direction in sorted(found, reverse=True)]


