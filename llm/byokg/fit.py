"""How well a program's reading fits the question, word by word, for the BYOKG search.

A sentence embedding does not count hops, nor tell "directed" from "wrote" when the rest of
two readings agree. Word-level terms join it:
- coverage: each content word of the question is matched to its nearest content word of the
  reading and back (MiniLM vectors of single words), and the two mean similarities are joined
  as an F-measure, so a program that drops a hop loses recall and one that adds a hop loses
  precision;
- answer type: what the question asks for ("who" → a person, "what year" → year, "which
  rivers" → rivers) against what the program returns (its answer's concept, else the last
  relation's or attribute's name), by MiniLM cosine, and for who, where and when also by the
  WordNet kinds of the returned noun;
- order: whether the question says the matched words in the reading's order.
The rules read English question words (`koplc.kopl.lexicon`) only, never a dataset's templates;
a dataset's near synonyms come in as `extra` where the KB is that dataset's."""

from __future__ import annotations

import re

import numpy as np

from koplc.kopl.execution.judge import find_names
from koplc.kopl.exploration.readings import words
from koplc.kopl.ir import Node, QueryName
from koplc.kopl.lexicon import (
    ARTICLES,
    AUXILIARIES,
    CONTENT_STOP_WORDS,
    HAVE,
    NO_EXTRA,
    PREPOSITIONS,
    WH_ANSWER_TYPES,
    WH_KINDS,
    WHAT,
    ExtraWords,
    active_base,
    adjective_base,
    asked_noun,
    asks_how_many,
    base_form,
    request,
    singular,
)
from koplc.kopl.quantities_in_text import quantities_in
from koplc.kopl.relatives import (
    agent_nouns,
    base_verb,
    converse,
    every_kind_of,
    is_a,
    kind_share,
    kinds_of,
    measures,
    mostly_adjective,
    mostly_noun,
    premodifier,
)

_STOP = CONTENT_STOP_WORDS | {"ent"}  # and the mask of an entity, whatever its case


def content_words(text: str) -> list[str]:
    """The question's or reading's words that name something: no articles, auxiliaries,
    prepositions or masked entities ("who", "when" and "where" stay: they ask for a type).

    >>> content_words("who wrote the books illustrated by ENT")
    ['who', 'wrote', 'books', 'illustrated']
    """
    return [w for w in re.findall(r"[a-z]+", text.replace("ENT", " ").lower())
            if w not in _STOP]


# A noun before an entity (through punctuation: "the film ...ENT"; "is" between), or after
# "ENT is a".
_NEXT_TO_ENTITY = re.compile(
    r"([A-Za-z]+)\s+(?:is\s+|was\s+)?[^\w\s]*ENT\b|\bENT\s+(?:is|was)\s+an?\s+([A-Za-z]+)")


# Another name set beside an entity's, in parentheses or after a comma at the end ("the hyraxes
# (ENT)", "ENT (the hyraxes)", "... among the hoofed animals, the ENT?"; not "the smaller engine,
# the ENT or the ENT?"): it names the entity again.
_APPOSITION = re.compile(
    r"\b(?:the|an?)\s+((?:[\w-]+\s+){0,3}[\w-]+)\s*(?:\(\s*(?:the\s+)?ENT\s*\)"
    r"|,\s+(?:the\s+)?ENT(?=\s*[?.!]?\s*$))"
    r"|\bENT\s*\(([^()]*)\)", re.IGNORECASE)


def possessives_spelt_out(masked: str) -> str:
    """The masked question with each plural's possessive apostrophe written as a singular's
    ("ENT's parents' jobs": "ENT's parents's jobs"), so that a possessive chain reads on
    through it.

    >>> possessives_spelt_out("What are ENT's parents' jobs?")
    "What are ENT's parents's jobs?"
    """
    return re.sub(r"(?<=[a-z]s)['’](?=\s)", "'s", masked)


def unglossed(masked: str) -> str:
    """The masked question without a name set beside an entity's (`_APPOSITION`).

    >>> unglossed("What do the hyraxes (ENT) eat?")
    'What do ENT eat?'
    >>> unglossed("Which threats show up among the hoofed animals, the ENT?")
    'Which threats show up among ENT?'
    >>> unglossed("Which has the smaller engine, the ENT or the ENT?")
    'Which has the smaller engine, the ENT or the ENT?'
    >>> unglossed("what was the release date of the movie ...ENT")
    'what was the release date of the movie ...ENT'
    """
    found = _APPOSITION.sub("ENT", masked)
    return masked if found == masked else re.sub(r"\s+([?.!]+\s*)$", r"\1", found)


def question_words(masked: str, entity_nouns: list[str], vectors) -> list[str]:
    """The masked question's content words, less a noun next to an entity that names the
    entity's own concept ("the novel ENT", "the film ...ENT", "what kind of book is ENT", "ENT is
    a novel": the reading says ENT alone), compared by MiniLM cosine of at least 0.65 with
    `entity_nouns`.

    >>> import numpy as np
    >>> same = lambda ws: np.array([[1.0 if w in ("novel", "book") else 0.0] for w in ws])
    >>> question_words("who wrote the novel ENT", ["book"], same)
    ['who', 'wrote']
    """
    said = content_words(masked)
    before = {m.lower() for m in re.findall(_NEXT_TO_ENTITY, masked) for m in m if m} & set(said)
    if not before or not entity_nouns:
        return said
    near = vectors(sorted(before)) @ vectors(entity_nouns).T
    typed = {w for w, row in zip(sorted(before), near, strict=True) if row.max() >= 0.65}
    return [w for w in said if w not in typed]


def asked_type(question: str) -> str | None:
    """What the question asks for, in words: "number" for how many, the type a wh-word implies,
    or the words after what/which, else the last thing a possessive names ("ENT's genus's
    order"; None when it says none).

    >>> [asked_type(q) for q in ("what genres are the books by ENT", "who wrote ENT",
    ...                          "what was the publication year of ENT", "how many books",
    ...                          "ENT's genus's order?", "what's the most expensive car",
    ...                          "What's the gas mileage of ENT?", "which ENT were born on ENT")]
    ['genres', 'person', 'publication year', 'number', 'order', 'car', 'gas mileage', None]
    >>> asked_type("Name the models that make up ENT's fleet"), asked_type("describe the movie ENT")
    ('models', None)
    >>> asked_type("Which ENT aircraft were built before 2000?")
    'aircraft'
    >>> asked_type("Name every nuclide whose half-life is over a year"), asked_type("Whose is ENT?")
    ('nuclide', 'person')
    """
    if asks_how_many(question):
        return "number"
    named = re.search(r"\b(?:which|what)\s+ENT\b(?:\s+([a-z]+))?", question, re.IGNORECASE)
    if named:  # "which ENT planes": planes; "which ENT were born on ENT": an entity's kind
        after = (named.group(1) or "").lower()
        return after if after and mostly_noun(singular(after)) else None
    said_is = re.sub(r"\b(\w+)['’]s\s+(?=the\b|an?\b)", r"\1 is ", question)  # "what's the"
    tokens = re.findall(r"[a-z]+", said_is.replace("ENT", " ").lower())
    for i, token in enumerate(tokens):
        if token in WHAT:
            rest = tokens[i + 1:]
            if rest[:1] and rest[0] in HAVE:  # "which has the greater ...": an entity
                return None
            while rest and (rest[0] in AUXILIARIES or rest[0] in ARTICLES):
                rest = rest[1:]
            if rest and (rest[0] in ("most", "least") or (
                    rest[0].endswith("est") and adjective_base(rest[0]))):
                noun = asked_noun(question)  # "the most expensive car": the noun picked
                return None if noun == "ent" else noun  # "the lightest ENT": a member of it
            return _named(rest)
        if token in WH_ANSWER_TYPES and not (  # "every nuclide whose ...": no person asked
                token == "whose" and i and tokens[i - 1] not in PREPOSITIONS):
            return WH_ANSWER_TYPES[token]
    # "Name the models that ...": the words after the verb; not "describe the movie ENT",
    # which says what the entity is, not what is asked
    asked = request(question)
    if asked is not None and "ENT" not in (asked.group(2), asked.group(3)):
        return _named(re.findall(r"[a-z]+", question[asked.start(2):].replace("ENT", " ")
                                 .lower()))
    owned = re.findall(r"['’]s\s+([a-z]+)", question.lower())
    if owned and tokens[:1] != ["how"]:  # "how heavy is ENT's brain" asks for a weight
        return owned[-1]  # "ENT's genus's order?": the last thing owned
    return None


def asked_as_subject(question: str) -> str | None:
    """The noun a which- or what-question asks for where it is the subject of the question's
    verb (past a prepositional phrase): such a question asks for those things by name ("which
    series premiered after 2015", "which ENT aircraft were built before 2000", "which aircraft
    in the registry were built by ENT", "which cars have airbags"), not for a value of theirs.
    None where the noun is the verb's object ("which engine type does ENT have") or a
    copula's complement ("which genre is ENT"), or where no noun comes before the verb.

    >>> [asked_as_subject(q) for q in ("Which series premiered after 2015?",
    ...     "Which ENT aircraft were built before 2000?",
    ...     "Which aircraft in the registry were built by ENT?", "Which nuclides emit a neutron?",
    ...     "Which cars have airbags?", "Which of the domesticated ones get by on less?",
    ...     "Which naturally present nuclides also undergo ENT?")]
    ['series', 'aircraft', 'aircraft', 'nuclides', 'cars', 'ones', 'nuclides']
    >>> [asked_as_subject(q) for q in ("Which engine type does ENT have?", "Which genre is ENT?",
    ...     "What genres are the films of ENT?", "Who directed ENT?", "Which ENT planes does ENT "
    ...     "fly?", "Which is the largest?", "What films did ENT write?")]
    [None, None, None, None, None, None, None]
    """
    tokens = re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)*", question.lower())
    opening = next((i for i, t in enumerate(tokens) if t in WHAT), None)
    if opening is None:
        return None
    rest = tokens[opening + 1:]
    if rest[:2] == ["of", "the"]:
        rest = rest[2:]
    for j in range(min(4, len(rest) - 1)):
        word, after = rest[j], rest[j + 1:]
        if word in AUXILIARIES or word in PREPOSITIONS or word in ARTICLES:
            return None  # "which is ...", "what did ...": no noun before the verb
        if premodifier(word):
            continue  # "which naturally present nuclides"
        while len(after) > 1 and "-" not in after[0] and premodifier(after[0]):
            after = after[1:]  # "nuclides also undergo"
        if after[0] in PREPOSITIONS:  # "which aircraft in the registry were built"
            verb = next((i for i, w in enumerate(after[:6]) if w in AUXILIARIES), None)
            return word if verb is not None and _subject_verb(after[verb:]) else None
        if after[0] in AUXILIARIES or _a_verb(after[0]):
            return word if _subject_verb(after) else None
    return None


def _a_verb(word: str) -> bool:
    """Whether WordNet and lemminflect read the word as a verb more than as a noun."""
    return not mostly_noun(word) and bool(base_form(word) or active_base(word)
                                          or base_verb(word))


def _subject_verb(said: list[str]) -> bool:
    """Whether the words from a question's verb on make what comes before them its subject:
    a verb of its own ("premiered"), a passive or perfect ("were built", "have won") or "have"
    with an object ("have airbags"); not "do" and a subject ("does ENT have"), a modal, nor a
    copula's complement ("is ENT", "are the films")."""
    first = said[0]
    if first in ("do", "does", "did", "can", "could", "will", "would"):
        return False
    if first in ("is", "are", "was", "were"):
        return len(said) > 1 and base_form(said[1]) is not None
    if first in HAVE:
        return len(said) > 1 and said[1] not in ("you", "we", "they", "i", "ent")
    return _a_verb(first)


def names_noun(name: str, noun: str) -> bool:
    """Whether a schema name says the noun's last word, in the singular ("engine type" of
    "engine types"; not "number of episodes" of "series")."""
    head = singular(noun.split()[-1].lower())
    return any(singular(w) == head for w in words(name).lower().split())


def counted_noun(question: str) -> str | None:
    """The noun a "how many" question counts: the words after "how many" or "the number of"
    (past an entity's mask and an article), up to two, as `asked_type` reads those after
    "what" (None when it says none).

    >>> [counted_noun(q) for q in ("how many orders of mammals are represented",
    ...     "how many ENT species are there", "what is the number of isotopes of ENT",
    ...     "how many hours a day does ENT sleep", "how many does ENT have",
    ...     "how many different kinds of being come from ENT")]
    ['orders', 'species', 'isotopes', 'hours', None, 'kinds']
    """
    said = re.search(r"\bhow\s+many\b|\bnumber\s+of\b", question, re.IGNORECASE)
    if said is None:
        return None
    rest = re.findall(r"[a-z]+", question[said.end():].replace("ENT", " ").lower())
    while rest and (rest[0] in ARTICLES or (len(rest) > 1 and mostly_adjective(rest[0]))):
        rest = rest[1:]  # "how many different kinds": kinds
    return _named(rest)


def kind_named(question: str) -> bool:
    """Whether the (masked) question asks for things of a kind it names by an entity: "which
    ENT were born on ENT" ("which humans"), "what is the lightest ENT" ("rodent": Rodentia),
    "how many ENT are in the data" (bats: Chiroptera's).

    >>> [kind_named(q) for q in ("which ENT were born on ENT", "What is the lightest ENT?",
    ...     "What is the lightest mammal?", "Who directed ENT?", "Which ENT planes does ENT fly?",
    ...     "How many ENT are in the data?", "How many ENT species are there?")]
    [True, True, False, False, False, True, False]
    """
    after = re.search(r"\bENT\s+([a-z]+)", question)
    if asks_how_many(question):  # "how many ENT are in the data" ("bats": Chiroptera)
        return (re.search(r"\bhow\s+many\s+ENT\b", question, re.IGNORECASE) is not None
                and counted_noun(question) is None)
    return (asked_type(question) is None
            and asked_noun(question) == "ent"
            and not (after and mostly_noun(singular(after.group(1)))))  # "which ENT planes"


def members_of_named(node: Node, entities: tuple[str, ...]) -> Node | None:
    """The set a finished program answers from (past any concept filter) when it is what one
    relation reaches, followed one way once or more, from an entity of `entities`: things of
    the kind that entity names (a species' characters, an order's genera's species); else None.

    >>> from koplc.kopl.ir import Find, QueryName, Relate
    >>> down = Relate(input=Relate(input=Find(name="Rodentia"), relation="parent",
    ...     direction="backward"), relation="parent", direction="backward")
    >>> members_of_named(QueryName(input=down), ("Rodentia",)) == down
    True
    >>> members_of_named(QueryName(input=Relate(input=down, relation="diet",
    ...     direction="forward")), ("Rodentia",))
    """
    inner = node.input if node.op in ("QueryName", "SelectAmong", "Count") else None
    return _reached_down(inner, entities) if inner is not None else None


def _reached_down(inner: Node, entities: tuple[str, ...]) -> Node | None:
    """`members_of_named` of an entity set."""
    while inner.op == "FilterConcept":
        inner = inner.input
    if inner.op == "And":  # "which ENT were born on ENT": either side
        return _reached_down(inner.left, entities) or _reached_down(inner.right, entities)
    if inner.op != "Relate":
        return None
    step = inner
    while step.op == "Relate" and (step.relation, step.direction) == (inner.relation,
                                                                      inner.direction):
        step = step.input
    return inner if step.op == "Find" and step.name in entities else None


def _named(rest: list[str]) -> str | None:
    """The first two of `rest`'s words, up to a stop word or an auxiliary: the thing named."""
    said = []
    for word in rest[:2]:
        if word in _STOP or word in AUXILIARIES:
            break
        said.append(word)
    return " ".join(said) or None


def reached(name: str, asked: str | None) -> str:
    """What a relation's name (in words) says it reaches, kept to the words the asked phrase
    can check: the head of a noun compound ("aircraft type": a type, not an aircraft), the
    noun before "of" ("place of birth": a place), the noun after a verb's preposition ("plays
    in club": a club), each with those of the name's other words that `asked` says too
    ("engine types": engine type); the whole name when it names no noun ("aired on").

    >>> [reached(n, "planes") for n in ("aircraft type", "place of birth", "plays in club")]
    ['type', 'place', 'club']
    >>> reached("engine type", "engine types"), reached("aired on", "network")
    ('engine type', 'aired on')
    """
    said = name.split()
    cut = [i for i, w in enumerate(said) if w in PREPOSITIONS]
    if cut and said[cut[0]] == "of" and cut[0] > 0:
        core = said[:cut[0]]
    elif cut and cut[-1] < len(said) - 1:
        core = said[cut[-1] + 1:]
    elif cut:
        return name
    else:
        core = said
    heard = {singular(w) for w in (asked or "").split()}
    return " ".join(w for w in said if w == core[-1] or (singular(w) in heard
                                                         and w not in PREPOSITIONS))


def doers(name: str) -> tuple[str, ...]:
    """Who does what a relation's name (in words) says, where it is an active verb alone or
    before a preposition ("won": winner; "plays in club": player; "competed in": competitor):
    the verb's agent nouns (`relatives.agent_nouns`), which name the relation's subjects, not
    the things it reaches; none for any other name ("manufactured by", "born in", "aircraft
    type", "films": mostly a noun).

    >>> doers("plays in club"), doers("won"), doers("born in"), doers("manufactured by")
    (('player',), ('winner',), (), ())
    """
    said = name.split()
    if said[1:] and (said[1] not in PREPOSITIONS or said[-1] == "by"):
        return ()
    verb = active_base(said[0])
    if verb is None or (not said[1:] and mostly_noun(said[0])):
        return ()
    return agent_nouns(verb)


def asks_doer(node: Node, asked: str) -> bool:
    """Whether the noun asked for, or a kind of it, is one that the name of the relation a
    program's answers are the objects of says of its subjects: a doer (`doers`: "Which
    players are taller than ...?" is not asking the clubs they play in), a noun before its
    head (`modifiers`: planes, a kind of aircraft, are no aircraft types) or the noun before
    its last preposition (`holders`: "Which bakers ...?" is not asking the series "star baker
    in" reaches); such a program's answers are not what is asked."""
    inner = node.input if node.op == "QueryName" else node
    if inner.op == "And" and inner.left == inner.right:  # a set met with itself, counted once
        inner = inner.left
    if inner.op != "Relate" or inner.direction == "backward" or asked in WH_KINDS:
        return False
    name = words(inner.relation)
    named = (*doers(name), *modifiers(name), *holders(name))
    for noun in dict.fromkeys((asked, *asked.split())):  # "imported cars": cars as well
        kinds = kinds_of(noun)
        heads = {kind.split()[-1] for kind in kinds}  # a wheeled vehicle is a vehicle
        if singular(noun) in named or any(d in kinds or d in heads for d in named):
            return True
    return False


def holders(name: str) -> tuple[str, ...]:
    """What a relation's name calls its subjects where it is nouns before a last preposition
    ("star baker in": a star baker, a baker; "member of": a member), in the singular; none
    for any other name ("plays in club", "aired on", "place of birth").

    >>> holders("star baker in"), holders("member of"), holders("aired on")
    (('star baker', 'baker'), ('member',), ())
    """
    said = name.lower().split()
    if (len(said) < 2 or said[-1] not in PREPOSITIONS or not mostly_noun(said[-2])
            or any(w in PREPOSITIONS for w in said[:-1])):
        return ()
    return tuple(dict.fromkeys((" ".join(said[:-2] + [singular(said[-2])]), singular(said[-2]))))


def modifiers(name: str) -> tuple[str, ...]:
    """The nouns before the head of a relation's name that is a noun compound, in the
    singular ("aircraft type": aircraft; "engine type": engine): they name what the facts are
    of, never the things the relation reaches, which its head names.

    >>> modifiers("aircraft type"), modifiers("place of birth"), modifiers("starred actors")
    (('aircraft',), (), ())
    """
    said = name.lower().split()
    if any(w in PREPOSITIONS for w in said):
        return ()
    return tuple(singular(w) for w in said[:-1] if mostly_noun(w))


Named = str | tuple[str, str]
"""What a program's answers are called: a name, or a relation's name and its head (both must
match what is asked, `type_match`)."""


def answer_type(node: Node, noun, asked: str | None = None) -> Named | None:
    """What a finished program returns, in words: the concept of its answer set (`noun`, as
    Reasoner.noun; of the set a SelectAmong or SelectBetween picks from), else the name of the
    attribute it ends with or of the relation it ends following forward (a relation names
    what it reaches, "homeworld", and where its name is a compound, by that and by its head
    as well, `reached`: "aircraft type" names types; followed backward, what it starts from
    is named only where it is a family tie's other side, `relatives.converse`); None when
    nothing names it."""
    if node.op == "Count":
        return "number"
    if node.op == "QueryAttr":
        return words(node.key)
    if node.op in ("SelectAmong", "SelectBetween"):  # one of the entities it picks among
        return noun(node.input if node.op == "SelectAmong" else node.left)
    if node.op != "QueryName":
        return None
    found = noun(node.input)
    if found or node.input.op != "Relate":
        return found
    said = words(node.input.relation)
    if node.input.direction == "backward":
        return converse(said)
    agent = by_agent(said)
    if agent:  # "manufactured by" reaches manufacturers
        return agent
    head = reached(said, asked)
    return said if head == said else (said, head)


def by_agent(name: str) -> str | None:
    """Who a relation named by a past participle and "by" reaches: the verb's agent noun
    ("manufactured by": manufacturer, "written by": writer); None for any other name.

    >>> by_agent("manufactured by"), by_agent("written by"), by_agent("aired on")
    ('manufacturer', 'writer', None)
    """
    said = name.lower().split()
    verb = base_form(said[0]) if len(said) == 2 and said[1] == "by" else None
    agents = agent_nouns(verb) if verb else ()
    return agents[0] if agents else None


def answer_types(node: Node, noun, asked: str | None = None) -> tuple[Named, ...]:
    """`answer_type` and, for the names of an And or Or of two sets with no concept, each
    side's: both name the same things, so the join matches the asked type as well as the
    side that matches it best."""
    found = answer_type(node, noun, asked)
    if found is None and node.op == "QueryName" and node.input.op in ("And", "Or"):
        sides = (answer_type(QueryName(input=side), noun, asked)
                 for side in (node.input.left, node.input.right))
        return tuple(dict.fromkeys(t for t in sides if t))
    return (found,) if found else ()


def type_match(asked: str, returned: Named, vectors, extra: ExtraWords = NO_EXTRA) -> float:
    """How well what a program returns matches what the question asks for: the MiniLM cosine
    of the two (`vectors` gives unit rows), or, when a wh-word asks ("who": a person or group),
    the share of the returned noun's WordNet senses of that kind where it is larger (MiniLM
    puts "manufacturers" no nearer to "person" than "aircraft"); 1 when the asked noun is one
    of the returned noun's senses in `extra` (a question's `meant_senses`), a kind of it in
    WordNet (`relatives.kinds_of`: "carmakers" of manufacturers) or what WordNet puts above it
    at any level ("animals" of placentals), the asked phrase read by its first word where that
    is a plural ("automakers build"). Where a wh-word asks and WordNet knows the
    returned noun, mostly a noun, in no sense of that kind, it matches not at all ("sex" is
    no place, however near MiniLM puts the words). A pair of names (a relation's and its
    head's, `answer_type`) matches as the worse of the two."""
    if isinstance(returned, tuple):
        return min(type_match(asked, r, vectors, extra) for r in returned)
    noun = _plural_head(asked)  # "automakers build": automakers
    if singular(asked) in extra.near_synonyms(returned, singular(returned)) or (
            singular(returned.lower()) in kinds_of(noun)  # "carmakers": manufacturers
            or is_a(returned, noun)  # "kinds": species, a kind in one of its senses
            or singular(noun) in every_kind_of(returned)):  # "animals": placentals
        return 1.0
    pair = vectors([asked, returned])
    cosine = float(pair[0] @ pair[1])
    share = kind_share(returned, WH_KINDS[asked]) if asked in WH_KINDS else None
    if share is None or (not share and not mostly_noun(_head(returned))):
        return cosine  # "flies to": no insect
    return max(cosine, share) if share else share  # "sex" is never a place


def _plural_head(asked: str) -> str:
    """The asked phrase's first word where it is a plural (a noun compound's first noun seldom
    is: "animals live" asks for animals); else the phrase."""
    said = asked.split()
    return said[0] if len(said) == 2 and singular(said[0]) != said[0] else asked


def _head(name: str) -> str:
    """The last word of a name before any "of", in the singular ("year of discovery": year)."""
    said = name.lower().split(" of ")[0].split()
    return singular(said[-1]) if said else ""


def senses(word: str, extra: ExtraWords = NO_EXTRA) -> list[str]:
    """The ways a reading's word may be said: itself, a verb's base form and its agent noun
    ("discovered": discover, discoverer; "wrote": write, writer), and the near synonyms that
    `extra` (a dataset's words, for its own KB) gives the word, its singular or its base.

    >>> senses("discovered"), senses("wrote")
    (['discovered', 'discover', 'discoverer'], ['wrote', 'write', 'writer'])
    """
    said = [word]
    base = base_form(word)
    if base:
        said += [base, *agent_nouns(base)]
    return said + list(extra.near_synonyms(word, word.removesuffix("s"), base or ""))


def similarity(question: list[str], reading: list[str], vectors, extra: ExtraWords = NO_EXTRA):
    """The cosines of each question content word with each reading content word (`vectors`
    gives unit rows), a reading word taken at its nearest sense (`senses`, with `extra`'s near
    synonyms) and a question word at the nearest of what it may be read as (`_said_as`); None
    when either side has none."""
    if not question or not reading:
        return None
    forms = [senses(w, extra) for w in reading]
    said = [_said_as(w) for w in question]
    cosines = (vectors([f for group in said for f in group])
               @ vectors([f for group in forms for f in group]).T)
    return _nearest(_nearest(cosines, said, 0), forms, 1)


def _said_as(word: str) -> list[str]:
    """A question word and what it may be read as: of a comparative or superlative, its base
    ("youngest": young) and what that is a degree of (`relatives.measures`: "lightest":
    weight)."""
    base = adjective_base(word)
    return list(dict.fromkeys([word, base, *measures(base)])) if base else [word]


def _nearest(cosines, groups: list[list[str]], axis: int):
    """`cosines` with each group of rows (`axis` 0) or columns (1) taken at its largest."""
    parts, start = [], 0
    for group in groups:
        block = cosines[start:start + len(group)] if axis == 0 else \
            cosines[:, start:start + len(group)]
        parts.append(block.max(axis))
        start += len(group)
    return np.stack(parts, axis=axis)


def coverage(similarity) -> float:
    """The F-measure of matching each content word to its nearest on the other side, from
    their `similarity` matrix (question words by rows)."""
    if similarity is None:
        return 0.0
    recall, precision = float(similarity.max(1).mean()), float(similarity.max(0).mean())
    if recall <= 0 or precision <= 0:
        return 0.0
    return 2 * recall * precision / (recall + precision)


def order(similarity, least: float = 0.6) -> float:
    """Whether the question says the reading's words in the reading's order: over pairs of
    question words matched (cosine at least `least` in `similarity`) to two different reading
    words, the share in the same order less the share reversed (0 with no such pair). Readings
    name the last hop first, as "who illustrated the books written by ..." does.

    >>> import numpy as np
    >>> order(np.eye(3)), order(np.eye(3)[::-1]), order(None)
    (1.0, -1.0, 0.0)
    """
    if similarity is None:
        return 0.0
    matched = [int(row.argmax()) for row in similarity if row.max() >= least]
    pairs = [(a, b) for i, a in enumerate(matched) for b in matched[i + 1:] if a != b]
    if not pairs:
        return 0.0
    return sum(1 if a < b else -1 for a, b in pairs) / len(pairs)


def names_used(node: Node) -> set[str]:
    """The names a program starts from and the string values it states: a value may be a
    linked entity's name ("electron capture", a decay mode that is also an entity).

    >>> from koplc.kopl.ir import Find, QueryAttrUnderCondition
    >>> sorted(names_used(QueryAttrUnderCondition(input=Find(name="gallium-70"), key="ratio",
    ...                                           qkey="mode", qvalue="electron capture")))
    ['electron capture', 'gallium-70']
    """
    return set(find_names(node)) | {value for _, value in _literals(node)
                                    if value and not re.match(r"-?\d", value)}


def names_left_out(node: Node, entities: tuple[str, ...]) -> int:
    """How many of the question's linked `entities` the program leaves out: neither a name it
    uses (`names_used`) nor named in one of them as a whole word ("natural sulfur" beside
    sulfur-34, whose name says it).

    >>> from koplc.kopl.ir import Find
    >>> names_left_out(Find(name="sulfur-34"), ("sulfur-34", "sulfur", "oxygen"))
    1
    """
    used = names_used(node)
    return sum(1 for name in set(entities) - used
               if not any(re.search(rf"(?<!\w){re.escape(name)}(?!\w)", u, re.IGNORECASE)
                          for u in used))


def _literals(node: Node) -> list[tuple[Node, str]]:
    """Each step of the program with its value literal as text ("" for a step with none)."""
    return [(n, str(getattr(n, field)) if (field := n.value_field()) else "")
            for _, n in node.walk()]


def values_used(node: Node, stated: tuple[str, ...]) -> tuple[int, int]:
    """How many of the numbers the question `stated` the program leaves out, and how many other
    values it disagrees with the question on: numbers it states beyond them (its value literals
    that are numbers, years or dates, counted whatever their unit or scale: the search restates
    "9,500,000" as "9.5 million"), a qualifier fact named by a number the question does not
    state where it states others (QueryAttrQualifier's value names the fact the qualifier is
    read from: one of the question's numbers counts as stated), and each value stated twice
    ("blue" eyes and "blue" skin).

    >>> from koplc.kopl.ir import FilterNum, FindAll, QueryAttrQualifier, Find
    >>> values_used(FilterNum(input=FindAll(), key="age", value="65", comparator=">"), ())
    (0, 1)
    >>> fact = QueryAttrQualifier(input=Find(name="Series 7"), key="viewers",
    ...                           value="15.9 million", qkey="episode")
    >>> [values_used(fact, said) for said in ((), ("15900000",), ("13450000",))]
    [(0, 0), (0, 0), (1, 1)]
    """
    said = {float(n) for n in stated}
    used = other = 0
    words = []
    for n, value in _literals(node):
        if not re.match(r"-?\d", value):
            words += [value] if value else []
        elif n.op != "QueryAttrQualifier":
            used += 1
        elif (read := quantities_in(value)) and float(read[0].value) in said:
            used += 1
        elif said:
            other += 1
    left_out = max(0, len(stated) - used)
    return left_out, other + max(0, used - len(stated)) + len(words) - len(set(words))


def hops(node: Node) -> int:
    """How many relations the program follows."""
    return sum(1 for _, n in node.walk() if n.op == "Relate")


_CHAIN = re.compile(r"\bENT((?:['’]s\b[\w\s-]*?)+)(?=[^\w\s'’-]|$)")


# "the home worlds of " before a possessive chain: one thing more of it ("which of" is none).
_THE_X_OF = re.compile(r"\bthe\s+[\w-]+(?:\s+[\w-]+)*?\s+of\s+(?:the\s+)?$", re.IGNORECASE)


def possessives(masked: str) -> int:
    """How many things a possessive chain from an entity names one after another ("ENT's
    maker's lineup": 2, each one step from the one before; "the home worlds of ENT's kind": 2,
    a thing "of" the chain one more); 0 without a chain of two.

    >>> possessives("the ENT's maker's lineup?"), possessives("What is ENT's genus?")
    (2, 0)
    >>> possessives("What are the home worlds of ENT's kind?"), possessives("Which of ENT's cars?")
    (2, 0)

    A chain said with "of" counts too (`_of_chain`): "the place of birth of the spouse of the
    child of ENT", 3.
    """
    found = _CHAIN.search(masked)
    said = len(re.findall(r"['’]s\b", found.group(1))) if found else 0
    said += bool(found) and _THE_X_OF.search(masked[:found.start()]) is not None
    said = max(said, _of_chain(masked))
    return said if said > 1 else 0


def _of_chain(masked: str) -> int:
    """How many things a chain of "the X of the Y of ENT" names, each after "the" ("the place
    of birth of the spouse of the child of ENT": 3; "the number of episodes of ENT": 1); a
    name asked for first is no thing ("the name of the director of ENT": 1).

    >>> _of_chain("What is the place of birth of the spouse of the child of ENT?")
    3
    >>> _of_chain("What is the name of the director of ENT?"), _of_chain("the number of episodes of ENT")
    (1, 1)
    """
    end = re.search(r"\s+of\s+(?:the\s+)?ENT\b", masked)
    if end is None:
        return 0
    parts = re.split(r"\s+of\s+the\s+", masked[:end.start()])
    first = re.search(r"\bthe\s+([\w-]+)", parts[0])
    later = parts[1:]
    if first is None or not all(0 < len(p.split()) <= 3 for p in later):
        return 0
    return len(later) + (singular(first.group(1).lower()) != "name")


def chain_as_of(masked: str) -> str:
    """The masked question with a possessive chain of two things or more said with "of", last
    thing first, as readings say a path ("ENT's son's wife" -> "wife of son of ENT"), so that
    `order` compares the hops in the order they are taken.

    >>> chain_as_of("what job does ENT's son's wife have?")
    'what job does wife have of son of ENT?'
    >>> chain_as_of("What is ENT's genus?")
    "What is ENT's genus?"
    """
    found = _CHAIN.search(masked)
    things = [t.strip() for t in re.split(r"['’]s\b", found.group(1))[1:]] if found else []
    if len(things) < 2 or not all(things):
        return masked
    said = " of ".join(reversed(things)) + " of ENT"
    return masked[:found.start()] + said + masked[found.end():]


def steps(node: Node) -> int:
    """How many things the program reads one after another from where it starts: each
    relation followed, and an attribute or a relation's fact read at the end."""
    last = node.op.startswith(("QueryAttr", "QueryRelation"))
    return hops(node) + last


def looped(node: Node) -> list[str]:
    """The relations the program follows and straight back, once each time."""
    return [n.relation for _, n in node.walk()
            if n.op == "Relate" and n.input.op == "Relate"
            and n.input.relation == n.relation and n.input.direction != n.direction]


# "the same order as ENT", "share a home world with ENT": what else shares a fact with a thing
_SHARED = re.compile(r"\bsame\b[\w\s'’-]*?\bas\b|\bshar(?:e|es|ed|ing)\s+(?!of\b)[\w\s'’-]*?"
                     r"\bwith\b", re.IGNORECASE)


def asks_shared(question: str) -> bool:
    """Whether the question asks for what shares a fact with a thing, which only a relation
    followed there and straight back reads ("who plays in the same club as ENT").

    >>> asks_shared("Who plays in the same club as ENT?")
    True
    >>> asks_shared("What share of ENT's decays?")
    False
    >>> asks_shared("Which seasons shared a broadcaster with the one ENT won?")
    True
    """
    return _SHARED.search(question) is not None


def unsaid_loops(node: Node, question: list[str], vectors, extra: ExtraWords = NO_EXTRA,
                 least: float = 0.6) -> int:
    """How many times the program follows a relation and straight back (the others that share
    it with an entity: "the films with the same director as ENT") where no question word is
    near a word of the relation (`least`, `order`'s cosine for a word matched) nor names what
    WordNet puts it right under ("kind" of species: `relatives.is_a`): a question that
    never says the relation asks nothing of what else shares it ("who is the pilot of ENT" is
    no "who made the planes of ENT's type"). The nouns before a compound name's head (`reached`)
    say nothing of it: "cars" says no "vehicle class", "starred" says "starred actors"."""
    loops = looped(node)
    if not loops or not question:
        return 0
    unsaid = 0
    for relation in loops:
        name = words(relation).lower()
        head = reached(name, None).split()
        named = [w for w in name.split() if w in head or not mostly_noun(w)]
        said = similarity(question, named, vectors, extra)
        unsaid += (said is None or float(said.max()) < least) and not any(
            is_a(n, w) for n in named for w in question)  # "ENT's kind": a species is a kind
    return unsaid


def graded_agrees(node: Node, graded: tuple[tuple[str, bool], ...], vectors) -> bool:
    """Whether the direction `node` picks or compares a key in agrees with the question's
    word of no known direction (`Cues.graded`, left to this when no known word says one):
    "cheapest" of a price is its smallest, since MiniLM puts "cheapest" nearer "lowest price"
    than "highest price"; "fastest" of a speed its largest. True where the node picks by no
    key, or the question has no such word of its kind (a superlative for SelectAmong, a
    comparative for SelectBetween and a number filter, either for ArgMax and ArgMin)."""
    picked = _picked(node)
    if picked is None:
        return True
    key, more, kinds = picked
    said = [word for word, superlative in graded if superlative in kinds]
    if not said:
        return True
    name = words(key)
    vector = vectors([said[0], f"highest {name}", f"lowest {name}"])
    return (float(vector[0] @ vector[1]) > float(vector[0] @ vector[2])) == more


def _picked(node: Node) -> tuple[str, bool, tuple[bool, ...]] | None:
    """(key, whether more of it, the kinds of word that may say so: True a superlative) of the
    op in `node` that picks or compares by a key's value, None when none does."""
    for _, n in node.walk():
        if n.op == "SelectAmong":
            return n.key, str(n.comparator) == "largest", (True,)
        if n.op == "SelectBetween":
            return n.key, str(n.comparator) == "greater", (False,)
        if n.op in ("ArgMax", "ArgMin"):
            return n.key, n.op == "ArgMax", (True, False)
        if n.op in ("FilterNum", "VerifyNum") and str(n.comparator) in (">", "<"):
            return n.key, str(n.comparator) == ">", (False,)
    return None
