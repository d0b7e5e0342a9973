"""Linking a question to the KB, with one rule for "nothing links" that every front end uses.

A question links when it names an entity of the KB, or else a concept: by the mention linker,
or by the concept's name, its last word, or that word's plural ("elements" for "chemical
element"), or, when it says none of these, by meaning: the noun it asks for ("which planes",
"who") near a concept's name in MiniLM's space ("aircraft", "character"). A concept's name is
read as words whatever convention wrote it (`naming.name_head`: ``chemical_element``,
``chemistry.chemical_element``). A question that names no entity but says a proper name links
nothing: it asks about something the KB lacks.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace

from koplc.kopl.answering.meant_values import meant_values
from koplc.kopl.answering.unheld import Unheld, unheld
from koplc.kopl.datasets.metaqa import lexicon_for
from koplc.kopl.errors import KoplcError
from koplc.kopl.frontend import Compiled
from koplc.kopl.grounding.mentions import (
    Linked,
    link,
    name_table,
    said_words,
    says,
    schema_words,
)
from koplc.kopl.ir import FilterConcept, FindAll
from koplc.kopl.kb.access import whole_of
from koplc.kopl.kb.memo import per_kb
from koplc.kopl.lexicon import (
    CONTENT_STOP_WORDS,
    NOT_NAMES,
    WH_ANSWER_TYPES,
    WH_KINDS,
    asked_noun,
    plural,
    singular,
)
from koplc.kopl.naming import name_head
from koplc.kopl.quantities_in_text import numbered
from koplc.kopl.relatives import groups_of, kind_share, knows, whose

NOTHING_LINKS = "nothing found: the question names no entity or concept of the KB"

# The least cosine between the noun a question asks for and a concept's name for the concept to
# count as named. Set on the development KBs' tune halves (tests/fixtures/devkbs): the questions
# that named no entity and no concept word for word meant their concept at 0.41 to 0.84
# ("nuclide" for isotope, "plane" for aircraft), and the one absent question among them reached
# 0.33 ("who manufactured" an unknown plane: person against manufacturer).
MEANT_CONCEPT = 0.37


class NoLink(KoplcError):
    """Nothing in the question names an entity or concept of the KB."""

    default_code = "no-link"


def link_question(question: str, kb) -> Linked:
    """The question's entities and concepts in `kb`; the concepts its words name when the
    mention linker found neither; nothing when it names someone or something by a proper name
    that no entity has (`unknown_name`). A dataset's words that name nothing count only on that
    dataset's KB (`metaqa.lexicon_for`)."""
    linked = group_names(place_names(coded_names(derived_names(
        link(question, kb, lexicon_for(kb)), kb), kb), kb), kb)
    if not linked.entities and (unknown_name(linked.question)
                                or unknown_numbered(linked.question, kb)):
        return replace(linked, concepts=())
    if name_past(linked) is not None or unknown_word(linked, kb) is not None:
        return replace(linked, entities=(), concepts=(), spans=())
    linked = _with_entities(linked, meant_values(linked, kb))
    if not linked.entities and not linked.concepts:
        linked = replace(linked, concepts=tuple(
            n.concept for n in concept_starts(kb, linked.question)))
    if not linked.entities and not linked.concepts:
        linked = replace(linked, concepts=meant_concepts(kb, linked.question))
    return linked


# The most members a concept may have for its members' names to be read as derived from a
# question's words: a concept of values (a diet, a status, an order), not of things; a size.
VALUE_CONCEPT = 50
# The least MiniLM cosine between the word and the name derived from it: a check that the two
# mean alike ("insects", insectivore 0.72), not a threshold set on questions.
DERIVED = 0.6


def derived_names(linked: Linked, kb) -> Linked:
    """`linked` with the entities named by a word of the question their one-word names are
    made from with an ending added ("insects": insectivore, "domestic": domesticated,
    "rodent": Rodentia): a word of five letters or more outside the names linked and not a
    word of the schema, a name of a member of a concept of at most `VALUE_CONCEPT` members,
    and the two near in meaning (`DERIVED`)."""
    found = []
    for m, stem in _unlinked_words(linked, kb, r"[a-z]{5,}"):
        if m.group() in NOT_NAMES:
            continue
        names = _value_names(kb).get(stem[:5], ())
        made = [n for n in names if n.lower().startswith(stem) and len(n) >= len(stem) + 2]
        if len(made) == 1 and made[0] not in linked.entities:
            found.append((m.start(), m.end(), made[0]))
    if not found:
        return linked
    # Imported here: MiniLM (and torch) load only for a question that needs them.
    from koplc.kopl.grounding.index.embedder import DEFAULT_EMBEDDER as embedder

    word_vectors = embedder.encode_queries([linked.question[s:e] for s, e, _ in found])
    name_vectors = embedder.encode_queries([n for _, _, n in found])
    kept = [f for f, w, n in zip(found, word_vectors, name_vectors, strict=True)
            if float(w @ n) >= DERIVED]
    return _with_entities(linked, [((s, e), n) for s, e, n in kept])


def coded_names(linked: Linked, kb) -> Linked:
    """`linked` with the entities named by a code joined to a number ("Ti-44": titanium-44):
    a word outside the names linked, written as a code the KB holds (`_codes`: an element's
    symbol) with a hyphen and a number after it, where the KB names an entity as the code's
    holder's name and that number are written ("titanium-44", "titanium 44")."""
    codes = _codes(kb)
    if not codes:
        return linked
    table, found = name_table(kb), []
    for m in _CODED_NAME.finditer(linked.question):
        holder = codes.get(m.group(1))
        if holder is None or _in_a_name(linked, m.start()):
            continue
        named = table.names(f"{holder} {m.group(2)}") or ()
        if len(named) == 1 and named[0] not in linked.entities:
            found.append(((m.start(), m.end()), named[0]))
    return _with_entities(linked, found)


def code_holders(question: str, kb) -> list[str]:
    """The names that the codes joined to a number in `question` stand for ("Ti-44": "titanium
    44"), by `kb`'s codes (`_codes`): what a question's fragment of a KB behind an endpoint is
    cut around, looked up in the endpoint's names."""
    codes = _codes(kb)
    return [f"{codes[m.group(1)]} {m.group(2)}" for m in _CODED_NAME.finditer(question)
            if m.group(1) in codes]


_CODED_NAME = re.compile(r"(?<![\w-])([A-Z][A-Za-z]{0,3})-(\d+)(?![\w-])")
# The fewest entities whose values of a key make it a key of codes (`_codes`).
_CODED = 5


@per_kb()
def _codes(kb) -> dict[str, str]:
    """The KB's codes, each to the name of the one entity that holds it: the values of a key
    of strings that at least `_CODED` entities hold, each a word of at most four letters
    beginning with a capital and held by one entity alone (an element's symbol, an airport's
    letters). A KB behind an endpoint lists them (`EndpointKB.codes`), and a fragment of one
    reads those of the whole KB."""
    whole = whole_of(kb)
    if whole is not None:  # a fragment
        return _codes(whole) if hasattr(whole, "codes") else {}
    if not hasattr(kb, "attr_index"):
        return kb.codes(_CODED) if hasattr(kb, "codes") else {}
    codes: dict[str, str] = {}
    for facts in kb.attr_index.values():
        held = {fact[1].value: node for node, node_facts in facts.items() for fact in node_facts
                if fact[1].type == "string"}
        if len(held) >= _CODED and len(held) == len(facts) and all(
                isinstance(v, str) and re.fullmatch(r"[A-Z][A-Za-z]{0,3}", v) for v in held):
            codes.update((v, kb.names[node]) for v, node in held.items())
    return codes


def place_names(linked: Linked, kb) -> Linked:
    """`linked` with the entity that a proper adjective or a people's name of the question
    stands for ("American cars": USA, "the Germans": Germany), by WordNet (`relatives.whose`):
    a capitalised word outside the names linked and not a word of the schema, whose place or
    group the KB names by exactly one entity. Written in lower case, the word is left alone: a
    KB of films has one called "America"."""
    table = name_table(kb)
    found = []
    for m, _ in _unlinked_words(linked, kb, r"\b[A-Z][a-z]{2,}\b"):
        named = {n for place in whose(m.group()) for n in table.names(place) or ()}
        if len(named) == 1 and (name := named.pop()) not in linked.entities:
            found.append(((m.start(), m.end()), name))
    return _with_entities(linked, found)


def group_names(linked: Linked, kb) -> Linked:
    """`linked` with the entity that a common noun of the question is a member or a kind of in
    WordNet (`relatives.groups_of`: "bats": Chiroptera, "minivan": van, "whales", in their
    second sense: Cetacea): a word of four letters or more, no word of the schema nor a bare
    singular (a mass noun: "tritium" is a hydrogen, not a class of things), whose nearest
    group in the first of its senses the KB names a group of is one entity, a member of a
    concept of at most `VALUE_CONCEPT` members (a group or a class, not a thing), in a question
    that names no entity otherwise ("the Panthera cats" are Panthera's, not all carnivores)."""
    if linked.entities:
        return linked
    table, classes = name_table(kb), _class_names(kb)
    found = []
    for m, word in _unlinked_words(linked, kb, r"\b[a-z]{4,}\b"):
        if word in CONTENT_STOP_WORDS or m.group() in NOT_NAMES \
                or _bare_singular(linked.question, m, word):
            continue
        named = _nearest_group(groups_of(word), table, classes)
        if len(named) == 1 and (name := named.pop()) not in linked.entities:
            found.append(((m.start(), m.end()), name))
    return _with_entities(linked, found)


def _nearest_group(senses: tuple[tuple[str, ...], ...], table, classes) -> set[str]:
    """The names of the classes (`_class_names`) that the nearest group the KB names of a
    word's first sense with any (`relatives.groups_of`) is written as; empty when none is."""
    for groups in senses:
        for group in groups:
            named = {n for n in table.names(group) or () if n in classes}
            if named:
                return named
    return set()


def _unlinked_words(linked: Linked, kb, pattern: str) -> Iterator[tuple[re.Match, str]]:
    """The matches of `pattern` in the question outside the names linked, each with its word
    in lower case and the singular, less the words of the KB's schema."""
    schema = schema_words(kb)
    for m in re.finditer(pattern, linked.question):
        word = singular(m.group().lower())
        if not _in_a_name(linked, m.start()) and word not in schema:
            yield m, word


def _in_a_name(linked: Linked, position: int) -> bool:
    """Whether the question's character at `position` lies inside a name it linked."""
    return any(start <= position < end for start, end in linked.spans)


def _bare_singular(question: str, found: re.Match, word: str) -> bool:
    """Whether a noun is said in the singular with no determiner or superlative before it:
    a mass noun ("Does tritium decay?"), which names a substance, not a member of a class."""
    before = re.findall(r"[a-z]+", question[:found.start()].lower())[-1:]
    return word == found.group() and not (before and (before[0] in _DETERMINERS
                                                      or before[0].endswith("est")))


_DETERMINERS = frozenset({"a", "an", "the", "which", "what", "each", "every", "any", "this",
                          "that", "one", "no"})


@per_kb()
def _class_names(kb) -> frozenset[str]:
    """The names of the members of the KB's concepts of at most `VALUE_CONCEPT` members, less
    concepts themselves: values (a diet, a status, a size class), not things. A KB with no
    concepts (plain labelled triples) says its classes by its facts alone: the things two or
    more facts of one relation reach (a diet, an order of genera), once per KB."""
    concepts = getattr(kb, "concept_members", {})  # a KB behind an endpoint has none at hand
    if not concepts:
        reached = getattr(kb, "in_objects", {})
        return frozenset(kb.names[node] for subjects in reached.values()
                         for node, held in subjects.items() if len(held) >= 2 and kb.names[node])
    return frozenset(name for members in concepts.values() if len(members) <= VALUE_CONCEPT
                     for node in members if node not in concepts and (name := kb.names[node]))


def _with_entities(linked: Linked, found: list[tuple[tuple[int, int], str]]) -> Linked:
    """`linked` with more entities, each (span, name), all in the order the question says them."""
    if not found:
        return linked
    spans = sorted([*zip(linked.spans, linked.entities, strict=True), *found])
    return replace(linked, entities=tuple(dict.fromkeys(n for _, n in spans)),
                   spans=tuple(span for span, _ in spans))


@per_kb()
def _value_names(kb) -> dict[str, tuple[str, ...]]:
    """The one-word names of the members of the KB's concepts of at most `VALUE_CONCEPT`
    members (`_class_names`), by their first five letters in lower case."""
    by_start: dict[str, list[str]] = {}
    for name in _class_names(kb):
        if name.isalpha() and len(name) >= 7:
            by_start.setdefault(name[:5].lower(), []).append(name)
    return {k: tuple(sorted(set(v))) for k, v in by_start.items()}


# Two or more capitalised words in a row, past the question's first word: a proper name.
_PROPER_NAME = re.compile(r"(?<=\s)[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)+")


def unknown_name(question: str) -> str | None:
    """A proper name the question says, of two or more capitalised words after its first word,
    when the mention linker linked no entity (the caller's test): the question is about
    something the KB lacks.

    >>> unknown_name("What is the home planet of Jar Jar Abrams?"), unknown_name("Who is taller?")
    ('Jar Jar Abrams', None)
    """
    found = _PROPER_NAME.search(question)
    return found.group(0).rstrip(".") if found else None


def name_past(linked: Linked) -> str | None:
    """A proper name the question says that goes on past a name it linked, in capitalised
    words no name it linked covers ("the Toyota Corolla" where the KB names only Toyota): the
    question is about something the KB lacks. None in a question written in title case, whose
    capitals mark no names.

    >>> from koplc.kopl.grounding.mentions import Linked
    >>> name_past(Linked("What does the Toyota Corolla cost?", ("Toyota",), (), ((14, 20),)))
    'Toyota Corolla'
    >>> name_past(Linked("Is Luke Skywalker Human?", ("Luke Skywalker", "Human"), (),
    ...                  ((3, 17), (18, 23))))
    """
    text = linked.question
    if _title_case(text):
        return None
    for found in _PROPER_NAME.finditer(text):
        start, end = found.span()
        inside = [(s, e) for s, e in linked.spans if s < end and start < e]
        if not inside:
            continue
        rest = [m for m in re.finditer(r"\S+", text[start:end])
                if not any(s <= start + m.start() < e for s, e in inside)]
        if rest and all(e <= end for _, e in inside):  # a span may take in "the" before
            return found.group(0).rstrip(".")
    return None


def unknown_word(linked: Linked, kb) -> str | None:
    """A word the question says past its first, outside the names it linked, that reads as a
    name or an identifier no entity has: an identifier written as two or more of the KB's
    entity names are (the same capitals, small letters and digits in the same order: "N999AA"
    where the KB names planes "N537JB"), or, in a question that links no entity, a capitalised
    word that WordNet does not know ("Grogu"), not the end of a longer name ("the Battle of
    Yavin"). A word of the schema, its singular, a word of capitals alone (an abbreviation:
    "MPG") and a question written in title case are left alone.

    >>> from koplc.kopl.grounding.mentions import Linked
    >>> class KB:
    ...     concept_names, relation_names, attr_index = lambda self: ["species"], [], {}
    ...     name_to_nodes = {"N537JB": (1,), "N10156": (2,), "N16AA": (3,)}
    >>> [unknown_word(Linked(q, (), ("species",), ()), KB()) for q in (
    ...     "What species is Grogu?", "Which airline flies N999AA?", "Which Species Is Grogu?",
    ...     "What is the highway MPG of Toyotas?", "How common is V-50?",
    ...     "Which species lived before the Battle of Yavin?")]
    ['Grogu', 'N999AA', None, None, None, None]
    >>> unknown_word(Linked("What species is Yoda?", ("Yoda",), (), ((16, 20),)), KB())
    """
    text = linked.question
    if _title_case(text):
        return None
    known, shapes = schema_words(kb), _identifier_shapes(kb)
    for found in list(re.finditer(r"[A-Za-z0-9][\w'’-]*", text))[1:]:
        if _in_a_name(linked, found.start()):
            continue
        word = re.sub(r"['’]s?$", "", found.group())
        if singular(word.lower()) in known:
            continue
        if _shape(word) in shapes or (not linked.entities and word[:1].isupper()
                                      and any(c.islower() for c in word) and not knows(word)
                                      and not _IN_A_NAME.search(text[:found.start()])):
            return word
    return None


# A capitalised word past the first, maybe with "of (the)" after it: what follows is the end of
# a longer name ("the Battle of Yavin"), not a name on its own.
_IN_A_NAME = re.compile(r"\s[A-Z][\w'’-]*\s+(?:of\s+(?:the\s+)?)?$")


def _shape(word: str) -> str:
    """A word's letters and digits as runs of A (capitals), a (small letters) and 9 (digits),
    other characters kept: "N537JB" is A9A."""
    return re.sub(r"(A)A+|(a)a+|(9)9+", r"\1\2\3",
                  re.sub(r"[A-Z]", "A", re.sub(r"[a-z]", "a", re.sub(r"\d", "9", word))))


@per_kb()
def _identifier_shapes(kb) -> frozenset[str]:
    """The shapes (`_shape`) of two or more of the KB's one-word entity names that mix capitals
    and digits: how the KB writes its identifiers."""
    found = Counter(_shape(str(name)) for name in kb.name_to_nodes
                    if re.fullmatch(r"(?=.*\d)(?=.*[A-Z])[\w-]+", str(name)))
    return frozenset(shape for shape, n in found.items() if n >= 2)


def _title_case(text: str) -> bool:
    """Whether most words after the first are capitalised: capitals that mark no names."""
    words = re.findall(r"[A-Za-z][\w'’-]*", text)
    return sum(w[0].isupper() for w in words[1:]) * 2 > max(len(words) - 1, 1)


def unknown_numbered(question: str, kb) -> str | None:
    """A numbered name the question says ("series 11", "the eleventh series") that no entity
    has, where the KB numbers names so (two or more entities named "Series" and a number):
    when the mention linker linked no entity (the caller's test), the question is about
    something the KB lacks."""
    heads = _numbered_heads(kb)
    if not heads:
        return None
    words = re.findall(r"[\w'-]+", question)
    for pair in zip(words, words[1:], strict=False):
        said = " ".join(pair)
        name = numbered(said) or said
        head, _, number = name.rpartition(" ")
        if number.isdigit() and head.lower() in heads:
            return said
    return None


@per_kb()
def _numbered_heads(kb) -> frozenset[str]:
    """The words that two or more of the KB's entity names are, followed by a number."""
    found = Counter(m.group(1).lower() for name in kb.name_to_nodes
                    if (m := _NUMBERED.fullmatch(str(name))))
    return frozenset(head for head, n in found.items() if n >= 2)


_NUMBERED = re.compile(r"([A-Za-z][\w'-]*) \d+")


def links(linked: Linked) -> bool:
    """Whether the question names anything of the KB: the one "did it link" rule."""
    return bool(linked.entities or linked.concepts)


def nothing_linked(linked: Linked, frontend: str, seconds: dict[str, float],
                   kb) -> Compiled | None:
    """The failed Compiled of a question that names nothing of `kb`, or that asks for a
    property of an entity that `kb` names nothing like (koplc.kopl.answering.unheld); else
    None."""
    if links(linked):
        asked = unheld(kb, linked.masked(), linked.entities)
        if asked is None:
            return None
        return Compiled(linked.question, frontend, failure="unfit", error=_unheld_error(asked),
                        seconds=seconds)
    name = (unknown_name(linked.question) or unknown_numbered(linked.question, kb)
            or unknown_word(linked, kb))
    error = f"nothing found: the KB has no entity named {name!r}" if name else NOTHING_LINKS
    return Compiled(linked.question, frontend, failure="link", error=error, seconds=seconds)


def linked_or_raise(question: str, kb) -> Linked:
    """`link_question`, raising NoLink when nothing links and Unheld when the question asks
    for a property of an entity that `kb` names nothing like."""
    linked = link_question(question, kb)
    if not links(linked):
        raise NoLink(f"{NOTHING_LINKS}: {question.strip()!r}")
    asked = unheld(kb, linked.masked(), linked.entities)
    if asked is not None:
        raise Unheld(_unheld_error(asked))
    return linked


def _unheld_error(asked: str) -> str:
    return f"nothing found: the KB names nothing like {asked!r}"


def concept_starts(kb, question: str) -> list[FilterConcept]:
    """FindAll → FilterConcept for each concept the question names: its whole name, or its
    last word in the singular or plural ("elements" for "chemical element")."""
    said = said_words(question)
    named = [c for c in kb.concept_names() if _names_concept(said, name_head(c))]
    return [FilterConcept(input=FindAll(), concept=c) for c in sorted(set(named))]


def said_concepts(kb, question: str) -> tuple[str, ...]:
    """The concepts whose whole names the question says, in the singular or the plural ("stable
    isotopes" for stable isotope), or whose names of several words it says each of, in any
    order ("isotopes ... are radioactive" for radioactive isotope): those a search may filter
    by beside the entities it names."""
    said = said_words(question)
    return tuple(c for c in kb.concept_names()
                 if _says_noun(said, name_head(c)) or _says_each(said, name_head(c)))


def meant_concepts(kb, question: str, least: float = MEANT_CONCEPT) -> tuple[str, ...]:
    """The concepts whose names are near in meaning to the noun the question asks for
    (`lexicon.asked_noun`), nearest first: those at a cosine of at least `least`."""
    noun, concepts = asked_noun(question), kb.concept_names()
    if noun is None or not concepts:
        return ()
    names = [" ".join(name_head(c)).lower() for c in concepts]
    near = _near_concepts(noun, names, concepts, least)
    if near:
        return near
    if noun not in WH_ANSWER_TYPES.values():
        # a noun mostly of the kind a wh-word asks for ("which women": a person) means what
        # that wh-word would ("who": the KB's characters)
        kinds = [word for word, kind in WH_KINDS.items()
                 if (kind_share(noun, kind) or 0) >= 0.5]
        near = _near_concepts(kinds[0], names, concepts, least) if len(kinds) == 1 else ()
    return near or _only_of_its_kind(noun, names, concepts)


def _near_concepts(noun: str, names: list[str], concepts, least: float) -> tuple[str, ...]:
    """The `concepts` whose `names` are at a cosine of at least `least` with `noun`, nearest
    first."""
    # Imported here: MiniLM (and torch) load only for a question that needs them.
    from koplc.kopl.grounding.index.embedder import DEFAULT_EMBEDDER as embedder

    cosines = embedder.encode_queries(names) @ embedder.encode_queries([noun])[0]
    ranked = sorted(zip(cosines, concepts, strict=True), key=lambda pair: -pair[0])
    return tuple(c for cosine, c in ranked if cosine >= least)


def meant_senses(linked: Linked) -> dict[str, tuple[str, ...]]:
    """For a question that names no entity: the noun it asks for as a sense of the last word
    of the first linked concept it does not say (`meant_concepts` puts the nearest first),
    since linking took the noun to mean that concept ("which contestants": contestant as a
    sense of baker). Empty otherwise."""
    noun = asked_noun(linked.question)
    if linked.entities or noun is None or noun in WH_ANSWER_TYPES.values():
        return {}
    said = said_words(linked.question)
    meant = [c for c in linked.concepts if not _names_concept(said, name_head(c))][:1]
    return {name_head(c)[-1].lower(): (noun,) for c in meant}


def _only_of_its_kind(noun: str, names: list[str], concepts) -> tuple[str, ...]:
    """The one concept of the KB of the kind the noun is of in WordNet (`WH_KINDS`: a person,
    a place, a time), where the noun is mostly of that kind and no other concept is: "which
    contestants" means the KB's bakers when bakers are its only people. Nothing otherwise."""
    for kind in WH_KINDS.values():
        if (kind_share(noun, kind) or 0) < 0.5:
            continue
        alike = [c for name, c in zip(names, concepts, strict=True)
                 if (kind_share(name, kind) or 0) >= 0.5]
        return tuple(alike) if len(alike) == 1 else ()
    return ()


def _names_concept(said: str, head: tuple[str, ...]) -> bool:
    return _says_noun(said, head) or _says_noun(said, head[-1:])


def _says_each(said: str, words: tuple[str, ...]) -> bool:
    """Whether the `said_words` hold each of two or more words, each in the singular or the
    plural, wherever they stand."""
    return len(words) >= 2 and all(_says_noun(said, (w,)) for w in words)


def _says_noun(said: str, words: tuple[str, ...]) -> bool:
    """Whether the `said_words` hold these words, or them with the last in the plural."""
    return bool(words) and (says(said, words) or says(said, (*words[:-1], plural(words[-1]))))
