"""More ways to say a relation chain than the explorer's one canonical reading, for the GNN's
training questions.

The canonical reading says every hop the same way ("the people that directed the movies whose
starred actors is X"): a model trained on it alone learns that one phrasing. People name a hop
by the noun for whoever does what a relation's verb says ("the directors of ..."; WordNet's
agent nouns, `relatives.agent_nouns`), a relation followed out and straight back by what
two things share ("the movies that share directors with X"), and a chain from its topic
outward ("the movies directed by X: their writers?"). All are general English, read from the
relations' names; no dataset's phrasing is written here. Which of them to keep was decided on
MetaQA dev's tune half over four training seeds (docs/results.md).
"""

from __future__ import annotations

from koplc.kopl.exploration.readings import relation_phrase, words
from koplc.kopl.lexicon import base_form, plural
from koplc.kopl.relatives import agent_nouns

Hops = list[tuple[str, str]]


def agent_plural(relation: str) -> str | None:
    """Who does what a '<participle> by' relation's verb says, in the plural; None for a
    relation named otherwise, or a verb with no agent noun in WordNet.

    >>> agent_plural("directed_by"), agent_plural("has_genre")
    ('directors', None)
    """
    said = words(relation).split()
    if len(said) != 2 or said[1] != "by":
        return None
    base = base_form(said[0])
    found = agent_nouns(base) if base else ()
    return plural(found[0]) if found else None


def relation_noun(relation: str) -> str:
    """What the things a relation reaches are called, by its name: its agent noun ("directed
    by": directors), else the name without a leading "has" or "in".

    >>> relation_noun("written_by"), relation_noun("has_tags"), relation_noun("in_language")
    ('writers', 'tags', 'language')
    """
    agent = agent_plural(relation)
    if agent:
        return agent
    said = words(relation).split()
    return " ".join(said[1:] if said[0] in ("has", "in") and len(said) > 1 else said)


def chain_readings(topic: str, hops: Hops, nouns: list[str | None]) -> list[str]:
    """The chain from `topic` read with agent nouns for the hops that have one, then also with
    what two things share for each relation followed out and straight back (the set in between
    when the relation is followed backward first: "the actors that share movies with X"), then
    with such a pair said as "co-" and the relation's noun ("the co-actors of X"); and a chain of
    two hops read from its topic outward (`_outward`; of three hops, that reading cost 3-hop
    accuracy on MetaQA dev's tune half, and people seldom say three hops so). `nouns[i]` names
    the set the first i + 1 hops reach (None: "entities"). The caller drops repeats.

    >>> chain_readings("Heat", [("directed_by", "forward"), ("directed_by", "backward")],
    ...                [None, "movies"])[1]
    'What are the movies that share directors with Heat?'
    >>> chain_readings("Al Pacino", [("starred_actors", "backward"),
    ...                ("starred_actors", "forward")], ["movies", None])[1:3]
    ['What are the entities that share movies with Al Pacino?', 'What are the co-actors of Al Pacino?']
    """
    return [*(f"What are {_read(topic, hops, nouns, pairs)}?" for pairs in ("", "share", "co")),
            *([_outward(topic, hops, nouns)] if len(hops) == 2 else [])]


def _outward(topic: str, hops: Hops, nouns: list[str | None]) -> str:
    """The chain read from its topic outward, as people often put it ("the movies directed by
    X: their writers?") where the canonical reading names the last hop first."""
    said = [_hop(*hops[0], topic, nouns[0])]
    for (relation, direction), noun in zip(hops[1:], nouns[1:], strict=True):
        said.append(f"their {relation_noun(relation)}" if direction == "forward" else
                    relation_phrase(relation, direction, "them", noun or "entities"))
    return f"{said[0][0].upper()}{said[0][1:]}: {', '.join(said[1:])}?"


def _read(topic: str, hops: Hops, nouns: list[str | None], pairs: str) -> str:
    """The chain read one hop inside the next, the last named first; `pairs` ("share" or
    "co"; "" for none) says how a relation followed out and straight back is read."""
    subject, i = topic, 0
    while i < len(hops):
        relation, direction = hops[i]
        if pairs and i + 1 < len(hops) and hops[i + 1][0] == relation \
                and hops[i + 1][1] != direction:
            shared = relation_noun(relation) if direction == "forward" else \
                nouns[i] or "entities"
            noun = nouns[i + 1] or "entities"
            if pairs == "co" and direction == "backward":
                subject = f"the co-{relation_noun(relation).split()[-1]} of {subject}"
            else:
                subject = f"the {noun} that share {shared} with {subject}"
            i += 2
            continue
        subject = _hop(relation, direction, subject, nouns[i])
        i += 1
    return subject


def _hop(relation: str, direction: str, subject: str, noun: str | None) -> str:
    """One hop from `subject`, by the relation's agent noun where it has one."""
    agent = agent_plural(relation) if direction == "forward" else None
    return (f"the {agent} of {subject}" if agent else
            relation_phrase(relation, direction, subject, noun or "entities"))
