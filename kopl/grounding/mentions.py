"""Entity mentions: a question's KB entities and concepts, by looking up every n-gram span of
the question by its spellings in the KB's names; no external NER. [Brackets] around a name
are a hint when present, never required. The LLM and GNN front ends both link questions with
it.

One key serves both sides: a KB name and a question's span meet when their `spellings` (normal
forms: case, accents, underscores, hyphens and dots folded) meet, or, for a span written as an
identifier (``o_brien``, ``hal9000``), their `joined_spellings`. A span may end in a possessive
(``Grace_Hopper's``, ``Grace Hopper 's``), which is not part of the name.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from koplc.kopl.grounding.name_forms import (
    joined_spellings,
    spellings,
    written_as_identifier,
)
from koplc.kopl.kb.memo import per_kb
from koplc.kopl.lexicon import (
    ARTICLES,
    NO_EXTRA,
    NOT_NAMES,
    ExtraWords,
    base_form,
    singular,
)
from koplc.kopl.naming import name_head, name_phrase, name_words
from koplc.kopl.quantities_in_text import numbered
from koplc.kopl.relatives import agent_nouns, names_one, other_names, schema_names

_BRACKETS = re.compile(r"\[([^\]]+)\]")
_POSSESSIVE = re.compile(r"\s*['’]s$")
_NAME_WORDS = re.compile(r"[\s_]+")
LONGEST = 10


@dataclass(frozen=True)
class Linked:
    """A question's KB entities (names as the KB spells them) and concepts, with the spans."""

    question: str
    entities: tuple[str, ...]
    concepts: tuple[str, ...]
    spans: tuple[tuple[int, int], ...]

    def masked(self) -> str:
        """The question with each entity span replaced by ENT (for similarity search); a span
        that the question puts in parentheses keeps them: "(ENT)" glosses what stands before
        it."""
        text, offset = self.question, 0
        for start, end in self.spans:
            said = self.question[start:end]
            mask = "(ENT)" if said.startswith("(") and said.endswith(")") else "ENT"
            text = text[:start + offset] + mask + text[end + offset:]
            offset += len(mask) - (end - start)
        return text


def plain(question: str) -> str:
    """The question without [brackets] around names."""
    return _BRACKETS.sub(r"\1", question).strip()


@dataclass(frozen=True)
class NameTable:
    """A KB's entity names by their spellings, and by their joined spellings ("Kevin Costner"
    the person and "kevin costner" the tag share their keys); `leading`: by the spellings of
    their leading words, for names that are the only one to start so ("Delta" for "Delta Air
    Lines Inc.")); `trailing`: by the spellings of their trailing words, for names that are the
    only one to end so ("Integra" for "Acura_Integra", a maker's model called by its own name)."""

    spelled: dict[str, list[str]]
    joined: dict[str, list[str]]
    leading: dict[str, list[str]]
    trailing: dict[str, list[str]] = field(default_factory=dict)
    shortened: dict[str, list[str]] = field(default_factory=dict)
    """By the words of a name of four or more words (hyphens split) with one inner word left
    out, for `shortened_names`."""
    inner: dict[str, list[str]] = field(default_factory=dict)
    """By each inner word of a name of three or more words, for `held_by` ("Atlanta" for
    "Hartsfield Jackson Atlanta Intl"), which links only a word WordNet knows as a proper name
    (`relatives.names_one`: not "FC" of "1. FC Köln")."""
    rests: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    """By the words after a name's first: (that first word, the name), for `clipped`."""

    def shortened_names(self, span: str) -> list[str]:
        """The KB names that the span writes with one of their inner words left out, the span
        saying three or more of them ("beta-delayed alpha emission" for "beta-minus delayed
        alpha emission" and "beta-plus delayed alpha emission")."""
        key = " ".join(_word_list(span))
        if key.count(" ") < 2 or key in self.spelled:
            return []
        return sorted(set(self.shortened.get(key, ())))

    def led_by(self, span: str) -> str | None:
        """The one KB name that starts with the span's words and is no name itself, if one."""
        return self._only(self.leading, span)

    def ended_by(self, span: str) -> str | None:
        """The one KB name that ends with the span's words and is no name itself, if one."""
        return self._only(self.trailing, span)

    def held_by(self, word: str) -> str | None:
        """The one KB name that has the word inside it (neither first nor last) and is no
        name itself, if one."""
        return self._only(self.inner, word)

    def clipped(self, span: str) -> str | None:
        """The one KB name that the span writes with its first word clipped, the rest the
        same ("Chevy Caprice" for "Chevrolet Caprice", "Chevy" for "Chevrolet"): the span's
        first word, of four or more letters, is the start of the name's longer one but for its
        own last letter."""
        words = _word_list(span)
        if not words or len(words[0]) < 4 or " ".join(words) in self.spelled:
            return None
        first, stem = words[0], words[0][:-1]
        found = {name for word, name in self.rests.get(" ".join(words[1:]), ())
                 if len(word) > len(first) and word.startswith(stem)}
        return found.pop() if len(found) == 1 else None

    def _only(self, index: dict[str, list[str]], span: str) -> str | None:
        for key in spellings(span):
            names = index.get(key, [])
            if len(set(names)) == 1 and key not in self.spelled:
                return names[0]
        return None

    def names(self, span: str) -> list[str] | None:
        """The KB names the span may be written for, None when none."""
        for key in spellings(span):
            if key in self.spelled:
                return self.spelled[key]
        if written_as_identifier(span):
            for key in joined_spellings(span):
                if key in self.joined:
                    return self.joined[key]
        return None


@per_kb()
def name_table(kb) -> NameTable:
    """The KB's entity names by their keys, built once per KB."""
    spelled: dict[str, list[str]] = {}
    joined: dict[str, list[str]] = {}
    leading: dict[str, list[str]] = {}
    trailing: dict[str, list[str]] = {}
    shortened: dict[str, list[str]] = {}
    inner: dict[str, list[str]] = {}
    rests: dict[str, list[tuple[str, str]]] = {}
    ids: dict[str, list[str]] = {}  # by the source's own identifiers ("Q1064", "baker_3_danny")
    for node in range(kb.n_concepts, len(kb.names)):
        name, source = kb.names[node], _local(kb.ids[node]) if hasattr(kb, "ids") else ""
        if name and source and source != name:
            for key in spellings(source):
                ids.setdefault(key, []).append(name)
    for name in kb.names[kb.n_concepts:]:
        if name:
            for key in spellings(name):
                spelled.setdefault(key, []).append(name)
                joined.setdefault(key.replace(" ", ""), []).append(name)
                words = key.split()
                for size in range(1, len(words)):
                    leading.setdefault(" ".join(words[:size]), []).append(name)
                    trailing.setdefault(" ".join(words[-size:]), []).append(name)
                for word in set(words[1:-1]):
                    inner.setdefault(word, []).append(name)
                if words:
                    rests.setdefault(" ".join(words[1:]), []).append((words[0], name))
            said = _word_list(name)
            for i in range(1, len(said) - 1) if len(said) >= 4 else ():
                shortened.setdefault(" ".join(said[:i] + said[i + 1:]), []).append(name)
    for key, named in [*ids.items(), *_other_names(kb).items()]:  # a name spelt so wins
        if key not in spelled:
            spelled[key] = named
            joined.setdefault(key.replace(" ", ""), []).extend(named)
    return NameTable(spelled, joined, leading, trailing, shortened,
                     {w: sorted(set(names)) for w, names in inner.items()}, rests)


def _other_names(kb) -> dict[str, list[str]]:
    """The entity names by the spellings of the other names WordNet gives what they mean
    (`relatives.other_names`: "house cat" for Domestic cat; of a word with a number after it,
    its word's: "sulphur-27" for sulfur-27), but for a word of the schema (a KB of films with
    one called "Movie" is not named by every "film")."""
    schema = {key for name in schema_names(kb) for key in spellings(name_phrase(name) or name)}
    found: dict[str, list[str]] = {}
    for name in dict.fromkeys(kb.names[kb.n_concepts:]):
        # a word with a number after it is named by the word's other names ("sulphur-27")
        numbered = re.fullmatch(r"([^\W\d_]{3,})([- ]\d+\w*)", name or "")
        word, rest = numbered.groups() if numbered else (name, "")
        for other in other_names(word) if word else ():
            for key in spellings(other + rest):
                if key not in schema:
                    found.setdefault(key, []).append(name)
    return found


def _local(identifier: str) -> str:
    """An identifier's last part, after any IRI scheme's separators ("urn:kb:e:Yoda": Yoda)."""
    return re.split(r"[/#:]", identifier.rstrip("/#:"))[-1]


def _word_list(text: str) -> list[str]:
    """The text's words in lower case, hyphenated words split ("beta-minus": beta, minus)."""
    return re.findall(r"[^\W_]+", text.lower())


def link(question: str, kb, extra: ExtraWords = NO_EXTRA) -> Linked:
    """The entities and concepts of `kb` that the question names, longest spans first; words
    of `extra.not_names` (a dataset's, for its own KB) name nothing on their own."""
    table = name_table(kb)
    text = plain(question)
    hinted = [m.group(1) for m in _BRACKETS.finditer(question)]
    words = [(m.start(), m.end()) for m in re.finditer(r"[^\s?!.]+", text)]
    lowercase = not any(text[s].isupper() for s, _ in words[1:])
    found: list[tuple[int, int, str]] = []
    shortened: list[tuple[int, int, list[str]]] = []
    taken: set[int] = set()
    for size in range(min(LONGEST, len(words)), 0, -1):
        for i in range(len(words) - size + 1):
            if taken & set(range(i, i + size)):
                continue
            start, end = words[i][0], words[i + size - 1][1]
            span = text[start:end].strip(",;:'\"’")
            names = table.names(span)
            if names is None and _POSSESSIVE.search(span):  # "Marie Curie's discoveries"
                span = _POSSESSIVE.sub("", span)
                names = table.names(span)
            renamed = numbered(span) if names is None else None
            if renamed is not None:  # "series one", "the first series"
                names = table.names(renamed)
            group = False
            if names is None and singular(span) != span:  # "the Gungans": a name, plural
                names = table.names(singular(span))
                group = (names is not None and not hinted and names[0][:1].isupper()
                         and _group_word(span, kb, extra.not_names))
            if names is None and span[:1].isupper() and not _named_on(text, words, i + size):
                led = table.led_by(span)  # "Delta" for "Delta Air Lines Inc."
                names = [led] if led is not None else None
            if (names is None and span[:1].isupper() and i > 0
                    and not text[words[i - 1][0]].isupper()):
                ended = table.ended_by(span)  # "the Integra" for "Acura_Integra"
                names = [ended] if ended is not None else None
            if (names is None and size == 1 and span[:1].isupper() and i > 0
                    and not text[words[i - 1][0]].isupper()
                    and not _named_on(text, words, i + 1) and names_one(span)):
                held = table.held_by(span)  # "Atlanta" for "Hartsfield Jackson Atlanta Intl"
                names = [held] if held is not None else None
            if names is None and span[:1].isupper() and not _named_on(text, words, i + size):
                clipped = table.clipped(span) or table.clipped(singular(span))
                names = [clipped] if clipped is not None else None  # "the Chevy Caprice"
            if names is None and (short := table.shortened_names(span)):
                shortened.append((start, start + len(span), short))  # resolved after
                continue
            named = (i > 0 and text[slice(*words[i - 1])].lower() in ARTICLES
                     and names is not None and names[0][:1].isupper())
            if names is None or not (group or _plausible(span, lowercase, hinted,
                                                         extra.not_names, named)):
                continue
            name = span if span in names else names[0]  # the spelling the question uses
            end = start + len(span)
            end += name.endswith(".") and text[end:end + 1] == "."  # "Inc." ends the name
            found.append((start, end, name))
            taken |= set(range(i, i + size))
    found = sorted(_resolved(shortened, found, kb))
    said = said_words(text)
    concepts = tuple(c for c in kb.concept_names() if says(said, name_head(c)))
    return Linked(text, tuple(dict.fromkeys(n for _, _, n in found)), concepts,
                  tuple((s, e) for s, e, _ in found))


def _resolved(shortened: list[tuple[int, int, list[str]]], found: list[tuple[int, int, str]],
              kb) -> list[tuple[int, int, str]]:
    """`found` with each shortened span's name, longest spans first, in place of the names
    found inside it: the one name it may be written for, or of several, the one with a fact
    about an entity named outside it ("beryllium-11's decays go through beta-delayed alpha
    emission": the beta-minus one, which beryllium-11 decays by); a span that resolves to no
    one name, or crosses a name found, changes nothing."""
    for start, end, names in shortened:
        outside = [f for f in found if not (start <= f[0] and f[1] <= end)]
        if any(s < end and start < e for s, e, _ in outside):
            continue
        if len(names) > 1:
            near = {kb.names[fact[3]] for _, _, name in outside
                    for node in kb.name_to_nodes.get(name, ()) for fact in kb.relations[node]}
            names = [n for n in names if n in near]
        if len(names) == 1:
            found = [*outside, (start, end, names[0])]
    return found


def _group_word(span: str, kb, not_names: frozenset[str]) -> bool:
    """Whether a plural word that names an entity in the singular (the caller checks that the
    KB writes that name capitalised: "Human", not a tag "film") is that entity even written in
    lower case ("which humans", "the droids": a kind the KB holds as an entity): one word, not
    a word of the KB's schema (whose "movies" is its concept, not a film called Movie)."""
    word = singular(span).lower()
    return (" " not in span and not written_as_identifier(span)
            and word not in NOT_NAMES | not_names and word not in schema_words(kb))


@per_kb()
def schema_words(kb) -> frozenset[str]:
    """The words of the KB's concept, relation and attribute names, lower case and in the
    singular, with a verb's agent nouns ("directed_by": director)."""
    return names_words((*kb.concept_names(), *kb.relation_names, *kb.attr_index))


def names_words(names) -> frozenset[str]:
    """The words of the schema's `names` as `schema_words` gives them."""
    said = {singular(w.lower()) for name in names for w in name_head(name)}
    return frozenset(said | {noun for w in said if (base := base_form(w))
                             for noun in agent_nouns(base)})


def _named_on(text: str, words: list[tuple[int, int]], after: int) -> bool:
    """Whether the name goes on past the span: the next word is capitalised ("Jar Jar Abrams"
    is someone other than "Jar Jar Binks", whose leading words it shares)."""
    return after < len(words) and text[words[after][0]].isupper()


def said_words(text: str) -> str:
    """The text's words in lower case, space-separated and padded, for `says`."""
    return f" {' '.join(name_words(text)).lower()} "


def says(said: str, words: tuple[str, ...]) -> bool:
    """Whether the `said_words` hold these words in a row (a schema name's, a phrase's)."""
    return bool(words) and f" {' '.join(words).lower()} " in said


_HYPHENATED = re.compile(r"[a-z]{2,}(?:-[a-z]{2,})+", re.IGNORECASE)


def plausible_in(question: str) -> Callable[[str, bool], bool]:
    """Whether `link` would take a span of `question` that names an entity for that name, given
    whether an article comes before it (with no dataset's words: a KB a linker reads only
    through its names, as an endpoint's); the question's cues read once."""
    text = plain(question)
    lowercase = not any(w[0].isupper() for w in re.findall(r"[^\s?!.]+", text)[1:])
    hinted = [m.group(1) for m in _BRACKETS.finditer(question)]
    return lambda span, after_article: _plausible(span, lowercase, hinted, frozenset(),
                                                  after_article)


def _plausible(span: str, lowercase: bool, hinted: list[str], not_names: frozenset[str],
               after_article: bool = False) -> bool:
    if hinted:
        return any(set(spellings(span)) & set(spellings(h)) for h in hinted)
    stop = NOT_NAMES | not_names
    content = [w for w in _NAME_WORDS.split(span) if w and w.lower() not in stop]
    if not content:
        return False
    if len(content) >= 2:
        return True
    # one content word ("the cast" is one): a name only when written like one, or a compound
    # of words joined by a hyphen ("turbo-jet"), which no sentence says by chance; in a
    # question not written in title case, a word of more than three letters; after an article,
    # one the KB writes capitalised ("the cow" for Cow; not "the cast", a tag)
    word = content[0]
    return (word[0].isupper() or any(c.isdigit() for c in word) or after_article
            or (lowercase and len(word) > 3)
            or _HYPHENATED.fullmatch(word) is not None)
