"""The English the front half knows, in one place: stop words, question words, counting cues,
comparatives and superlatives with their comparator, and verb and noun inflection.

General English only. A dataset's own words (words its questions use that name no entity, near
synonyms of its schema's nouns) live in `koplc.kopl.datasets` as an `ExtraWords`, and come in
as the `extra` argument only where the KB is that dataset's (`metaqa.lexicon_for(kb)`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from koplc.kopl.types import AmongOp, Comparator


@dataclass(frozen=True, eq=False)
class ExtraWords:
    """A dataset's additions to English for its own KB: words that never name an entity alone
    in its questions, and near synonyms of its schema's nouns that single-word embeddings keep
    apart."""

    not_names: frozenset[str] = frozenset()
    near: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def near_synonyms(self, *words: str) -> tuple[str, ...]:
        """The near synonyms of all of `words` (a word, its singular, its base form).

        >>> ExtraWords(near={"tags": ("ticket",), "tag": ("topic",)}).near_synonyms("tags", "tag")
        ('ticket', 'topic')
        """
        return tuple(dict.fromkeys(s for word in words for s in self.near.get(word, ())))

    def with_relatives(self, relatives: Mapping[str, tuple[str, ...]]) -> ExtraWords:
        """These words with a KB's general-English `relatives` of its schema words
        (koplc.kopl.relatives) among the near synonyms.

        >>> ExtraWords(near={"star": ("act",)}).with_relatives({"star": ("lead",)}).near
        {'star': ('act', 'lead')}
        """
        near = {w: tuple(dict.fromkeys((*self.near.get(w, ()), *kin)))
                for w, kin in relatives.items()}
        return ExtraWords(self.not_names, {**self.near, **near})


NO_EXTRA = ExtraWords()
"""No additions: the lexicon of any KB that is not a known dataset's."""


# Function words.

ARTICLES = frozenset({"the", "a", "an"})
PREPOSITIONS = frozenset({"by", "in", "of", "to", "from", "at", "on", "with", "for", "into"})
AUXILIARIES = frozenset({"is", "are", "was", "were", "do", "does", "did", "can", "could",
                         "will", "would", "has", "have", "had"})
HAVE = frozenset({"has", "have", "had"})

# The words every stop list below leaves out.
_LINKING = ARTICLES | {"of", "in", "by", "to", "for", "on", "with", "as", "and", "is"}

NAME_STOP_WORDS = _LINKING | {"at", "has"}
"""Function words inside a KB name ("place of birth"): left out when two names' content words
are compared."""

CONTENT_STOP_WORDS = _LINKING | {
    "are", "was", "were", "be", "been", "do", "does", "did", "or", "what", "which", "whom",
    "whose", "how", "that", "this", "these", "those", "there", "it", "its", "their", "his",
    "her", "s"}
"""Words of a question or a reading that name nothing ("s" is what a possessive leaves when
the text is split into letters). "who", "when" and "where" are not among them: they ask for a
type."""

NOT_NAMES = _LINKING | {
    "are", "was", "were", "be", "do", "does", "did", "or", "what", "which", "who", "whom",
    "when", "where", "how", "many", "that", "there", "it", "its", "their", "me", "from", "same",
    "also", "show", "list", "tell", "about", "give", "name", "names", "people", "person", "ones"}
"""Words that never make a name on their own in a question's span: function words, question
words, requests ("show", "list", "tell me") and nouns any question may use ("people", "ones")."""


# Question words.

WHAT = frozenset({"what", "which"})
"""The question words followed by the words for what they ask ("which river")."""

WH_ANSWER_TYPES = {"who": "person", "whom": "person", "whose": "person", "when": "year date",
                   "where": "place"}
"""The type of answer the other question words ask for, in words."""

WH_KINDS = {"person": frozenset({"person.n.01", "social_group.n.01"}),
            "place": frozenset({"location.n.01", "natural_object.n.01", "structure.n.01",
                                "facility.n.01"}),
            "year date": frozenset({"time_period.n.01", "time_unit.n.01"})}
"""The WordNet noun senses whose kinds `WH_ANSWER_TYPES` asks for: who asks for a person or a
social group (a company, a team; not a species), where for a location, a natural object (a
river, a planet), a building or a facility (an airport), when for a time period or unit."""

RELATEDNESS = ("related", "relation", "relationship", "connected")
"""Words that ask how two things are related; any form of their verbs asks too
(`asks_relatedness`: "relate", "connects")."""


def asks_relatedness(text: str) -> bool:
    """Whether the text says a `RELATEDNESS` word or another form of its verb (lemminflect's
    verb lemma: "relate", "relates", "connect" as "related" and "connected" are).

    >>> asks_relatedness("How does Homo relate to Primates?"), asks_relatedness("Who won?")
    (True, False)
    """
    from lemminflect import getAllLemmas

    def verbs(word: str) -> set[str]:
        return {word, *getAllLemmas(word, upos="VERB").get("VERB", ())}

    wanted = {lemma for word in RELATEDNESS for lemma in verbs(word)}
    return any(verbs(w) & wanted for w in re.findall(r"[a-z]+", text.lower()))

SAMENESS = ("same", "share", "common")
"""Words that ask for what else shares a fact with an entity ("the same director as ENT",
"share a homeworld with ENT", "in common"): a relation followed there and straight back; any
form of the verb says it too (`says_sameness`: "shared", "shares")."""


def says_sameness(text: str) -> bool:
    """Whether the text says a `SAMENESS` word or another form of its verb (lemminflect).

    >>> says_sameness("Who shares a homeworld with Yoda?"), says_sameness("Who is Yoda?")
    (True, False)
    """
    from lemminflect import getAllLemmas

    return any({w, *getAllLemmas(w, upos="VERB").get("VERB", ())} & set(SAMENESS)
               for w in re.findall(r"[a-z]+", text.lower()))

_YES_NO = re.compile(r"^\W*(?:is|are|was|were|does|do|did|has|have|had|can)\b", re.IGNORECASE)
_HOW_MANY = re.compile(r"\bhow\s+many\b|\b(?:the|what)\s+number\s+of\b|^\W*count\b(?!\s+of\b)",
                       re.IGNORECASE)


_REQUEST = re.compile(r"^\W*(?:can|could|would|will)\s+you\b", re.IGNORECASE)


def is_yes_no(question: str) -> bool:
    """Whether the question opens with an auxiliary verb, as a yes/no question does, and is no
    request put as one ("Can you name ...?" asks for names) nor an alternative question
    ("Is it red or blue?" asks which).

    >>> [is_yes_no(q) for q in ("Is Iron heavier than Gold?", "Which is heavier?",
    ...                         "Can you name the noble gases?", "Is its parity odd or even?")]
    [True, False, False, False]
    """
    return (_YES_NO.match(question) is not None and _REQUEST.match(question) is None
            and not alternatives(question))


_OR = re.compile(r"([\w'-]+)\s+or\s+([\w'-]+)", re.IGNORECASE)


def alternatives(question: str) -> tuple[str, ...]:
    """The words on either side of "or" in a question that opens with an auxiliary verb: the
    options an alternative question offers, one of which answers it; () for any other.

    >>> alternatives("Is the spin of oxygen-17 of positive or negative parity?")
    ('positive', 'negative')
    >>> alternatives("Which is older, A or B?"), alternatives("Is it red?")
    ((), ())
    """
    found = _OR.search(question) if _YES_NO.match(question) else None
    return found.groups() if found else ()


# A question that opens with "which" or "what".
WHICH_QUESTION = re.compile(r"\W*(?:which|what)\b", re.IGNORECASE)

_ASKED_NOUN = re.compile(r"\b(?:which|what|how\s+many|every|all|each)\s+(?:of\s+the\s+)?"
                         r"((?:[a-z]+-)*[a-z]+(?:\s+(?:[a-z]+-)*[a-z]+){0,3})", re.IGNORECASE)


_FUNCTION_WORDS = AUXILIARIES | ARTICLES | CONTENT_STOP_WORDS | HAVE

# A request that opens with a verb in the imperative ("Name the Rodians", "List every plane",
# "Tell me where X was born", "Give us all of the bakers"): the verb, then the word it asks for.
_IMPERATIVE = re.compile(r"\W*([a-z]+)\s+(?:(?:me|us)\s+)?(?:(?:all|every|each|some|any)\s+)?"
                         r"(?:of\s+)?(?:(?:the|those|these)\s+)?([a-z]+)(?:\s+([a-z]+))?",
                         re.IGNORECASE)


# "What is the lightest rodent", "who's the oldest baker": the superlative, then the noun.
_PICKED_NOUN = re.compile(r"\b(?:which|what|who)(?:['’]s|\s+(?:is|are|was|were))\s+the\s+"
                          r"(?:(?:most|least)\s+[a-z]+|([a-z]+))\s+([a-z]+)", re.IGNORECASE)


def asked_noun(question: str) -> str | None:
    """The noun a question asks for, in the singular: the word right after "which", "what",
    "how many", "every", "all" or "each" when it is no function word, else the type that
    "who", "where" or "when" asks for (`WH_ANSWER_TYPES`); None when it names none.

    A question that asks for one of a kind by a superlative names the kind after it ("What's
    the heaviest animal?", "Who was the youngest contestant?"). A word that WordNet uses more as
    an adjective or a verb before a noun modifies it: the noun is asked for ("which imported
    cars", "how many different brands"); two words WordNet knows as one noun are one ("which
    sports car").

    >>> [asked_noun(q) for q in ("Which rivers flow north?", "Name every nuclide there is",
    ...     "Who discovered it?", "What is the capital?", "Is it red?",
    ...     "Who was the youngest contestant ever?", "Which imported cars have 4WD?",
    ...     "Which sports car is the cheapest?")]
    ['river', 'nuclide', 'person', None, None, 'contestant', 'car', 'sports car']

    A phrase set before the question word by a comma only narrows what is asked ("Among all
    the runners-up, who won the most?" asks for a person; "Of the droids, which is tallest?").

    >>> asked_noun("Among all the runners-up, who won the most?")
    'person'
    """
    question = past_opening_phrase(question)
    word = _asked_word(question, picked_first=False)
    if word:
        return singular(word)
    asked = request(question)
    if asked is not None and asked.group(2).lower() not in WH_ANSWER_TYPES:
        word = _head(asked.group(2).lower(), (asked.group(3) or "").lower())
        return None if word in _FUNCTION_WORDS else singular(word)
    opening = (asked.group(2).lower() if asked is not None else
               next(iter(re.findall(r"\W*([a-z]+)\b", question.lower())[:1]), None))
    if opening in WH_ANSWER_TYPES and opening != "whose":
        return WH_ANSWER_TYPES[opening]
    return None


def asked_part(question: str) -> str:
    """The question from its question word on where it opens with a request ("Tell me where
    Bossk was born": "where Bossk was born"); the question itself otherwise.

    >>> asked_part("Tell me where Bossk was born."), asked_part("Where was Bossk born?")
    ('where Bossk was born.', 'Where was Bossk born?')
    >>> asked_part("In series 3, who won?")
    'who won?'
    """
    question = past_opening_phrase(question)
    asked = request(question)
    if asked is None or asked.group(2).lower() not in (*WH_ANSWER_TYPES, "which", "what", "how"):
        return question
    return question[asked.start(2):]


def past_opening_phrase(question: str) -> str:
    """The question from its question word on where a prepositional phrase and a comma come
    before it ("Among all the runners-up, who won?": "who won?"); the question itself
    otherwise.

    >>> past_opening_phrase("Of the droids, which is the tallest?")
    'which is the tallest?'
    >>> past_opening_phrase("Who, of the droids, is the tallest?")
    'Who, of the droids, is the tallest?'
    """
    found = _OPENING_PHRASE.match(question)
    return question[found.end():] if found else question


# A prepositional phrase that opens a question, set off by a comma before its question word.
_OPENING_PHRASE = re.compile(
    r"\s*(?:among(?:st)?|of|in|for|from|at|on|during|after|before|across|within|between|"
    r"out of)\b[^,?]*,\s*(?=(?:who|whom|whose|what|which|when|where|how)\b)", re.IGNORECASE)


def request(question: str) -> re.Match | None:
    """The `_IMPERATIVE` match of a question that opens with a verb in the imperative (a word
    WordNet has as a verb, in its base form, and no auxiliary or question word: "Name", "List",
    "Tell"), where the question asks with no which, what, how many, every, all or each."""
    from koplc.kopl.relatives import base_verb  # WordNet, read once needed

    found = _IMPERATIVE.match(question)
    verb = found and found.group(1).lower()
    if not verb or verb in _FUNCTION_WORDS or verb in WH_ANSWER_TYPES or not base_verb(verb):
        return None
    return found


def asks_for_one(question: str) -> bool:
    """Whether a question that picks by a superlative (the caller's test) asks for one thing:
    the noun it picks is written in the singular, in a word that has a plural ("the most
    expensive car", "which minivan is the heaviest"; not "the heaviest cars", nor "which
    species is largest").

    >>> [asks_for_one(q) for q in ("What's the most expensive car?",
    ...     "Which cars are the cheapest?", "Which species is largest?", "Which is the cheapest?")]
    [True, False, False, False]
    """
    noun = _asked_word(question, picked_first=True)
    return noun is not None and singular(noun) == noun and plural(noun) != noun


def _asked_word(question: str, picked_first: bool) -> str | None:
    """The noun after a wh-word ("which imported cars": "cars", by `_head`) or the noun a
    superlative picks ("what is the heaviest animal": "animal"), the one or the other first;
    neither where it is a function word ("which is the cheapest"); None without either."""
    found = _ASKED_NOUN.search(question)
    picked = _PICKED_NOUN.search(question)
    after = _after_modifiers(found.group(1).lower().split()) if found else None
    chosen = (picked.group(2).lower() if picked and (
        picked.group(1) is None or picked.group(1).lower() in _PICKING) else None)
    words = (chosen, after) if picked_first else (after, chosen)
    return next((w for w in words if w and w not in _FUNCTION_WORDS), None)


def _after_modifiers(said: list[str]) -> str:
    """The noun a wh-word's words name (`_head`), past up to two words before it that WordNet
    has only as an adverb ("naturally") or, hyphenated, not as a noun ("meat-eating",
    "twin-engined"): these modify what follows them.

    >>> [_after_modifiers(q.split()) for q in ("meat-eating animals weigh", "twin-engined "
    ...     "aircraft seat", "naturally present isotopes undergo", "rivers flow north")]
    ['animals', 'aircraft', 'isotopes', 'rivers']
    """
    from koplc.kopl.relatives import premodifier  # WordNet, read once needed

    start = 0
    while start < min(2, len(said) - 1) and premodifier(said[start]):
        start += 1
    return _head(said[start], said[start + 1] if start + 1 < len(said) else "")


def _head(word: str, following: str) -> str:
    """The noun a wh-word's `word` and the word `following` it name (`asked_noun`)."""
    from koplc.kopl.relatives import compound_noun, modifies  # WordNet, read once needed

    if not following or following in _FUNCTION_WORDS:
        return word
    if modifies(word, following):
        return following
    return f"{word} {following}" if compound_noun(word, following) else word


def asks_how_many(question: str) -> bool:
    """Whether the question asks for a count: "how many" anywhere, "the number of" (or "what
    number of"), or "count" as the verb it opens with.

    >>> [asks_how_many(q) for q in ("How many rivers flow through Paris?",
    ...     "Tell me how many elements are metals", "What is the number of noble gases?",
    ...     "Count the halogens", "Count of Monte Cristo author", "Which river is longest?")]
    [True, True, True, True, False, False]
    """
    return _HOW_MANY.search(question) is not None


# Comparatives and superlatives.

_MORE = ("greater", "more", "larger", "bigger", "higher", "taller", "longer", "heavier", "wider",
         "deeper")
_LESS = ("less", "lesser", "fewer", "smaller", "lower", "shorter", "lighter")
_LATER, _EARLIER = ("later", "newer"), ("earlier",)

COMPARATIVES: dict[Comparator, tuple[str, ...]] = {
    Comparator.GT: (*_MORE, *_LATER, "above", "over", "after", "exceeds", "exceed", "exceeding"),
    Comparator.LT: (*_LESS, *_EARLIER, "below", "under", "before", "prior"),
}
"""Single words that put a value above (`>`) or below (`<`) another."""

COMPARATIVE_ADJECTIVES: dict[Comparator, tuple[str, ...]] = {
    Comparator.GT: _MORE, Comparator.LT: _LESS}
"""The comparatives that say which of two has more or less of a quantity."""

TIME_WORDS = frozenset({"after", "before", "later", "earlier", "newer", "since", "until",
                        "prior"})
"""Words that compare in time: a value said with them is a date or a year."""

COMPARATOR_PHRASES: dict[Comparator, tuple[str, ...]] = {
    Comparator.GT: (*COMPARATIVES[Comparator.GT], *(f"{w} than" for w in (*_MORE, *_LATER)),
                    "more recent than", "is greater than", "is more than"),
    Comparator.LT: (*COMPARATIVES[Comparator.LT], *(f"{w} than" for w in (*_LESS, *_EARLIER)),
                    "prior to", "is less than"),
    Comparator.GE: ("at least", "no less than", "not less than", "no fewer than",
                    "greater than or equal to", "greater than or equal", "greater or equal",
                    "more than or equal to", "on or after", "or more", "or later", "not before",
                    "since"),
    Comparator.LE: ("at most", "no more than", "not more than", "no later than",
                    "less than or equal to", "less than or equal", "less or equal",
                    "on or before", "or less", "or fewer", "or earlier", "up to", "not after",
                    "until"),
    Comparator.EQ: ("equal", "equals", "exactly", "is", "same", "in", "on", "equal to",
                    "is equal to", "same as", "the same as"),
    Comparator.NE: ("not", "unequal", "not equal", "not equal to", "is not", "isn't",
                    "different", "different from", "other than"),
}
"""Every word or phrase that says a comparator."""

SUPERLATIVES: dict[AmongOp, tuple[str, ...]] = {
    AmongOp.LARGEST: ("largest", "biggest", "greatest", "highest", "most", "tallest", "longest",
                      "heaviest", "widest", "deepest", "maximum", "latest", "newest"),
    AmongOp.SMALLEST: ("smallest", "least", "lowest", "fewest", "shortest", "lightest",
                       "minimum", "earliest"),
}
"""Single words that pick the largest or the smallest of a set."""

BY_ATTRIBUTE = frozenset({"older", "younger", "oldest", "youngest"})
"""Words whose comparator depends on the attribute: "oldest" is the earliest birth date but
the largest age. The tables read them as dates; a reader that does not know the key leaves
them alone."""

_PICKING = frozenset(w for words in SUPERLATIVES.values() for w in words) | BY_ATTRIBUTE

AS_AMOUNTS: dict[Comparator, tuple[str, ...]] = {
    Comparator.GT: ("older", "oldest"), Comparator.LT: ("younger", "youngest")}
"""`BY_ATTRIBUTE`'s words read of an amount (an age): what is older has more of it."""

AS_TIMES: dict[Comparator, tuple[str, ...]] = {
    Comparator.LT: ("older", "oldest", "earlier", "earliest", "first"),
    Comparator.GT: ("younger", "youngest", "newer", "newest", "later", "latest", "recent",
                    "recently")}
"""Words that put one date or year before (`<`) or after (`>`) another: what is older came
earlier (`BY_ATTRIBUTE`'s words read of a date)."""

COMPARATOR_READINGS: dict[Comparator, str] = {
    Comparator.EQ: "", Comparator.NE: "not ", Comparator.LT: "less than ",
    Comparator.GT: "greater than ", Comparator.LE: "at most ", Comparator.GE: "at least "}
"""How a comparator reads before a value."""

TIME_COMPARATOR_READINGS: dict[Comparator, str] = {
    Comparator.EQ: "in ", Comparator.NE: "not in ", Comparator.LT: "before ",
    Comparator.GT: "after ", Comparator.LE: "in or before ", Comparator.GE: "in or after "}
"""How a comparator reads before a date or a year."""


# Inflection.

def base_form(word: str) -> str | None:
    """The base form of a verb's past or past participle (lemminflect); None when the word is
    no such form (or is the base already).

    >>> base_form("wrote"), base_form("directed"), base_form("starred"), base_form("run")
    ('write', 'direct', 'star', None)
    """
    return _base_of(word, ("VBD", "VBN"))


@lru_cache(maxsize=4096)
def _base_of(word: str, tags: tuple[str, ...]) -> str | None:
    """The verb whose form of one of the Penn `tags` `word` is (lemminflect), else None."""
    from lemminflect import getAllInflections, getLemma

    if not word.isalpha() or not word.islower():
        return None
    for lemma in getLemma(word, upos="VERB"):
        forms = getAllInflections(lemma, upos="VERB")
        if lemma != word and any(word in forms.get(tag, ()) for tag in tags):
            return lemma
    return None


def active_base(word: str) -> str | None:
    """The base form of a verb's third person present or simple past (lemminflect), the forms
    a verb takes with its subject ("plays", "won"); None for any other word, a past participle
    alone included ("born").

    >>> active_base("plays"), active_base("won"), active_base("born"), active_base("play")
    ('play', 'win', None, None)
    """
    return _base_of(word, ("VBZ", "VBD"))


def simple_past(participle: str) -> str | None:
    """The simple past of a verb's past participle ("written": wrote, "discovered":
    discovered; lemminflect); None when the word is no participle.

    >>> simple_past("written"), simple_past("discovered"), simple_past("made"), simple_past("born")
    ('wrote', 'discovered', 'made', 'bore')
    """
    from lemminflect import getAllInflections

    lemma = base_form(participle)
    forms = getAllInflections(lemma, upos="VERB") if lemma else {}
    if participle not in forms.get("VBN", forms.get("VBD", ())):
        return None
    return forms.get("VBD", (participle,))[0]


def participle(verb: str) -> str | None:
    """The past participle of a verb in its base form (lemminflect); None when it has none.

    >>> participle("release"), participle("build"), participle("write")
    ('released', 'built', 'written')
    """
    from lemminflect import getInflection

    forms = getInflection(verb, tag="VBN")
    return forms[0] if forms else None


def adjective_base(word: str) -> str | None:
    """The base of a comparative or superlative adjective (lemminflect's adjective lemma); None
    when the word is no such form.

    >>> adjective_base("youngest"), adjective_base("heavier"), adjective_base("young")
    ('young', 'heavy', None)
    """
    from lemminflect import getLemma

    if not word.endswith(("er", "est")):
        return None
    lemmas = getLemma(word, upos="ADJ")
    return lemmas[0] if lemmas and lemmas[0] != word else None


def graded(text: str) -> tuple[tuple[str, bool], ...]:
    """The comparative and superlative adjectives of `text` whose direction no table here
    knows ("cheaper", "fastest", "worst"; not "larger", "oldest"), each with whether it is a
    superlative: a comparative or superlative form of an adjective (lemminflect) that WordNet
    uses more as an adjective than as a noun ("number", "water": nouns).

    >>> graded("Which is cheaper, the fastest car, the worst or the larger number?")
    (('cheaper', False), ('fastest', True), ('worst', True))
    """
    known = {w for words in (*COMPARATIVES.values(), *SUPERLATIVES.values()) for w in words}
    found: list[tuple[str, bool]] = []
    for word in re.findall(r"[a-z]+", text.lower()):
        if word in known | BY_ATTRIBUTE | TIME_WORDS or word in dict(found):
            continue
        tag = degree(word)
        if tag is not None:
            found.append((word, tag == "JJS"))
    return tuple(found)


@lru_cache(maxsize=4096)
def degree(word: str) -> str | None:
    """"JJR" when `word` is the comparative form of an adjective, "JJS" when the superlative
    (lemminflect), of a word that WordNet uses more as an adjective than as a noun; else None.

    >>> [degree(w) for w in ("smaller", "cheapest", "worse", "further", "small", "number",
    ...                      "sports")]
    ['JJR', 'JJS', 'JJR', 'JJR', None, None, None]
    """
    from lemminflect import getAllInflections, getAllLemmas

    from koplc.kopl.relatives import mostly_adjective

    word = word.lower()
    # every adjective it may be a form of: "further" is an adjective itself and a form of far
    for base in getAllLemmas(word, upos="ADJ").get("ADJ", ()):
        forms = getAllInflections(base, upos="ADJ") if base != word else {}
        for tag in ("JJR", "JJS"):
            if word in forms.get(tag, ()) and mostly_adjective(word):
                return tag
    return None


def singular(noun: str) -> str:
    """A noun phrase with its last word in the singular (lemminflect's noun lemma), its case
    kept; the phrase itself when that word is no plural.

    >>> singular("Gungans"), singular("chemical elements"), singular("species"), singular("data")
    ('Gungan', 'chemical element', 'species', 'data')
    >>> singular("genera"), singular("mice"), singular("women"), singular("cattle")
    ('genus', 'mouse', 'woman', 'cattle')
    """
    from lemminflect import getLemma

    head, space, last = noun.rpartition(" ")
    lemmas = getLemma(last, upos="NOUN") if last[-1:].lower() == "s" else _irregular(last)
    return f"{head}{space}{lemmas[0]}" if lemmas and lemmas[0] else noun


@lru_cache(maxsize=65536)
def _irregular(word: str) -> tuple[str, ...]:
    """The singular of a plural not ending in s ("genera": genus, "mice": mouse), by
    lemminflect; none for a word that is no such plural, or that WordNet has as a noun of its
    own ("data")."""
    from lemminflect import getInflection, getLemma

    from koplc.kopl.relatives import knows_as_noun

    lemma = (getLemma(word, upos="NOUN") or (word,))[0]
    if lemma == word or word not in getInflection(lemma, tag="NNS") or knows_as_noun(word):
        return ()
    return (lemma,)


def plural(noun: str) -> str:
    """A noun phrase with its last word in the plural: lemminflect's first plural form (the
    part after a hyphen inflected), "people" for "person"; the phrase itself when lemminflect
    knows no plural.

    >>> [plural(n) for n in ("river", "person", "chemical element", "discovery", "class",
    ...                      "species", "nucleus", "half-life", "child")]
    ['rivers', 'people', 'chemical elements', 'discoveries', 'classes', 'species', 'nuclei', 'half-lives', 'children']
    """
    from lemminflect import getInflection

    head, space, last = noun.rpartition(" ")
    stem, hyphen, word = last.rpartition("-")
    if word.lower() == "person":  # lemminflect ranks the rarer "persons" first
        forms: tuple[str, ...] = (word[0] + "eople",)
    else:
        forms = getInflection(word, tag="NNS") if word else ()
    return f"{head}{space}{stem}{hyphen}{forms[0]}" if forms else noun
