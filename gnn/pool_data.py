"""Training questions from a KB's explored pool (`koplc explore`), with no labelled question.

A pool entry whose program is a relation chain from one entity, `Find(topic) -> Relate... ->
QueryName` or `-> Count`, of at most the model's step count in hops, gives one training question
per question the pool holds for it (canonical, paraphrased, least-to-most): the answers are the
names the chain reaches without passing through its topic again (the rule the GNN reasons by),
and the chain's relations are the path each reasoning step should follow (the self-loop, staying
put, on the steps after the last hop). A count's question teaches the same path: the GNN finds
the set and the back half counts it. Each shorter prefix of a chain is a chain too, asked by the
pool's own verbaliser (`canonical_question`): a pool of long chains teaches short ones as well.
Every chain is also asked once more with the KB's own concept names for the sets it passes
through ("the films whose starred actors is X" rather than "the entities ..."): what a set holds
is read from the KB, and people name it. And it is asked in the other general-English ways
`chain_readings` says a chain (agent nouns, "the directors of X"; what two things share, "the
movies that share directors with X"): trained on one phrasing, the model learns that phrasing.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from koplc.gnn.chain_readings import chain_readings
from koplc.gnn.errors import GnnError
from koplc.kopl.answering.ranking import topic_avoiding
from koplc.kopl.exploration import canonical_question
from koplc.kopl.grounding.path_edits import build, chain_of
from koplc.kopl.ir import Node, QueryName, Relate
from koplc.kopl.lexicon import plural
from koplc.kopl.naming import name_words
from koplc.kopl.types import Direction

# Fewer path questions than this teach nothing worth a model.
MIN_QUESTIONS = 20


@dataclass(frozen=True)
class PathQuestion:
    """A pool question as a training example: its text, topic, answer names, hop count and
    the edge type of each reasoning step (`gnn.subgraph.Graph`'s numbering)."""

    text: str
    topic: str
    answers: frozenset[str]
    hops: int
    path: tuple[int, ...]


def edge_type(relation: str, direction: Direction | str, relations: list[str]) -> int:
    """The edge type of a hop: r forward is r, r backward is R + r.

    >>> edge_type("b", "backward", ["a", "b"])
    3
    """
    index = relations.index(relation)
    return index if Direction(direction) is Direction.FORWARD else len(relations) + index


def path_questions(entries, kb, relations: list[str], steps: int,
                   prefixes: bool = True) -> list[PathQuestion]:
    """The pool's relation-chain questions of 1 to `steps` hops whose chain answers something
    on `kb` besides its topic; with `prefixes`, also each chain's shorter prefixes (one
    canonical question each, once per topic and path)."""
    known, seen = set(relations), set()
    out = []
    for entry in entries:
        chain = chain_of(entry.program)
        if chain is None:
            continue
        topic, hops, final = chain
        if not hops or any(r not in known for r, _ in hops) or topic not in kb.name_to_nodes:
            continue
        asked = [(len(hops), final, [q.text for q in entry.questions if q.text.strip()])]
        if prefixes:
            asked += [(n, QueryName, []) for n in range(1, len(hops))]
        for n, op, texts in asked:
            if n > steps or (topic, tuple(hops[:n])) in seen:
                continue
            seen.add((topic, tuple(hops[:n])))
            out += question_of(kb, build(topic, hops[:n], op), relations, steps, texts)
    return out


def question_of(kb, program: Node, relations: list[str], steps: int,
                texts: list[str]) -> list[PathQuestion]:
    """The chain program's questions: `texts` (the canonical reading when there are none) and
    its reading with the KB's concept names; none when the chain answers nothing but its
    topic."""
    topic, hops, _ = chain_of(program)  # type: ignore[misc]
    answers = frozenset(topic_avoiding(kb, topic, hops)) - {topic}
    if not answers:
        return []
    texts = texts or [canonical_question(program)]
    sets = prefix_nouns(kb, topic, hops)
    named = canonical_question(program, set_nouns(hops, sets))
    path = tuple(edge_type(r, d, relations) for r, d in hops)
    path += (2 * len(relations),) * (steps - len(path))
    return [PathQuestion(text, topic, answers, len(hops), path)
            for text in dict.fromkeys([*texts, named, *chain_readings(topic, hops, sets)])]


def prefix_nouns(kb, topic: str, hops: list[tuple[str, str]]) -> list[str | None]:
    """What the set the first i + 1 hops reach from `topic` is called: the concept most of its
    members belong to, in the plural ("films"); None where they belong to none."""
    here, found = set(kb.name_to_nodes.get(topic, ())), []
    for relation, direction in hops:
        table = (kb.out_objects if direction == "forward" else kb.in_objects).get(relation, {})
        here = {m for node in here for m in table.get(node, ())}
        found.append(concept_noun(kb, here))
    return found


def set_nouns(hops: list[tuple[str, str]], sets: list[str | None]):
    """A `nouns` reader for the verbaliser: each Relate of the chain `hops` named by
    `prefix_nouns`' name for the set it reaches."""
    named = {tuple(hops[:n]): noun for n, noun in enumerate(sets, start=1)}

    def nouns(node: Node) -> str | None:
        if not isinstance(node, Relate):
            return None
        chain = []
        while isinstance(node, Relate):
            chain.append((node.relation, node.direction))
            node = node.input
        return named.get(tuple(chain[::-1]))

    return nouns


def concept_noun(kb, nodes: set[int], sample: int = 50) -> str | None:
    """The plural name of the concept most of (a sample of) `nodes` belong to."""
    counts = Counter(c for n in sorted(nodes)[:sample] for c in kb.parents[n])
    if not counts:
        return None
    words = list(name_words(kb.names[counts.most_common(1)[0][0]]))
    return " ".join([*words[:-1], plural(words[-1])]) if words else None


def usable(questions: list[PathQuestion], source: str) -> list[PathQuestion]:
    """The questions, or GnnError when they are too few to train on (`source` names the pool
    or KB in the message)."""
    if not questions:
        raise GnnError(f"{source}: the explored pool has no relation-path question (a chain of "
                       "relations from one entity); the GNN reasons over relation paths only, "
                       "so it cannot be trained on this KB", code="gnn-no-paths")
    if len(questions) < MIN_QUESTIONS:
        raise GnnError(f"{source}: the explored pool has only {len(questions)} relation-path "
                       f"questions, fewer than the {MIN_QUESTIONS} the GNN needs; the KB is "
                       "too small to train on (explore more with --programs, or use another "
                       "front end)", code="gnn-too-small")
    return questions
