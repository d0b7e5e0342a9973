"""More ways to say a relation chain than the explorer's one canonical reading, for the GNN's
training questions.

The canonical reading says every hop the same way ("the people that directed the movies whose
starred actors is X"): a model trained on it alone learns that one phrasing. People name a hop
by the noun for whoever does what a relation's verb says ("the directors of ..."; WordNet's
agent nouns, `relatives.agent_nouns`), a relation followed out and straight back by what
two things share ("the movies that share directors with X"), a chain from its topic
outward ("the movies directed by X: their writers?"), a passive relation in the active voice
("What movies did X direct?", "the genres of the movies that X wrote") and a time asked with
"when" ("When were the movies written by X released?"). All are general English, read from the
relations' names (lemminflect's verb forms, WordNet's verbs and time words); no dataset's
phrasing is written here. Which of them to keep was decided on MetaQA dev's tune half over
four training seeds, or two ensembles of four (docs/results.md).
"""

from __future__ import annotations

from koplc.kopl.exploration.readings import relation_phrase, words
from koplc.kopl.lexicon import WH_KINDS, base_form, participle, plural, simple_past
from koplc.kopl.relatives import agent_nouns, base_verb, kind_share

Hops = list[tuple[str, str]]


def passive_verb(relation: str) -> str | None:
    """The verb of a relation named '<participle> by', in its base form; None for a relation
    named otherwise.

    >>> passive_verb("written_by"), passive_verb("has_genre")
    ('write', None)
    """
    said = words(relation).split()
    return base_form(said[0]) if len(said) == 2 and said[1] == "by" else None


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
            *([_outward(topic, hops, nouns)] if len(hops) == 2 else []),
            *_active(topic, hops, nouns), *_when(topic, hops, nouns)]


def _active(topic: str, hops: Hops, nouns: list[str | None]) -> list[str]:
    """A chain whose first hop follows a '<participle> by' relation backward, said with that hop
    in the active voice, as people ask: "What movies did X write?" for one hop, "the genres of
    the movies that X wrote" for more. None for another first hop."""
    (relation, direction), noun = hops[0], nouns[0] or "entities"
    verb = passive_verb(relation) if direction == "backward" else None
    past = simple_past(words(relation).split()[0]) if verb else None
    if not verb or not past:
        return []
    subject = f"the {noun} that {topic} {past}"
    if len(hops) == 1:
        return [f"What {noun} did {topic} {verb}?", f"What are {subject}?"]
    return [f"What are {_read(subject, hops[1:], nouns[1:], '')}?"]


def _when(topic: str, hops: Hops, nouns: list[str | None]) -> list[str]:
    """A chain whose last hop follows forward a relation named by a time word and a verb
    ("release year", "year built"), asked with "when" and the verb's participle: "When was X
    released?", "When were the movies written by X released?". None for another last hop."""
    relation, direction = hops[-1]
    said = words(relation).split()
    if direction != "forward" or len(said) != 2:
        return []
    timed = [w for w in said if (kind_share(w, WH_KINDS["year date"]) or 0) >= 0.5]
    if len(timed) != 1:
        return []
    (verb,) = [w for w in said if w != timed[0]]
    done = verb if base_form(verb) else (participle(verb) if base_verb(verb) else None)
    if done is None:
        return []
    if len(hops) == 1:
        return [f"When was {topic} {done}?"]
    return [f"When were {_read(topic, hops[:-1], nouns[:-1], '')} {done}?"]


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
