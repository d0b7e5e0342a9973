"""Entities chosen by the numbers a question states, to grow an endpoint's fragment.

A question is compiled on a fragment of an endpoint's KB: its entities' neighbourhood (at most
100 entities expanded a hop) and the first 20 members of the concepts it names. A filter by a
number that few entities pass ("aircraft with more than 400 seats", "nuclides that live more
than a thousand years") may keep none of them, and then no front end writes the filter. So for
each number the question states (not one inside a linked name, "Carbon-14"), the entities
above, at and below it, by each numeric key, of each set the question may filter (a named
concept, or a set one relation from a linked entity that passes a hop's bound) join the
fragment (`fragment_of(grow=...)`). Each side is the filter a front end would write, lowered
with unit conversion, so it means what the executor means in any encoding; one query a number
asks every side of every key (a union of bounded subqueries), given `GROWING` seconds once: it
is a help, and the question goes on without it.
"""

from __future__ import annotations

import re
from dataclasses import replace

from koplc.kopl.errors import BackendError, KoplcError
from koplc.kopl.execution.executor import CONVERTING, execute
from koplc.kopl.grounding.mentions import says
from koplc.kopl.ir import FilterConcept, FilterNum, FilterYear, Find, FindAll, Node, Relate
from koplc.kopl.kb.model import KEY
from koplc.kopl.naming import name_words
from koplc.kopl.quantities_in_text import DECADE, QuantityInText, quantities_in
from koplc.kopl.types import Comparator
from koplc.kopl.values import DATE, QUANTITY, YEAR
from koplc.sparql_backend.lower import PROLOGUE

# Numbers of a question that choose members, and (set, key) pairs they are tried with.
MAX_NUMBERS, MAX_KEYS = 2, 12
# Seconds the query of one number may take.
GROWING = 5.0
_FILTERS = {QUANTITY: FilterNum, YEAR: FilterYear, DATE: FilterYear}


def unnamed(question: str, fragment, ids: list[str]) -> str:
    """The question with the names of the entities `ids` blanked: the number in a name
    ("Carbon-14") states no value.

    >>> from koplc.kopl.kb.model import KBBuilder
    >>> builder = KBBuilder()
    >>> builder.add_entity("Q1", "carbon-14", [])
    >>> unnamed("Carbon-14 decays in 5,730 years", builder.build(), ["Q1"])
    '          decays in 5,730 years'
    """
    for entity in ids:
        node = fragment.id_to_node.get(entity)
        if node is not None and fragment.names[node]:
            name = re.escape(fragment.names[node])
            question = re.sub(name, lambda m: " " * len(m.group()), question, flags=re.I)
    return question


def one_hop_sets(fragment, ids: list[str]) -> list[Relate]:
    """The sets one relation away from each entity of `ids` in `fragment`, as programs: those
    with an entity whose facts the fragment does not hold (past its bound of a hop)."""
    found = []
    expanded = fragment.expanded or frozenset()
    for entity in ids:
        node = fragment.id_to_node.get(entity)
        if node is None:
            continue
        find = Find(name=fragment.names[node])
        for direction, table in (("forward", fragment.out_objects),
                                 ("backward", fragment.in_objects)):
            found += [Relate(input=find, relation=relation, direction=direction)
                      for relation, objects in sorted(table.items())
                      if any(fragment.ids[m] not in expanded for m in objects.get(node, ()))]
    return found


def keys_of(fragment, sets: list[tuple[Node, bool]], said: str,
            types: frozenset[str] = frozenset(_FILTERS)) -> list[tuple[Node, str]]:
    """(set, key) for the keys of value `types` (the numeric ones unless told) that the
    entities of `sets` (a program giving them, whether the question says it) have in
    `fragment`: the first `MAX_KEYS`, those whose key and set the question says first."""
    pairs: dict[tuple[Node, str], tuple[bool, bool]] = {}
    for node, saying in sets:
        try:
            held = execute(node, fragment).entity_ids or ()
        except KoplcError:
            continue
        for entity in held:
            for fact in fragment.attributes[fragment.id_to_node[entity]]:
                if fragment.key_type.get(fact[KEY]) in types:
                    pairs[(node, fact[KEY])] = (says(said, name_words(fact[KEY])), saying)
    return sorted(pairs, key=lambda pair: (not pairs[pair][0], not pairs[pair][1]))[:MAX_KEYS]


def members_by_number(kb, fragment, keys: list[tuple[Node, str]],
                      numbers: tuple[QuantityInText, ...], each: int) -> list[str]:
    """Up to `each` entities of each set above, at and below each of `numbers` (with the unit
    said, and bare) by its key, for each (set, key) of `keys`: IRIs on the endpoint.

    A year or date key is compared by year (KoPL's comparators have no `>=`). Each side is
    the filter a front end would write, lowered with unit conversion, so it means what the
    executor means in any encoding; one query a number asks every side of every key (a
    union of bounded subqueries)."""
    found: list[str] = []
    for number in numbers:
        sides = []
        for node, key in keys:
            make = _FILTERS[fragment.key_type[key]]
            if make is FilterYear and (number.unit or not number.value.isdigit()):
                continue
            # with the unit said, and bare (a KB may store the key's values with no unit)
            values = dict.fromkeys([f"{number.value} {number.unit}".strip(), number.value]
                                   if make is FilterNum else [number.value])
            for value in values:
                for side in (Comparator.GT, Comparator.EQ, Comparator.LT):
                    program = make(input=node, key=key, value=value, comparator=side)
                    try:
                        lowered = kb.lowered(program, CONVERTING).query
                    except KoplcError:
                        continue  # a key the lowering refuses to compare this way
                    sides.append(lowered.removeprefix(PROLOGUE))
        found += union_members(kb, sides, each,
                               f"choosing entities by {len(sides)} filters of {number.value}")
    return found


def union_members(kb, sides: list[str], each: int, purpose: str) -> list[str]:
    """The entities of one query: the union of `sides` (lowered filters, without the
    prologue), each bounded to `each`; none when there are no sides or the query fails.

    A help, not a need: at most GROWING seconds, once, and the question goes on without it
    (a rare value is sought through every member of a large concept)."""
    if not sides:
        return []
    union = "\nUNION\n".join(f"{{ {side}\nLIMIT {each} }}" for side in sides)
    try:
        with kb.waiting(GROWING, retries=0):
            rows = kb.select(f"{PROLOGUE}SELECT ?entity WHERE {{\n{union}\n}}", purpose)
    except BackendError:
        return []
    return [r["entity"].value for r in rows if "entity" in r]


def chosen_by_number(kb, fragment, question: str, ids: list[str],
                     concepts: list[tuple[str, bool]], said: str, each: int) -> list[str]:
    """The IRIs of the entities on each side of each number `question` states, of the
    `concepts` (name, whether the question says it) and of the sets one relation from the
    entities `ids`, that join the `fragment` of the endpoint KB `kb` (`said`: the question's
    `said_words`; `each`: entities a side)."""
    numbers = tuple(replace(q, unit="") if q.unit == DECADE else q  # "the 1970s": near 1970
                    for q in quantities_in(unnamed(question, fragment, ids))[:MAX_NUMBERS])
    if not numbers:
        return []
    sets = [(FilterConcept(input=FindAll(), concept=name), saying) for name, saying in concepts]
    sets += [(hop, says(said, name_words(hop.relation))) for hop in one_hop_sets(fragment, ids)]
    return members_by_number(kb, fragment, keys_of(fragment, sets, said), numbers, each)
