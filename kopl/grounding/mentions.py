"""Entity mentions: a question's KB entities and concepts, by looking up every n-gram span of
the question by its normal form in the KB's names; no external NER. [Brackets] around a name
are a hint when present, never required. The LLM and GNN front ends both link questions with
it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from koplc.kopl.grounding.name_forms import normal_form
from koplc.kopl.lexicon import NO_EXTRA, NOT_NAMES, ExtraWords

_BRACKETS = re.compile(r"\[([^\]]+)\]")
_POSSESSIVE = re.compile(r"['’]s$")
LONGEST = 10


@dataclass(frozen=True)
class Linked:
    """A question's KB entities (names as the KB spells them) and concepts, with the spans."""

    question: str
    entities: tuple[str, ...]
    concepts: tuple[str, ...]
    spans: tuple[tuple[int, int], ...]

    def masked(self) -> str:
        """The question with each entity span replaced by ENT (for similarity search)."""
        text, offset = self.question, 0
        for start, end in self.spans:
            text = text[:start + offset] + "ENT" + text[end + offset:]
            offset += 3 - (end - start)
        return text


def plain(question: str) -> str:
    """The question without [brackets] around names."""
    return _BRACKETS.sub(r"\1", question).strip()


@lru_cache(maxsize=4)
def _entity_table(kb) -> dict[str, list[str]]:
    """Normal form -> the KB's entity names with it ("Kevin Costner" the person and "kevin
    costner" the tag share one)."""
    table: dict[str, list[str]] = {}
    for name in kb.names[kb.n_concepts:]:
        if name:
            table.setdefault(normal_form(name), []).append(name)
    return table


def link(question: str, kb, extra: ExtraWords = NO_EXTRA) -> Linked:
    """The entities and concepts of `kb` that the question names, longest spans first; words
    of `extra.not_names` (a dataset's, for its own KB) name nothing on their own."""
    table = _entity_table(kb)
    text = plain(question)
    hinted = [m.group(1) for m in _BRACKETS.finditer(question)]
    words = [(m.start(), m.end()) for m in re.finditer(r"[^\s?!.]+", text)]
    lowercase = not any(text[s].isupper() for s, _ in words[1:])
    found: list[tuple[int, int, str]] = []
    taken: set[int] = set()
    for size in range(min(LONGEST, len(words)), 0, -1):
        for i in range(len(words) - size + 1):
            if taken & set(range(i, i + size)):
                continue
            start, end = words[i][0], words[i + size - 1][1]
            span = text[start:end].strip(",;:'\"’")
            names = table.get(normal_form(span))
            if names is None and _POSSESSIVE.search(span):  # "Marie Curie's discoveries"
                span = _POSSESSIVE.sub("", span)
                names = table.get(normal_form(span))
            if names is None or not _plausible(span, lowercase, hinted, extra.not_names):
                continue
            name = span if span in names else names[0]  # the spelling the question uses
            found.append((start, start + len(span), name))
            taken |= set(range(i, i + size))
    found.sort()
    lower = text.lower()
    concepts = tuple(c for c in kb.concept_names()
                     if c and re.search(rf"(?<!\w){re.escape(c.lower())}(?!\w)", lower))
    return Linked(text, tuple(dict.fromkeys(n for _, _, n in found)), concepts,
                  tuple((s, e) for s, e, _ in found))


def _plausible(span: str, lowercase: bool, hinted: list[str], not_names: frozenset[str]
               ) -> bool:
    if hinted:
        return any(normal_form(span) == normal_form(h) for h in hinted)
    stop = NOT_NAMES | not_names
    content = [w for w in span.split() if w.lower() not in stop]
    if not content:
        return False
    if len(content) >= 2:
        return True
    # one content word ("the cast" is one): a name only when written like one
    word = content[0]
    return word[0].isupper() or word[0].isdigit() or (lowercase and len(word) > 3)
