"""Questions with gold answers over a generated KB, from the generator's own facts.

Kinds: ``relation`` (an entity's objects), ``inverse`` (the subjects linked to an entity),
``count`` (how many), ``two-hop`` (inverse, then a relation), ``attribute`` (an entity's values)
and ``qualifier`` (a qualifier of the fact between two entities). A question names its topic
in [brackets]; its gold answers are names or rendered values (`Value`'s text), computed here in
plain Python from `Layout.facts` over every entity that shares the topic's name, as koplc's
Find finds them all. Each record also carries the gold program in KoPL's nested syntax and what
it is built from: the relation or attribute (``key``), the second hop's relation (``then``),
the other entity and the qualifier key of a qualifier question (``other``, ``qkey``).

Inverse answers need the subjects pointing at an entity, which only a pass over the KB sees:
`QuestionMaker.plan` picks the topics first, `on_fact` (called by the writer for every
relation fact) keeps the facts that point at them, and `records` answers after the pass.
"""

from __future__ import annotations

import random
from collections import defaultdict

from koplc.kopl.ir import (
    Count,
    Find,
    Node,
    QueryAttr,
    QueryName,
    QueryRelationQualifier,
    Relate,
)
from koplc.kopl.syntax.nested import print_program
from koplc.kopl.values import Value
from koplc.sparql_backend.generate import UNTYPED, Fact, Layout, mix

KINDS = {"relation": 14, "inverse": 10, "attribute": 10, "two-hop": 6, "count": 5,
         "qualifier": 5}
TEMPLATES = {
    "relation": "what is the {r} of [{t}]?",
    "inverse": "which {s} has [{t}] as its {r}?",
    "count": "how many {s}s have [{t}] as their {r}?",
    "two-hop": "what is the {r2} of the {s}s that have [{t}] as their {r}?",
    "attribute": "what is the {r} of [{t}]?",
    "qualifier": "what is the {q} of the {r} of [{t}] that is [{o}]?",
}
_TRIES = 60  # draws per wanted question before a kind gives up (a tiny KB may lack one)


def _words(name: str) -> str:
    return name.replace("_", " ")


class QuestionMaker:
    """Picks topics before the KB is written, sees its relation facts, answers after."""

    def __init__(self, layout: Layout, seed: int):
        self.layout = layout
        self.rng = random.Random(mix(seed, 4))
        self.wanted: list[dict] = []
        self.watched: set[int] = set()
        self.pointing: dict[tuple[int, str], list[int]] = defaultdict(list)
        self.homonyms: dict[str, list[int]] = {}

    def plan(self, kinds: dict[str, int] = KINDS) -> None:
        """Draw the topics: subjects with facts of the kind, several per wanted question."""
        for kind, count in kinds.items():
            found = 0
            for _ in range(count * _TRIES):
                if found == count * 3:
                    break
                picked = self._draw(kind)
                if picked is not None:
                    self.wanted.append(picked)
                    found += 1
        names = {q["topic"] for q in self.wanted} | {q["other"] for q in self.wanted
                                                     if "other" in q}
        self.homonyms = {name: [] for name in names}
        for g in range(self.layout.entities):
            name = self.layout.name(g)
            if name in self.homonyms:
                self.homonyms[name].append(g)
        for q in self.wanted:
            if q["kind"] in ("inverse", "count", "two-hop"):
                self.watched.update(self.homonyms[q["topic"]])

    def _draw(self, kind: str) -> dict | None:
        g = self.rng.randrange(self.layout.entities)
        facts = self.layout.facts(g)
        relations = [f for f in facts if not isinstance(f.value, Value)]
        if kind == "attribute":
            values = [f for f in facts if isinstance(f.value, Value)]
            return {"kind": kind, "topic": self.layout.name(g), "key": self.rng.choice(values).key} \
                if values else None
        if kind == "qualifier":
            relations = [f for f in relations if f.qualifiers]
        if not relations:
            return None
        fact = self.rng.choice(relations)
        assert isinstance(fact.value, int)
        if kind == "relation":
            return {"kind": kind, "topic": self.layout.name(g), "key": fact.key}
        if kind == "qualifier":
            return {"kind": kind, "topic": self.layout.name(g), "key": fact.key,
                    "other": self.layout.name(fact.value), "qkey": next(iter(fact.qualifiers))}
        picked = {"kind": kind, "topic": self.layout.name(fact.value), "key": fact.key,
                  "subject": self.layout.concept_of(g)}
        if kind == "two-hop":
            onward = [f.key for f in relations if f.key != fact.key]
            if not onward:
                return None
            picked["then"] = self.rng.choice(onward)
        return picked

    def on_fact(self, subject: int, fact: Fact) -> None:
        """Keep a relation fact that points at a watched entity (the writer calls this)."""
        if fact.value in self.watched:
            assert isinstance(fact.value, int)
            self.pointing[(fact.value, fact.key)].append(subject)

    def records(self, limit: int | None = None) -> list[dict]:
        """The questions (`limit` in all, default `KINDS`' sum), each kind up to its count, in
        `KINDS` order; a question without answers is left out."""
        per_kind: dict[str, list[dict]] = defaultdict(list)
        for q in self.wanted:
            record = self._record(q)
            if record["answers"] and len(per_kind[q["kind"]]) < KINDS.get(q["kind"], 0) and \
                    record["question"] not in {r["question"] for r in per_kind[q["kind"]]}:
                per_kind[q["kind"]].append(record)
        found = [r for kind in KINDS for r in per_kind[kind]]
        return found[:limit] if limit else found

    def _record(self, q: dict) -> dict:
        kind, topic, key = q["kind"], q["topic"], q["key"]
        names = self.layout.name
        same = self.homonyms[topic]
        answers: set[str]
        program: Node
        if kind in ("relation", "attribute"):
            answers = {names(f.value) if isinstance(f.value, int) else str(f.value)
                       for h in same for f in self.layout.facts(h) if f.key == key}
            program = (QueryName(input=Relate(input=Find(name=topic), relation=key,
                                              direction="forward"))
                       if kind == "relation" else QueryAttr(input=Find(name=topic), key=key))
        elif kind == "qualifier":
            others = set(self.homonyms[q["other"]])
            answers = {str(v) for h in same for f in self.layout.facts(h)
                       if f.key == key and f.value in others
                       for v in f.qualifiers.get(q["qkey"], ())}
            program = QueryRelationQualifier(left=Find(name=topic), right=Find(name=q["other"]),
                                             relation=key, qkey=q["qkey"])
        else:
            subjects = {s for h in same for s in self.pointing.get((h, key), ())}
            inverse = Relate(input=Find(name=topic), relation=key, direction="backward")
            if kind == "inverse":
                answers, program = {names(s) for s in subjects}, QueryName(input=inverse)
            elif kind == "count":
                answers = {str(len(subjects))} if subjects else set()
                program = Count(input=inverse)
            else:
                answers = {names(f.value) for s in subjects for f in self.layout.facts(s)
                           if f.key == q["then"] and isinstance(f.value, int)}
                program = QueryName(input=Relate(input=inverse, relation=q["then"],
                                                 direction="forward"))
        subject = q.get("subject", "")
        text = TEMPLATES[kind].format(
            r=_words(key), t=topic, s="thing" if subject == UNTYPED else subject,
            r2=_words(q.get("then", "")), q=q.get("qkey", ""), o=q.get("other", ""))
        fields = {k: q[k] for k in ("key", "then", "other", "qkey") if k in q}
        return {"question": text, "answers": sorted(answers), "kind": kind, "topic": topic,
                "program": print_program(program), **fields}
