"""MetaQA: its questions and their gold KoPL programs, and the schema of its KB's triples.

A question type such as ``movie_to_director_to_movie`` is a chain of hops; the gold program is
``Find(topic)``, one ``Relate`` per hop, then ``What``. A hop from a movie to X follows X's
relation forward, a hop from X to a movie follows it backward. MetaQA scores an answer after
removing the topic entity from the final set (`score` does that; the program does not).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from koplc.kopl.ir import Find, Node, QueryName, Relate
from koplc.kopl.kb.triple_schema import TripleSchema
from koplc.kopl.types import Direction

RELATIONS = {
    "actor": "starred_actors", "director": "directed_by", "writer": "written_by",
    "genre": "has_genre", "language": "in_language", "year": "release_year",
    "tag": "has_tags", "tags": "has_tags", "imdbrating": "has_imdb_rating",
    "imdbvotes": "has_imdb_votes",
}
_TOPIC = re.compile(r"\[([^\]]+)\]")

KB_SCHEMA = TripleSchema("movie", {
    "directed_by": "person", "written_by": "person", "starred_actors": "person",
    "has_tags": "tag", "has_genre": "genre", "in_language": "language", "release_year": "year",
    "has_imdb_rating": "imdb rating", "has_imdb_votes": "imdb votes"})


@dataclass(frozen=True)
class Question:
    """One MetaQA question: its line in the original file, text, topic, gold answers, type."""

    index: int | None
    text: str
    topic: str
    answers: frozenset[str]
    qtype: str

    @property
    def hops(self) -> int:
        return len(self.qtype.split("_to_")) - 1


def hops_of(qtype: str) -> list[tuple[str, Direction]]:
    """The (relation, direction) of each hop of a question type.

    >>> hops_of("actor_to_movie_to_director")
    [('starred_actors', <Direction.BACKWARD: 'backward'>), ('directed_by', <Direction.FORWARD: 'forward'>)]
    """
    kinds = qtype.split("_to_")
    hops = []
    for here, there in zip(kinds, kinds[1:], strict=False):
        if here == "movie" and there in RELATIONS:
            hops.append((RELATIONS[there], Direction.FORWARD))
        elif there == "movie" and here in RELATIONS:
            hops.append((RELATIONS[here], Direction.BACKWARD))
        else:
            raise ValueError(f"no MetaQA relation links {here!r} to {there!r} in {qtype!r}")
    return hops


def gold_program(topic: str, qtype: str) -> Node:
    """Find(topic), a Relate per hop, then What (QueryName).

    >>> gold_program("Tom Cullen", "actor_to_movie").input.relation
    'starred_actors'
    """
    node: Node = Find(name=topic)
    for relation, direction in hops_of(qtype):
        node = Relate(input=node, relation=relation, direction=direction)
    return QueryName(input=node)


def read_questions(path: str | Path) -> list[Question]:
    """Questions of a MetaQA tsv: ``[index\\t]question\\tanswers\\tqtype``, topic in brackets."""
    questions = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        fields = line.split("\t")
        index = int(fields.pop(0)) if len(fields) == 4 else None
        text, answers, qtype = fields
        topic = _TOPIC.search(text)
        if topic is None:
            raise ValueError(f"{path}: no [topic] in {text!r}")
        questions.append(Question(index, text, topic.group(1), frozenset(answers.split("|")),
                                  qtype))
    return questions


def score(names: list[str] | str, question: Question) -> bool:
    """Whether the answer names, less the topic, are exactly the gold answers."""
    got = {names} if isinstance(names, str) else set(names)
    return got - {question.topic} == question.answers


def f1(predicted: set[str] | frozenset[str], gold: set[str] | frozenset[str]) -> float:
    """The F1 of a predicted answer set against the gold one.

    >>> f1({"a", "b"}, {"b", "c"})
    0.5
    """
    common = len(predicted & gold)
    if not common:
        return 0.0
    precision, recall = common / len(predicted), common / len(gold)
    return 2 * precision * recall / (precision + recall)
