"""MetaQA: its questions and their gold KoPL programs, the schema of its KB's triples, and the
words its questions need beyond general English (`lexicon_for`).

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
from koplc.kopl.kb.memo import per_kb
from koplc.kopl.kb.triple_schema import TripleSchema
from koplc.kopl.lexicon import NO_EXTRA, ExtraWords
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


FIXED_DEMOS = (
    ("who directed Blade Runner", ("Blade Runner",),
     "Step 1: Find(Blade Runner)\nStep 2: Relate(directed_by, forward)\n"
     "Step 3: QueryName()\nDone"),
    ("which films did Tom Hanks act in", ("Tom Hanks",),
     "Step 1: Find(Tom Hanks)\nStep 2: Relate(starred_actors, backward)\n"
     "Step 3: QueryName()\nDone"),
    ("what languages are the movies directed by Luc Besson in", ("Luc Besson",),
     "Step 1: Find(Luc Besson)\nStep 2: Relate(directed_by, backward)\n"
     "Step 3: Relate(in_language, forward)\nStep 4: QueryName()\nDone"),
    ("who acted in films that share a writer with Heat", ("Heat",),
     "Step 1: Find(Heat)\nStep 2: Relate(written_by, forward)\n"
     "Step 3: Relate(written_by, backward)\nStep 4: Relate(starred_actors, forward)\n"
     "Step 5: QueryName()\nDone"),
    ("how many movies did Sofia Coppola direct", ("Sofia Coppola",),
     "Step 1: Find(Sofia Coppola)\nStep 2: Relate(directed_by, backward)\n"
     "Step 3: Count()\nDone"),
    ("what genres are the films written by the writer of Alien", ("Alien",),
     "Step 1: Find(Alien)\nStep 2: Relate(written_by, forward)\n"
     "Step 3: Relate(written_by, backward)\nStep 4: Relate(has_genre, forward)\n"
     "Step 5: QueryName()\nDone"),
)
"""A manual fixed set of demonstrations over MetaQA's KB, (question, entities, kopl-steps
program) each (written for this project, not copied from MetaQA)."""

# MetaQA's words. Its questions are lower case, so a word of them that is also a KB name
# ("film" is a tag) links unless it is known to name nothing; and single-word MiniLM vectors
# keep some of its schema's nouns apart from the words its questions say them with ("kind" and
# "genre", 0.28).
WORDS = ExtraWords(
    not_names=frozenset({"movie", "movies", "film", "films", "acted", "directed", "written"}),
    near={"genre": ("kind", "sort", "type", "style"),
          "tag": ("topic", "keyword", "describe", "label"),
          "rating": ("rate", "rated", "score"),
          "star": ("appear", "act", "acting", "actor", "cast", "feature"),
          "language": ("speak", "spoken")})


def is_metaqa_kb(kb) -> bool:
    """Whether `kb` is MetaQA's: it has relations and all of them are MetaQA's (its kb.txt, or
    a part of it, wherever it was loaded from)."""
    relations = kb.relation_names
    return bool(relations) and relations <= set(KB_SCHEMA.object_concepts)


@per_kb()
def lexicon_for(kb) -> ExtraWords:
    """MetaQA's words (`WORDS`) for MetaQA's KB, none for any other KB."""
    return WORDS if is_metaqa_kb(kb) else NO_EXTRA
