"""Values a question names in other words: "no airbags" for the airbag value `None`, "sports
car" for the size class `Sporty`. A value is an entity that facts of one relation point at from
two or more subjects, the relation pointing at few such entities (a class, a status, a maker);
it is read with its relation ("standard airbags None"), so that a name that says little alone
("None") is read as what it is a value of.

A span of one or two words of the question, outside the names linked, names a value when its
MiniLM cosine with the value read with its relation is high (read alone, the genre "Action" is
as near as "acted"), the value adds to what the relation alone says, no other value reads as
near, and no concept of the KB reads as near ("channel" is the concept, not "Channel 4"); a
span whose words the names of two values or more share names none ("airlines"), nor one that
says only the last word of a value's name of several ("ships": a cargo ship is one). The
four numbers were set on the six development KBs' tune halves (tests/fixtures/devkbs), from
the spans each would link against the entities of the questions' gold programs.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

from koplc.kopl.grounding.mentions import Linked, names_words, schema_words
from koplc.kopl.kb.access import whole_of
from koplc.kopl.kb.memo import per_kb
from koplc.kopl.lexicon import (
    AUXILIARIES,
    CONTENT_STOP_WORDS,
    HAVE,
    NOT_NAMES,
    PREPOSITIONS,
    degree,
    singular,
)
from koplc.kopl.naming import name_head, name_phrase

# The most values one relation may point at for them to be read as values (a size).
MOST_VALUES = 50
LEAST_COSINE = 0.65  # the span and the value read with its relation
LEAST_GAIN = 0.05  # the value read with its relation, over the relation alone
LEAST_MARGIN = 0.06  # over the next other value
LEAST_OVER_CONCEPT = 0.05  # over the nearest concept name
_STOP = CONTENT_STOP_WORDS | NOT_NAMES | AUXILIARIES | HAVE | PREPOSITIONS


def meant_values(linked: Linked, kb) -> list[tuple[tuple[int, int], str]]:
    """The values (`MOST_VALUES`) that spans of the question outside `linked`'s spans name in
    other words, each as (span, name), at most one a span, none already linked."""
    values = _values(kb)
    if values is None:
        return []
    return _named(linked, values, schema_words(kb))


def values_named(question: str, kb) -> list[str]:
    """The ids of the values the question names in other words (`meant_values`, the
    question's names not yet linked) in the KB behind an endpoint `kb`: what the question's
    fragment is cut around, beside the entities it names."""
    values = _values(kb)
    if values is None:
        return []
    schema = kb.schema()
    words = names_words((*schema.concepts, *{r for r, _ in schema.relations},
                         *schema.attributes))
    named = {name for _, name in _named(Linked(question, (), (), ()), values, words)}
    return [i for i, name, _ in kb.values(MOST_VALUES) if name in named]


def _named(linked: Linked, values, schema: frozenset[str]) -> list[tuple[tuple[int, int], str]]:
    spans = _spans(linked, schema)
    if not spans:
        return []
    from koplc.kopl.grounding.index.embedder import DEFAULT_EMBEDDER as embedder

    names, read, relation, concepts, shared = values
    spans = [(s, e) for s, e in spans
             if not all(w in shared for w in _name_words(linked.question[s:e]))]
    if not spans:
        return []
    said = embedder.encode_queries([linked.question[s:e] for s, e in spans])
    near = said @ read.T
    gain = near - said @ relation.T
    concept = (said @ concepts.T).max(axis=1) if len(concepts) else np.full(len(spans), -1.0)
    found: list[tuple[tuple[int, int], str]] = []
    for i, span in enumerate(spans):
        best = int(np.argmax(near[i]))
        others = near[i][names != names[best]]
        if (near[i, best] >= LEAST_COSINE and gain[i, best] >= LEAST_GAIN
                and near[i, best] - others.max(initial=-1.0) >= LEAST_MARGIN
                and near[i, best] - concept[i] >= LEAST_OVER_CONCEPT
                and names[best] not in linked.entities
                and not _head_alone(linked.question[span[0]:span[1]], names[best])):
            found.append((span, names[best]))
    return _one_span_each(found)


def _spans(linked: Linked, schema: frozenset[str]) -> list[tuple[int, int]]:
    """The question's spans of one or two words outside the linked names, with a word that is
    no function word and no word of the `schema` ("genres" names the relation, not one genre;
    "no airbags" a value), and no word that grades ("smaller", "cheapest") or asks how much
    ("how big")."""
    words = [(m.start(), m.end()) for m in re.finditer(r"[\w'’-]+", linked.question)]
    said = [linked.question[s:e].lower() for s, e in words]
    graded = {i for i, w in enumerate(said)
              if degree(w) is not None or (i and said[i - 1] == "how")}
    spans = []
    for size in (1, 2):
        for i in range(len(words) - size + 1):
            start, end = words[i][0], words[i + size - 1][1]
            if (any(s < end and start < e for s, e in linked.spans)
                    or graded & set(range(i, i + size))):
                continue
            if any(w not in _STOP and singular(w) not in schema for w in said[i:i + size]):
                spans.append((start, end))
    return spans


def _head_alone(said: str, name: str) -> bool:
    """Whether the span says only the last word of a value's name of several words: the kind
    the value is one of ("ships" of "Cargo ship"), not the value."""
    words, named = _name_words(said), _name_words(name)
    return len(named) > 1 and words == named[-1:]


def _name_words(text: str) -> list[str]:
    """A name's or a span's words but function words, in lower case and in the singular."""
    return [singular(w) for w in re.findall(r"[\w'’-]+", text.lower()) if w not in _STOP]


def _shared_words(names) -> frozenset[str]:
    """The words that the names of two values or more hold ("airlines" of "Alaska Airlines
    Inc." and "Delta Air Lines Inc."): a span of such words alone names no one value."""
    counts = Counter(w for name in set(names) for w in set(_name_words(name)))
    return frozenset(w for w, n in counts.items() if n >= 2)


def _one_span_each(found: list[tuple[tuple[int, int], str]]
                   ) -> list[tuple[tuple[int, int], str]]:
    """One span a value, the first found (one-word spans come first), in the question's order."""
    kept: dict[str, tuple[int, int]] = {}
    for span, name in found:
        kept.setdefault(name, span)
    return sorted((span, name) for name, span in kept.items())


def value_pairs(kb) -> tuple[list[tuple[str, str]], list[str]] | None:
    """The KB's values as sorted (value name, relation) pairs, and its concept names. A KB
    behind an endpoint lists its values (`EndpointKB.values`), and a fragment of one reads
    those of the whole KB (its own would count otherwise). None for a KB that cannot list
    them."""
    whole = whole_of(kb)
    if whole is not None:  # a fragment
        return value_pairs(whole) if hasattr(whole, "values") else None
    pointing = getattr(kb, "in_objects", None)  # relation -> object -> its subjects
    if pointing is None and hasattr(kb, "values"):  # a KB behind an endpoint
        pairs = sorted({(name, relation) for _, name, relation in kb.values(MOST_VALUES)})
        return pairs, list(kb.schema().concepts)
    if pointing is None:
        return None
    pairs = []
    for relation, subjects_of in pointing.items():
        reached = {o: s for o, subjects in subjects_of.items()
                   if (s := {n for n in subjects if n >= kb.n_concepts})}
        if len(reached) <= MOST_VALUES:
            pairs += [(kb.names[o], relation) for o, s in reached.items()
                      if len(s) >= 2 and kb.names[o]]
    return sorted(pairs), kb.concept_names()


@per_kb()
def values_say(kb) -> dict[str, tuple[str, ...]]:
    """The last word of each relation's name whose values WordNet gives two or more
    adjectives of one attribute ("Small" and "Large" are of size: a vehicle class says a
    size) -> those attributes' nouns; the KB's values (`value_pairs`), read once per KB (a
    fragment of one behind an endpoint: once for the whole KB)."""
    from koplc.kopl.relatives import measures

    whole = whole_of(kb)
    if whole is not None:
        return values_say(whole) if hasattr(whole, "values") else {}
    found = value_pairs(kb)
    said: dict[str, Counter] = {}
    for name, relation in found[0] if found else ():
        if name.isalpha():
            said.setdefault(relation, Counter()).update(measures(name.lower()))
    out: dict[str, tuple[str, ...]] = {}
    for relation, nouns in sorted(said.items()):
        head = name_head(relation)
        kept = tuple(n for n, count in nouns.items() if count >= 2)
        if head and kept:
            word = head[-1].lower()
            out[word] = tuple(dict.fromkeys((*out.get(word, ()), *kept)))
    return out


@per_kb()
def _values(kb):
    """The KB's values' names, and MiniLM vectors of: each value read with its relation, the
    relation alone; and of the KB's concept names, those of the whole KB for a fragment of
    one behind an endpoint (once, not a fragment); and the words two values' names or more
    share (`_shared_words`). None for a KB without values."""
    whole = whole_of(kb)
    if whole is not None:
        return _values(whole) if hasattr(whole, "values") else None
    found = value_pairs(kb)
    if found is None:
        return None
    pairs, concepts = found
    if not pairs:
        return None
    from koplc.kopl.grounding.index.embedder import DEFAULT_EMBEDDER as embedder

    said = [(name_phrase(r) or r).lower() for _, r in pairs]
    concepts = [" ".join(name_head(c)).lower() for c in concepts]
    return (np.array([n for n, _ in pairs], dtype=object),
            embedder.encode_queries([f"{r} {n}" for r, (n, _) in zip(said, pairs, strict=True)]),
            embedder.encode_queries(said),
            embedder.encode_queries(concepts) if concepts else np.zeros((0, 1)),
            _shared_words(name for name, _ in pairs))
