"""The part of a KB's schema a prompt shows: all of it when it is small, else per question the
relation names, attribute keys and concept names the question most likely needs, as many as fit
a token budget taken from the LM's context.

An item ranks by what the question has at hand: the facts of its linked entities (an item they
use ranks first, one their neighbours use next), the demonstrations' programs, and the words
it shares with the question (word stems, as grounding compares names). Ties go to the items
with more facts."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from koplc.kopl import naming
from koplc.kopl.errors import KoplcError
from koplc.kopl.grounding.name_forms import related_words
from koplc.kopl.kb.model import KEY, OBJECT, RELATION
from koplc.kopl.lexicon import CONTENT_STOP_WORDS, NAME_STOP_WORDS, WH_ANSWER_TYPES
from koplc.kopl.types import ArgKind

DEFAULT_CONTEXT = 4096  # the embedded model's (llm/lm/embedded.py), for an LM that says none
SCHEMA_SHARE = 4  # the schema gets at most a quarter of the context
ANSWER_ROOM = 200  # the program generated (160 tokens at most) and the stop string
NEIGHBOURS = 500  # the linked entities' neighbours whose facts count, at most

# Weights of the signals an item's rank adds up; the words it shares with the question count
# up to LEXICAL (all its words shared).
TOUCHES, DEMONSTRATED, LEXICAL, NEIGHBOURING = 4.0, 2.0, 2.0, 1.0

KINDS = (ArgKind.RELATION, ArgKind.ATTRIBUTE, ArgKind.CONCEPT)
HEADS = {ArgKind.RELATION: "Relations", ArgKind.ATTRIBUTE: "Attributes",
         ArgKind.CONCEPT: "Concepts"}

_RUNS = re.compile(r"[^\W\d_]+|\S")


def token_estimate(text: str) -> int:
    """At least as many tokens as Gemma's tokenizer makes of `text`, on names and prompts: one
    for each digit and each other symbol (it splits numbers into digits), and one for every four
    letters of a word, or part of four (its word pieces are mostly longer).

    >>> token_estimate("Relations: has_part_0017, locatedIn")
    16
    """
    return sum(math.ceil(len(run) / 4) if run[0].isalpha() else 1
               for run in _RUNS.findall(text))


def name_words(name: str) -> tuple[str, ...]:
    """The content words of a schema name (koplc.kopl.naming's words, in lower case, less short
    function words unless nothing else is left).

    >>> name_words("music.recording.produced_by"), name_words("placeOfBirth")
    (('music', 'recording', 'produced'), ('place', 'birth'))
    """
    words = tuple(w.lower() for w in naming.name_words(name))
    return tuple(w for w in words if w not in NAME_STOP_WORDS) or words


def context_of(lm) -> int:
    """The LM's context size in tokens (`n_ctx`), else the embedded model's."""
    size = getattr(lm, "n_ctx", None)
    return size if isinstance(size, int) and size > 0 else DEFAULT_CONTEXT


def schema_budget(context: int) -> int:
    """The most tokens a prompt's schema may take."""
    return context // SCHEMA_SHARE


@dataclass(frozen=True)
class Schema:
    """Schema names a prompt shows, by kind (each tuple in the order shown)."""

    relations: tuple[str, ...] = ()
    attributes: tuple[str, ...] = ()
    concepts: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        """One line per kind that has names: "Relations: a, b"."""
        kinds = zip(KINDS, (self.relations, self.attributes, self.concepts), strict=True)
        return [f"{HEADS[kind]}: {', '.join(names)}" for kind, names in kinds if names]

    def text(self) -> str:
        return "".join(line + "\n" for line in self.lines())


def whole_schema(kb) -> Schema:
    """The schema a prompt shows when it fits: every relation (sorted) and concept."""
    return Schema(tuple(sorted(kb.relation_names)), (), tuple(kb.concept_names()))


def fits(schema: Schema, context: int) -> bool:
    """Whether `schema` fits the schema budget of a context of `context` tokens."""
    return token_estimate(schema.text()) <= schema_budget(context)


@dataclass(frozen=True)
class _Item:
    kind: ArgKind
    name: str
    words: tuple[str, ...]
    cost: int  # tokens, with the comma before it
    facts: int


class SchemaSlicer:
    """Per question, the schema items of one KB that rank best and fit a budget."""

    def __init__(self, kb):
        self.kb = kb
        facts = {ArgKind.RELATION: Counter(), ArgKind.ATTRIBUTE: Counter(),
                 ArgKind.CONCEPT: Counter()}
        for table in (kb.out_objects, kb.in_objects):
            for relation, per in table.items():
                facts[ArgKind.RELATION][relation] += sum(map(len, per.values()))
        for key, per in kb.attr_index.items():
            facts[ArgKind.ATTRIBUTE][key] = sum(map(len, per.values()))
        names = kb.concept_names()
        for node, members in kb.concept_members.items():
            if node < kb.n_concepts:
                facts[ArgKind.CONCEPT][names[node]] += len(members)
        self.items = [_Item(kind, name, name_words(name), token_estimate(name) + 1, count)
                      for kind in KINDS for name, count in _names(kb, kind, facts[kind])]
        self.vocabulary = frozenset(w for item in self.items for w in item.words)

    def slice(self, linked, demos, budget: int) -> Schema:
        """The best-ranked items for the question that fit `budget` tokens, each kind in
        the KB's order (relations and keys sorted)."""
        ranked = sorted(self.items, key=self._ranker(linked, demos))
        spent, chosen = 0, {kind: set() for kind in KINDS}
        heads = {kind: token_estimate(f"{HEADS[kind]}:") + 1 for kind in KINDS}
        for item in ranked:
            cost = item.cost + (heads[item.kind] if not chosen[item.kind] else 0)
            if spent + cost <= budget:
                spent += cost
                chosen[item.kind].add(item.name)
        return Schema(*(tuple(i.name for i in self.items if i.kind is kind
                              and i.name in chosen[kind]) for kind in KINDS))

    def _ranker(self, linked, demos):
        near, next_to = self._facts_near(linked)
        shown = demonstrated(tuple(d.program for d in demos))
        asked = question_words(linked)
        # Each word of the schema compared with the question's once, not once per name.
        related = {w for w in self.vocabulary if any(related_words(w, a) for a in asked)}

        def rank(item: _Item):
            key = (item.kind, item.name)
            score = (TOUCHES * (key in near) + NEIGHBOURING * (key in next_to)
                     + DEMONSTRATED * (key in shown) + LEXICAL * shared(item.words, related))
            return -score, -item.facts, item.name

        return rank

    def _facts_near(self, linked) -> tuple[set, set]:
        """The items the linked entities' own facts use (and the linked concepts), and those
        their neighbours' facts use (of the first NEIGHBOURS)."""
        kb = self.kb
        nodes = [n for name in linked.entities for n in kb.name_to_nodes.get(name, ())]
        neighbours = dict.fromkeys(f[OBJECT] for n in nodes for f in kb.relations[n])
        near = self._used_by(nodes) | {(ArgKind.CONCEPT, c) for c in linked.concepts}
        return near, self._used_by(list(neighbours)[:NEIGHBOURS])

    def _used_by(self, nodes) -> set[tuple[ArgKind, str]]:
        kb, names = self.kb, self.kb.concept_names()
        used: set[tuple[ArgKind, str]] = set()
        for n in nodes:
            used.update((ArgKind.RELATION, f[RELATION]) for f in kb.relations[n])
            used.update((ArgKind.ATTRIBUTE, f[KEY]) for f in kb.attributes[n])
            used.update((ArgKind.CONCEPT, names[c]) for c in kb.parents[n])
        return used


def _names(kb, kind: ArgKind, facts: Counter) -> list[tuple[str, int]]:
    if kind is ArgKind.CONCEPT:
        return [(name, facts[name]) for name in dict.fromkeys(kb.concept_names()) if name]
    names = kb.relation_names if kind is ArgKind.RELATION else kb.attr_index
    return [(name, facts[name]) for name in sorted(names)]


def question_words(linked) -> tuple[str, ...]:
    """The question's content words, its entities masked, a wh-word as the type it asks for
    ("who": person).

    >>> from koplc.kopl.grounding.mentions import Linked
    >>> question_words(Linked("Who founded Acme Corp?", ("Acme Corp",), (), ((12, 21),)))
    ('person', 'founded')
    """
    words = [w for w in re.findall(r"[^\W_]+", linked.masked().casefold())
             if w not in CONTENT_STOP_WORDS and w != "ent"]
    return tuple(t for w in words for t in WH_ANSWER_TYPES.get(w, w).split())


def shared(words: tuple[str, ...], related: set[str]) -> float:
    """The share of a name's words that are `related` to the question's (0 to 1)."""
    return sum(w in related for w in words) / len(words) if words else 0.0


@lru_cache(maxsize=256)
def demonstrated(programs: tuple[str, ...]) -> frozenset[tuple[ArgKind, str]]:
    """The relations, attribute keys and concepts the demonstrations' programs name."""
    from koplc.kopl.syntax import steps as steps_syntax

    named: set[tuple[ArgKind, str]] = set()
    for text in programs:
        try:
            program = steps_syntax.parse(text).program
        except KoplcError:  # a demonstration that does not parse names nothing
            continue
        for _, node in program.walk():
            for field, kind in type(node).arg_fields():
                value = getattr(node, field)
                if kind is ArgKind.PATH:
                    named.update((ArgKind.RELATION, hop.relation) for hop in value)
                elif kind in KINDS:
                    named.add((kind, value))
    return frozenset(named)
