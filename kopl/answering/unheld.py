"""A question that asks for a property of a named entity that the KB names nothing like ("What
is the melting point of iron-56?" of a KB of isotopes that holds no melting point, "Who is Rey's
father?" of one that holds no family): nothing is found, rather than the answer of the nearest
program, which reads some other property.

Only a property asked in one of a few plain shapes counts, since there the words can name
nothing else: "the X of ENT" (or on, or for), "ENT's X", "what X is ENT", "who X-ed (the) ENT"
(a verb and its object), "how many X does ENT have (...)", "in (on, at...) which X is ENT
<verb ...>", "what X does ENT <verb ...>" (or did, has, can...; not a copula: "what topics
is ENT about" may ask for a class, tags), "how much X does ENT <verb ...>", "how <adjective>
is ENT" (the adjective, read with the nouns WordNet says it is a degree of: "wide", width) and
"which X <verb> ENT" with X a noun, the verb's subject (ENT: the linked entity, masked, once);
and, in a question naming no entity, "which Y are X" with X a single word that says no degree
("which bakers are married"). X, of one to four words in the other shapes (two after a
possessive or a what-word), is compared by MiniLM cosine with every name of the KB's schema
(relations, attributes, qualifier keys, concepts, as words), their words' verbs and agent
nouns ("illustrator" for "illustrated by") and their WordNet relatives
(`koplc.kopl.relatives`) but for the adjectives that say a degree ("light" of weight); below
`UNHELD` for all of them, the KB holds nothing like X. The concepts the entity belongs to are
not compared (unless X says one: "what kind of movie is ENT"): a question asks of a character
no character.
"""

from __future__ import annotations

import re
from functools import lru_cache

from koplc.kopl.answering.thing_kinds import roles_of_kind
from koplc.kopl.errors import KoplcError
from koplc.kopl.exploration.readings import words
from koplc.kopl.kb.memo import per_kb
from koplc.kopl.lexicon import (
    ARTICLES,
    AUXILIARIES,
    CONTENT_STOP_WORDS,
    WHICH_QUESTION,
    adjective_base,
    asked_noun,
    base_form,
    singular,
)
from koplc.kopl.relatives import (
    agent_nouns,
    definition,
    is_a,
    measures,
    mostly_noun,
    schema_names,
    schema_relatives,
)

# Set on the dev KBs' tune halves (tests/fixtures/devkbs): the properties asked of an entity
# that the KB lacks reached 0.33 to 0.44 ("melting point", "lightsaber", "colour", "magnetic
# moment", "father"), those it holds 0.50 ("fleet": airline) and up.
UNHELD = 0.46

_WORD = r"(?!ENT\b)[a-z]+(?:-[a-z]+)?"  # a word, no entity
_X = rf"({_WORD}(?:\s+{_WORD}){{0,3}})"
_SHORT_X = rf"({_WORD}(?:\s+{_WORD})?)"  # after a possessive: no verb phrase after it
_WORDS = r"(?:\s+(?!ENT\b)[a-z]+)*"  # words after the entity, no other entity
_DO = "does|do|did|has|have|had|can|could|will|would"  # before the subject, not a copula
_OF_ENT = re.compile(rf"\bthe\s+{_X}\s+(?:of|on|for)\s+(?:an?\s+)?ENT\W*$", re.IGNORECASE)
_SHAPES = (_OF_ENT,
           re.compile(rf"\bENT['’]s\s+{_SHORT_X}\W*$", re.IGNORECASE),
           re.compile(rf"^\W*what\s+{_X}\s+(?:is|are|was|were)\s+ENT\W*$", re.IGNORECASE),
           re.compile(r"^\W*who\s+([a-z]+)\s+(?:the\s+)?ENT\W*$", re.IGNORECASE),
           re.compile(rf"^\W*how\s+many\s+{_X}\s+(?:does|do|did)\s+(?:an?\s+)?ENT\s+have"
                      rf"{_WORDS}\W*$", re.IGNORECASE),
           re.compile(rf"^\W*(?:in|on|at|from|to|for|by|with)\s+(?:what|which)\s+(?!ENT\b)"
                      rf"{_SHORT_X}\s+(?:{_DO}|is|are|was|were)\s+(?:an?\s+|the\s+)?ENT{_WORDS}\W*$",
                      re.IGNORECASE),
           re.compile(rf"^\W*(?:what|which)\s+(?!ENT\b){_SHORT_X}\s+(?:{_DO})\s+"
                      rf"(?:an?\s+|the\s+)?ENT(?:\s+(?!ENT\b)[a-z]+)+\W*$", re.IGNORECASE),
           re.compile(rf"^\W*how\s+much\s+(?!(?:{_DO})\b){_SHORT_X}\s+(?:{_DO})\s+"
                      rf"(?:an?\s+|the\s+)?ENT{_WORDS}\W*$", re.IGNORECASE))
# "how <adjective> is ENT": the adjective, read with the nouns WordNet says it is a degree of
# ("wide": width)
_HOW_ADJECTIVE = re.compile(r"^\W*how\s+(?!much\b|many\b)([a-z]+)\s+(?:is|are|was|were)\s+"
                            r"(?:an?\s+|the\s+)?ENT\W*$", re.IGNORECASE)
# "which X are P" naming no entity: P, one word, asked of the concept's members ("which bakers
# are married"), but for a degree ("which planets are largest")
_PREDICATE = re.compile(r"^\W*(?:which|what)\s+[a-z]+\s+(?:are|is|were|was)\s+([a-z]+)\W*$",
                        re.IGNORECASE)
# "which X <verb> (<particle>) ENT": X asked of the entity as the verb's subject, a noun
_SUBJECT = re.compile(rf"^\W*(?:what|which)\s+(?!ENT\b)([a-z]+)\s+(?!(?:{_DO}|is|are|was|were)\b)"
                      r"[a-z]+\s+(?:(?!ENT\b)[a-z]+\s+)?(?:an?\s+|the\s+)?ENT\W*$", re.IGNORECASE)


class Unheld(KoplcError):
    """The question asks for a property of an entity that the KB names nothing like."""

    default_code = "unheld"


def asked_property(masked: str) -> str | None:
    """The property a masked question asks of its entity, in one of the plain shapes; None
    when it asks otherwise.

    >>> [asked_property(q) for q in ("What is the melting point of ENT?", "Who is ENT's father?",
    ...     "What colour is ENT?", "Where do the members of ENT's species come from?",
    ...     "Who judged the ENT?", "Who hails from ENT?", "How many teeth does a ENT have?",
    ...     "What is the binding energy per nucleon of ENT?", "What weapon does ENT carry?",
    ...     "What topics is ENT about?", "Which ENT planes does ENT fly?",
    ...     "In which country is ENT registered?", "Which reactors make ENT?",
    ...     "What connects ENT and ENT?", "How many young does ENT have in a litter?",
    ...     "Which bakers are married?", "Which planets are largest?", "Which films are there?",
    ...     "How wide is the ENT?", "How much prize money did ENT win?", "How much does ENT weigh?")]
    ['melting point', 'father', 'colour', None, 'judged', None, 'teeth', 'binding energy per nucleon', 'weapon', None, None, 'country', 'reactors', None, 'young', 'married', None, None, 'wide', 'prize money', None]
    """
    for shape in _SHAPES:
        found = shape.search(masked.strip())
        if found:
            said = [w for w in found.group(1).lower().split()
                    if w not in ARTICLES and w not in AUXILIARIES]
            return " ".join(said) or None
    found = _HOW_ADJECTIVE.search(masked.strip())
    if found:
        return found.group(1).lower()
    found = _SUBJECT.search(masked.strip())
    if found and mostly_noun(found.group(1).lower()):
        return found.group(1).lower()
    found = _PREDICATE.search(masked.strip())
    predicate = found.group(1).lower() if found and "ENT" not in masked else None
    if predicate and predicate not in CONTENT_STOP_WORDS and not _degree(predicate):
        return predicate
    return None


def _degree(word: str) -> bool:
    """Whether the adjective says a degree of something (WordNet: "old" of age), itself or as
    the base of its comparative or superlative ("largest")."""
    return bool(measures(adjective_base(word) or word))


def unheld(kb, masked: str, entities: tuple[str, ...] = (), least: float = UNHELD) -> str | None:
    """The property the masked question asks of its entity when no name of `kb`'s schema, nor
    any WordNet relative of one, comes within cosine `least` of it, nor of the noun its which
    or what asks for; None otherwise. The concepts the question's `entities` belong to (and
    their words' relatives) are left out: what a question asks of a character is no character
    ("what weapon does Boba Fett carry")."""
    asked = asked_property(masked)
    if asked is None:
        return None
    names, own = _phrases(kb), _own_kinds(kb, entities)
    if any(singular(w) in own for w in asked.split()):
        own = frozenset()  # "what kind of movie is ENT": a class of the kind it says
    kept = [i for i, name in enumerate(names) if name not in own]
    if not kept:
        return None
    from koplc.kopl.grounding.index.embedder import DEFAULT_EMBEDDER as embedder

    # a which- or what-noun that asks for something else than "the X of ENT" ends the question
    # with is asked for too ("which screenwriter wrote the script for ENT": a writer, which the
    # KB may hold however far "script" reads; "what colour is ENT's lightsaber" asks the colour
    # of a lightsaber)
    noun = asked_noun(masked) if WHICH_QUESTION.match(masked) and _OF_ENT.search(masked) else None
    said = [asked] if noun is None or noun in asked.split() or noun == "ent" else [asked, noun]
    if _HOW_ADJECTIVE.search(masked.strip()):
        said += measures(asked)  # "how wide": width
    nearest = float((_vectors(names)[kept] @ embedder.encode_queries(said).T).max())
    if nearest >= least or _kind_held(kb, asked) or _things_are(kb, asked) or _a_value(
            kb, asked) or _glossed(kb, asked):
        return None
    return asked


def _glossed(kb, asked: str) -> bool:
    """Whether WordNet's definition of what is asked (its first sense as a noun, of the whole
    phrase or else its last word) says a word of a relation's name ("fleet": a group of
    aircraft operating together, of a KB relating planes to their aircraft type). Not an
    attribute's: the words a definition says of a property ("length", "day", "body") name
    other properties."""
    said = set(_definition_words(asked))
    return bool(said & _relation_words(kb))


@lru_cache(maxsize=1024)
def _definition_words(asked: str) -> tuple[str, ...]:
    """The words of four letters or more of WordNet's first noun sense's definition of the
    phrase, else of its last word, each with its singular and base form."""
    text = definition(asked) or definition(asked.split()[-1]) or ""
    return tuple({form for word in re.findall(r"[a-z]{4,}", text.lower())
                  if word not in CONTENT_STOP_WORDS for form in _forms(word)})


def _forms(word: str) -> set[str]:
    """The word, its singular and its base form as a verb ("operating": operate)."""
    return {word, singular(word), base_form(word) or word}


@per_kb()
def _relation_words(kb) -> frozenset[str]:
    """The words of the KB's relation names, each with its singular and base form."""
    return frozenset(form for name in kb.relation_names for word in words(name).lower().split()
                     for form in _forms(word))


def _a_value(kb, asked: str) -> bool:
    """Whether what is asked is a value the KB holds, in the singular or as said ("the
    goalkeepers of ENT": players whose position is "goalkeeper")."""
    return bool({asked, singular(asked)} & _string_values(kb))


@per_kb()
def _string_values(kb) -> frozenset[str]:
    """The KB's attribute values that are strings, in lower case, once per KB."""
    return frozenset(fact[1].value.lower() for facts in getattr(kb, "attr_index", {}).values()
                     for node_facts in facts.values() for fact in node_facts
                     if fact[1].type == "string" and isinstance(fact[1].value, str))


def _things_are(kb, asked: str) -> bool:
    """Whether WordNet says the things some relation of a KB with no concepts links are of
    the kind asked, by their names (`thing_kinds.roles_of_kind`: "animals" of placentals)."""
    return bool(roles_of_kind(kb, asked.split()[-1]))


def _kind_held(kb, asked: str) -> bool:
    """Whether the schema names a kind of what is asked, by WordNet ("BB8's kind": a species is
    a kind), however far their words read."""
    return " " not in asked and any(is_a(word, asked) for name in _schema_words(kb)
                                    for word in name.split())


@per_kb()
def _schema_words(kb) -> tuple[str, ...]:
    """The schema's names as words, in lower case, once per KB."""
    return tuple(sorted({words(n).lower() for n in schema_names(kb)}))


@per_kb()
def _phrases(kb) -> tuple[str, ...]:
    """The phrases a property is compared with, once per KB (not per question: the relatives
    come from a cache file): the schema's names as words, their words' verbs and agent nouns,
    and their WordNet relatives but for the adjectives that say a degree of the word ("light"
    of weight: a property is a noun, and "colour" reads near "light")."""
    said = set(_schema_words(kb))
    return tuple(sorted(said | {k for word, kin in schema_relatives(kb).items() for k in kin
                                if word not in measures(k)}
                        | {form for phrase in said for w in phrase.split()
                           for form in _verb_forms(w)}))


def _own_kinds(kb, entities: tuple[str, ...]) -> frozenset[str]:
    """The names of the concepts the entities belong to (directly or not), as words, with
    their words' WordNet relatives."""
    kinds = {words(kb.names[c]).lower() for name in entities
             for node in kb.name_to_nodes.get(name, ()) for c in kb.ancestors(node)}
    relatives = schema_relatives(kb)
    return frozenset(kinds | {k for kind in kinds for w in kind.split()
                              for k in relatives.get(w, ())})


def _verb_forms(word: str) -> tuple[str, ...]:
    """A schema word's verb and agent nouns, as the search reads it ("illustrated":
    illustrate, illustrator)."""
    base = base_form(word)
    return (base, *agent_nouns(base)) if base else ()


@lru_cache(maxsize=4)
def _vectors(names: tuple[str, ...]):
    """The MiniLM rows of a schema's phrases, once a process per schema."""
    from koplc.kopl.grounding.index.embedder import DEFAULT_EMBEDDER as embedder

    return embedder.encode(list(names))
