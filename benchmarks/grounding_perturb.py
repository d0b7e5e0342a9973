"""The perturbation set of the grounding benchmark: MetaQA dev gold programs with the mistakes
LLMs make when they write KoPL, applied with a fixed seed.

Chain questions (Find -> Relate... -> What), one perturbed program per question:

- Relation names: 25% underscores written as spaces (``directed by``), 60% a paraphrase drawn
  from PARAPHRASES (``director``, ``genre of``, ``starring``, ...), 15% left exact.
- Directions: each Relate's direction dropped with probability 0.5.
- The final What: dropped with probability 0.2 (the program ends with Relate).
- Entity titles: one near miss per Find, drawn among those that apply: a typo in a word of five
  or more letters (swap, drop, double or replace a letter), a dropped leading article, a
  changed digit or roman numeral ("Psycho II" -> "Psycho I" or "Psycho III"), a case change,
  a punctuation change (dropped or swapped punctuation, "&" <-> "and"), underscores for spaces.

Filter questions, on a view of the KB where each movie also has its release year as a year
attribute ``release year`` (the MetaQA KB has no attributes, so it cannot host numeric filters):
"which movies directed by (written by, starring) X were released after/before/in Y", for the
topics of the 1-hop director/writer/actor_to_movie dev questions, Y the median year of X's
films. The gold program is Find(X) -> Relate(r, backward) -> FilterYear(release year, Y, op) ->
What; the gold answers come from running it (an empty gold answer turns op into "="). Perturbed: FilterStr (or FilterNum) instead of
FilterYear, the comparison written as words inside the value ("1990, after", "later than
1990", "before 1990") or as a comparator word, and the key written as ``release_year``,
``year``, ``year of release`` or ``released``.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from koplc.kopl import ir
from koplc.kopl.datasets.metaqa import Question, gold_program

PARAPHRASES = {
    "directed_by": ["director", "directed by", "directed", "film director", "direction by",
                    "directors"],
    "written_by": ["writer", "written by", "screenwriter", "wrote", "screenplay by", "author"],
    "starred_actors": ["starring", "actor", "actors", "starred", "cast member", "stars"],
    "has_genre": ["genre", "genre of", "has genre", "film genre", "genres"],
    "in_language": ["language", "in language", "original language", "spoken language",
                    "language of"],
    "release_year": ["release year", "year", "released in", "year of release", "release date",
                     "publication year"],
    "has_tags": ["tags", "has tag", "tagged", "keywords", "tag", "topics"],
    "has_imdb_rating": ["imdb rating", "rating", "rated"],
    "has_imdb_votes": ["imdb votes", "votes", "number of votes"],
}
FILTER_KEYS = ["release_year", "year", "year of release", "released", "release year"]
FILTER_WORDS = {">": ["{y}, after", "after {y}", "later than {y}", "{y}, greater than"],
                "<": ["{y}, before", "before {y}", "earlier than {y}", "{y}, less than"],
                "=": ["{y}", "{y}, equal", "in {y}"]}
_ROMAN = ["I", "II", "III", "IV", "V", "VI"]


@dataclass
class Case:
    """One benchmark item: the question, gold and perturbed programs, and what was done."""

    question: Question
    gold: ir.Node
    perturbed: ir.Node
    entity_kind: str = ""
    relation_kinds: list[str] = field(default_factory=list)


def question_text(question: Question) -> str:
    """The question as a front end would pass it on: the topic's brackets removed."""
    return question.text.replace("[", "").replace("]", "")


def perturb_entity(name: str, rng: random.Random) -> tuple[str, str]:
    """A near miss of `name` and the kind of mistake."""
    kinds = ["case"]
    if re.search(r"[A-Za-z]{5,}", name):
        kinds.append("typo")
    if re.match(r"(?i)(the|a|an) \S", name):
        kinds.append("article")
    if re.search(r"\d", name) or any(w in _ROMAN for w in name.split()[1:]):
        kinds.append("digit")
    if re.search(r"[^\w\s]", name):
        kinds.append("punctuation")
    if " " in name:
        kinds.append("underscores")
    kind = rng.choice(kinds)
    return _NEAR_MISS[kind](name, rng), kind


def _typo(name: str, rng: random.Random) -> str:
    words = [m for m in re.finditer(r"[A-Za-z]{5,}", name)]
    word = rng.choice(words)
    i = rng.randrange(word.start() + 1, word.end() - 1)
    how = rng.choice(["swap", "drop", "double", "replace"])
    if how == "swap":
        return name[:i] + name[i + 1] + name[i] + name[i + 2:]
    if how == "drop":
        return name[:i] + name[i + 1:]
    if how == "double":
        return name[:i] + name[i] + name[i:]
    return name[:i] + rng.choice("aeiourstln") + name[i + 1:]


def _digit(name: str, rng: random.Random) -> str:
    words = name.split(" ")
    romans = [i for i, w in enumerate(words) if i and w in _ROMAN]
    if romans:
        i = rng.choice(romans)
        n = _ROMAN.index(words[i])
        down = n == len(_ROMAN) - 1 or (n > 0 and rng.random() < 0.5)
        words[i] = _ROMAN[n - 1 if down else n + 1]
        return " ".join(words)
    digits = [m.start() for m in re.finditer(r"\d", name)]
    i = rng.choice(digits)
    return name[:i] + str((int(name[i]) + rng.choice([1, 9])) % 10) + name[i + 1:]


def _punctuation(name: str, rng: random.Random) -> str:
    if "&" in name:
        return name.replace("&", "and")
    marks = [m.start() for m in re.finditer(r"[^\w\s]", name)]
    i = rng.choice(marks)
    return name[:i] + rng.choice(["", " -", ","]) + name[i + 1:]


_NEAR_MISS = {
    "case": lambda n, rng: rng.choice([n.lower(), n.upper(), n.title()]) if n.lower() != n
    else n.title(),
    "typo": _typo,
    "article": lambda n, rng: n.split(" ", 1)[1],
    "digit": _digit,
    "punctuation": _punctuation,
    "underscores": lambda n, rng: n.replace(" ", "_"),
}


def perturb_relation(relation: str, rng: random.Random) -> tuple[str, str]:
    """An LLM's way of writing the relation, and which kind of mistake it is."""
    roll = rng.random()
    if roll < 0.25:
        return relation.replace("_", " "), "underscores"
    if roll < 0.85:
        return rng.choice(PARAPHRASES[relation]), "paraphrase"
    return relation, "exact"


def chain_case(question: Question, rng: random.Random) -> Case:
    """The question's gold chain program and its perturbed copy."""
    gold = gold_program(question.topic, question.qtype)
    entity, entity_kind = perturb_entity(question.topic, rng)
    node: ir.Node = ir.Find(name=entity)
    kinds = []
    relate = gold.input
    hops = []
    while isinstance(relate, ir.Relate):
        hops.append(relate)
        relate = relate.input
    for hop in reversed(hops):
        relation, kind = perturb_relation(hop.relation, rng)
        kinds.append(kind)
        direction = None if rng.random() < 0.5 else hop.direction
        node = ir.Relate(input=node, relation=relation, direction=direction)
    perturbed = node if rng.random() < 0.2 else ir.QueryName(input=node)
    return Case(question, gold, perturbed, entity_kind, kinds)


def filter_programs(topic: str, relation: str, year: int, op: str, rng: random.Random
                    ) -> tuple[ir.Node, ir.Node]:
    """The gold filter program and an LLM-style version of it."""
    movies = ir.Relate(input=ir.Find(name=topic), relation=relation, direction="backward")
    gold = ir.QueryName(input=ir.FilterYear(input=movies, key="release year", value=str(year),
                                            comparator=op))
    key = rng.choice(FILTER_KEYS)
    value = rng.choice(FILTER_WORDS[op]).format(y=year)
    style = rng.random()
    if style < 0.6:
        wrong = ir.FilterStr(input=movies, key=key, value=value)
    elif style < 0.8:
        wrong = ir.FilterNum(input=movies, key=key, value=str(year), comparator=rng.choice(
            {">": ["greater than", "after"], "<": ["less than", "before"], "=": ["equals"]}[op]))
    else:
        wrong = ir.FilterYear(input=movies, key=key, value=str(year), comparator={
            ">": "later than", "<": "earlier than", "=": "in"}[op])
    return gold, ir.QueryName(input=wrong)
