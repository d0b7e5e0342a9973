"""Entities chosen by the words a question says, to grow an endpoint's fragment by string
values, as `by_number` grows it by numbers.

"Which characters have red eyes?" filters a named concept by a string value. The fragment holds
the first 20 members of the concept, and none of them may have red eyes; then no front end
writes the filter. So the question's content words (not those of a linked name), each alone and
each with the next, are tried as the value of each string key of each set the question may
filter (a named concept, or a set one relation from a linked entity): the members that
`FilterStr` keeps join the fragment. One query asks every (set, key, value) (a union of bounded
subqueries), given `GROWING` seconds once: it is a help, and the question goes on without it.
"""

from __future__ import annotations

import re

from koplc.kopl.errors import KoplcError
from koplc.kopl.execution.executor import CONVERTING
from koplc.kopl.grounding.mentions import says
from koplc.kopl.ir import FilterConcept, FilterStr, FindAll, Node
from koplc.kopl.lexicon import AUXILIARIES, CONTENT_STOP_WORDS
from koplc.kopl.naming import name_words
from koplc.kopl.values import STRING
from koplc.sparql_backend.by_number import keys_of, one_hop_sets, union_members, unnamed
from koplc.sparql_backend.lower import PROLOGUE

# Words and pairs of words of a question tried as values, and the most subqueries of a query.
MAX_VALUES, MAX_SIDES = 8, 96


def said_values(question: str) -> list[str]:
    """The values a question may state: its content words, each alone and, where the next
    word is one too, with it; the first `MAX_VALUES`.

    >>> said_values("Which characters have red eyes?")
    ['characters', 'red', 'red eyes', 'eyes']
    """
    words = re.findall(r"[\w'-]+", question)
    content = [w.lower() not in CONTENT_STOP_WORDS | AUXILIARIES and not w.isdigit()
               for w in words]
    found: list[str] = []
    for i, word in enumerate(words):
        if content[i]:
            found.append(word)
            if i + 1 < len(words) and content[i + 1]:
                found.append(f"{word} {words[i + 1]}")
    return list(dict.fromkeys(found))[:MAX_VALUES]


def members_by_string(kb, keys: list[tuple[Node, str]], values: list[str],
                      each: int) -> list[str]:
    """Up to `each` entities of each set whose key is each of `values`, for each (set, key)
    of `keys`: IRIs on the endpoint, from one query (the filter a front end would write,
    lowered)."""
    sides = []
    for node, key in keys:
        for value in values:
            program = FilterStr(input=node, key=key, value=value)
            try:
                sides.append(kb.lowered(program, CONVERTING).query.removeprefix(PROLOGUE))
            except KoplcError:
                continue
    sides = sides[:MAX_SIDES]
    return union_members(kb, sides, each, f"choosing entities by {len(sides)} string filters")


def chosen_by_string(kb, fragment, question: str, ids: list[str],
                     concepts: list[tuple[str, bool]], said: str, each: int) -> list[str]:
    """The IRIs of the entities of the `concepts` (name, whether the question says it) and of
    the sets one relation from the entities `ids` whose string key is a value the question
    says, that join the `fragment` of the endpoint KB `kb` (`said`: the question's
    `said_words`; `each`: entities a value)."""
    values = said_values(unnamed(question, fragment, ids))
    if not values:
        return []
    sets = [(FilterConcept(input=FindAll(), concept=name), saying) for name, saying in concepts]
    sets += [(hop, says(said, name_words(hop.relation))) for hop in one_hop_sets(fragment, ids)]
    keys = keys_of(fragment, sets, said, frozenset({STRING}))
    return members_by_string(kb, keys, values, each)
