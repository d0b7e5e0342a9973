"""The BYOKG search's space: what a program may grow into next (`expansions`), which of those
may be tried for a question (`fits`), and which are kept (`admissible`: they run to something
beyond the question's own entities)."""

from __future__ import annotations

from collections.abc import Iterator

from koplc.kopl.errors import KoplcError
from koplc.kopl.execution.executor import CONVERTING, execute
from koplc.kopl.execution.judge import only_own
from koplc.kopl.ir import Count, FilterConcept, Node, QueryAttr, QueryName, Relate
from koplc.kopl.kb.access import whole_of
from koplc.kopl.kb.memo import per_kb
from koplc.kopl.registry import OPS
from koplc.kopl.types import Type
from koplc.llm.byokg.ops import (
    Cues,
    filters,
    finishers,
    measure_said,
    meetings,
    qualifier_filters,
    qualifier_queries,
)

# The ops that answer (they give no entity set): a program that ends in one is finished.
FINISHING = frozenset(name for name, op in OPS.items() if not op.output.fits(Type.ENTITIES))


def expansions(node: Node, kb, concepts: tuple[str, ...], cue: Cues | None = None,
               names: tuple[str, ...] = ()) -> Iterator[Node]:
    """Every one-op extension of an entity-set program: a relation either way, a concept the
    question names, a filter by a value it states (of an attribute, or of a qualifier of the
    facts just followed), or a finishing op (names, count, an attribute, a qualifier's value;
    with `cue`, a superlative's SelectAmong, a yes/no question's Verify, and its Exists of
    the set met with another of the question's entities `names`)."""
    for relation in sorted(kb.relation_names):
        for direction in ("forward", "backward"):
            yield Relate(input=node, relation=relation, direction=direction)
    for concept in concepts:
        yield FilterConcept(input=node, concept=concept)
    if cue is not None:
        yield from filters(node, kb, cue)
        yield from qualifier_filters(node, kb, cue)
    yield QueryName(input=node)
    yield Count(input=node)
    for key in sorted(kb.attr_index):
        yield QueryAttr(input=node, key=key)
    if cue is not None:
        yield from finishers(node, kb, cue)
        yield from qualifier_queries(node, kb, cue)
        yield from meetings(node, kb, names, cue)


def fits(node: Node, counts: bool, kb, question: str) -> bool:
    """Whether `node` may be tried: Count only when the question asks how many, and not of a
    named entity alone (that is one) nor of what it reaches one of (`one_each`); on a
    how-many question, an attribute only when the question says its unit or its name ("how
    many kelvin", "how many seats"); no filter by a value of a named entity alone (that is a
    Verify in disguise: "is the density of Gold above 19" read as the group of Gold whose
    density is above 19); a concept only where the named entity is several ("the element
    ENT" picks among entities of one name; of one entity, it only lends the program the
    concept's word); no filter right after the same one, nor a relation followed there, back
    and there again; no query of an attribute the program has filtered by ("which humans are
    taller than 190 cm" asks for the humans, not their heights); no way from a whole concept
    back among its own members (`_back_among_its_own`); no names of the things a quantity
    picks (SelectAmong names them; the pick is for reading on from)."""
    if node.op == "Count":
        return counts and node.input.op != "Find" and not one_each(node.input, kb)
    if node.op.startswith("Filter") and node.input.op == "Find":
        return node.op == "FilterConcept" and _several(node.input, kb)
    if node.op == "QueryAttr" and any(n.op.startswith("Filter") and getattr(n, "key", None)
                                      == node.key for _, n in node.input.walk()):
        return False  # the value it filters by is what the question says, not what it asks
    if node.op == "QueryAttr" and counts:
        return measure_said(kb, node.key, question)
    if node.op == "Relate" and (_bounces(node) or _back_among_its_own(node, kb)):
        return False
    if node.op.startswith("Filter") and node.input.op == node.op:
        return node.model_dump(exclude={"input"}) != node.input.model_dump(exclude={"input"})
    if node.op == "QueryName":
        base = node.input
        while base.op.startswith("Filter"):
            base = base.input
        # a quantity's pick is read on from; its names are SelectAmong's
        return base.op not in ("ArgMax", "ArgMin") or kb.key_type.get(base.key) != "quantity"
    return True


# The fewest entities a relation must reach one thing from each of before it is taken to reach
# one from any (`one_each`): a size, as the members a fragment samples (a KB of a few facts,
# the KoPL example's one child of LeBron James, says nothing of how many children one has).
ONE_EACH_HOLDERS = 20


def one_each(node: Node, kb) -> bool:
    """Whether `node` follows relations from one named entity, each of which reaches one thing
    from every entity the KB holds it for, `ONE_EACH_HOLDERS` or more (an isotope's element, a
    car's maker): a count of it is 1 for any entity, and says nothing. A fragment of an
    endpoint's KB holds only some of a relation's facts: the endpoint is asked (a KB that
    cannot say keeps the count)."""
    whole = whole_of(kb)
    if whole is not None and not hasattr(whole, "reaches_one"):
        return False
    while node.op == "Relate":
        if not (_reaches_one(kb, node.relation, node.direction) if whole is None else
                whole.reaches_one(node.relation, node.direction, ONE_EACH_HOLDERS)):
            return False
        node = node.input
    return node.op == "Find"


@per_kb(maxsize=256)
def _reaches_one(kb, relation: str, direction: str) -> bool:
    """Whether `relation`, followed in `direction`, reaches one thing from each entity of
    `kb` that has it, `ONE_EACH_HOLDERS` or more; once a KB (the search asks it of each
    Count it grows)."""
    table = (kb.out_objects if direction == "forward" else kb.in_objects).get(relation, {})
    return len(table) >= ONE_EACH_HOLDERS and all(len(set(reached)) == 1
                                                   for reached in table.values())


def _several(node: Node, kb) -> bool:
    """Whether `node` finds more than one entity."""
    try:
        return len(execute(node, kb).items()) > 1
    except KoplcError:
        return False


def _back_among_its_own(node: Relate, kb) -> bool:
    """Whether `node` goes from a whole concept's members (a concept named, no entity) through
    one relation and back to members of that concept through another, or straight back through
    the same one: "the bakers eliminated in a series some baker competed in" are bakers that
    words about either relation fit, not a set a question names. (Straight back is read from
    the program alone: an endpoint's fragment may not type every member it reaches.)"""
    first = node.input
    if first.op != "Relate":
        return False
    start = first.input
    while start.op.startswith("Filter") and start.op != "FilterConcept":
        start = start.input
    if start.op != "FilterConcept" or start.input.op != "FindAll":
        return False
    if _straight_back(node):
        return True  # the ones sharing a value with one of them (all, or most)
    try:
        reached = execute(node, kb).entity_ids or ()
        members = set(execute(start, kb).entity_ids or ())
    except KoplcError:
        return False
    return bool(reached) and set(reached) <= members


def _straight_back(node: Node) -> bool:
    """Whether `node` follows back the relation its input just followed."""
    first = node.input if node.op == "Relate" else None
    return (first is not None and first.op == "Relate" and first.relation == node.relation
            and first.direction != node.direction)


def _bounces(node: Relate) -> bool:
    """Whether `node` follows a relation there, back and there again: the answer of its first
    step with more besides."""
    back, first = node.input, getattr(node.input, "input", None)
    return (back.op == "Relate" and first is not None and first.op == "Relate"
            and back.relation == first.relation == node.relation
            and first.direction == node.direction != back.direction)




def admissible(node: Node, kb, topics: set[str]) -> tuple[str, ...] | None:
    """The answers of `node` when it runs to something beyond the question's own entities
    and does not follow a relation straight back to just what it left from (None otherwise;
    `_back_where_it_was`). A Count of a set that holds an entity more than once (the engine's
    Relate keeps one per fact: Delta's planes' makers are one a plane) counts facts, not what
    "how many" asks: it is not kept (a FilterConcept before it counts each entity once)."""
    try:
        if node.op == "Count" and _repeats(node.input, kb):
            return None
        result = execute(node, kb, CONVERTING)
        if _back_where_it_was(node, result.entity_ids, kb):
            return None
        answer = tuple(str(v) for v in result.items())
        if node.op in _BY_NUMBER and len(answer) == _held(node.input, kb):
            return None  # keeps every one: the number it compares with says nothing
        if node.op == "SelectAmong" and len(answer) > 1 and 2 * len(answer) > _held(node.input,
                                                                                    kb):
            return None  # most of them share the extreme: the key tells none apart
    except KoplcError:
        return None
    if not answer or only_own(node, answer, topics) or (node.op == "Count" and answer == ("0",)):
        return None
    return answer


_BY_NUMBER = frozenset({"FilterNum", "FilterYear", "FilterDate"})


def _back_where_it_was(node: Node, reached, kb) -> bool:
    """Whether `node`, which reached the entities `reached`, follows a relation straight back
    to just the things it left from (the clubs of the players of a club: the club), which
    says nothing the program did not."""
    return _straight_back(node) and set(reached or ()) == set(
        execute(node.input.input, kb, CONVERTING).entity_ids or ())


def _held(node: Node, kb) -> int:
    """How many things `node` gives whose own facts `kb` holds: all of them, except in an
    endpoint's fragment, whose entities at its edge come with their names and concepts only
    (a filter that keeps every member of a concept with facts would otherwise seem to tell
    them apart from those)."""
    items = execute(node, kb).items()
    expanded = getattr(kb, "expanded", None)
    if expanded is None:
        return len(items)
    return sum(1 for item in items if item in expanded)


def _repeats(node: Node, kb) -> bool:
    """Whether the entity set `node` gives holds an entity more than once."""
    ids = execute(node, kb, CONVERTING).entity_ids or ()
    return len(ids) != len(set(ids))
