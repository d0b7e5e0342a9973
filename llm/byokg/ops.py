"""What the BYOKG search may add to a program besides relations, read from the question's
English and values, never from a dataset's templates: a yes/no question verifies, a superlative
selects among a set, a comparative picks one of two named entities, numbers and the KB's
string values mentioned become filters, and a concept named in the question ("elements",
"halogen") starts a program of its own."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace

from koplc.kopl.execution.judge import find_names
from koplc.kopl.exploration.readings import words
from koplc.kopl.grounding.schema import profile_of
from koplc.kopl.ir import (
    And,
    ArgMax,
    ArgMin,
    Count,
    Exists,
    FilterStr,
    Find,
    Node,
    Or,
    QueryAttr,
    QueryAttrQualifier,
    QueryAttrUnderCondition,
    QueryName,
    QueryRelation,
    QueryRelationQualifier,
    Relate,
    SelectAmong,
    SelectBetween,
    VerifyStr,
)
from koplc.kopl.kb.memo import per_kb
from koplc.kopl.lexicon import (
    ARTICLES,
    AS_AMOUNTS,
    AS_TIMES,
    COMPARATIVE_ADJECTIVES,
    COMPARATIVES,
    CONTENT_STOP_WORDS,
    SUPERLATIVES,
    WH_KINDS,
    WHICH_QUESTION,
    alternatives,
    asked_noun,
    asked_part,
    asks_for_one,
    asks_how_many,
    asks_relatedness,
    graded,
    is_yes_no,
    plural,
    request,
    says_sameness,
    singular,
)
from koplc.kopl.naming import name_head
from koplc.kopl.quantities_in_text import DECADE, in_scale, ordinals_in, quantities_in
from koplc.kopl.registry import op_for, ops_of
from koplc.kopl.relatives import (
    classifies,
    comparative_of,
    kind_share,
    kinds_of,
    mostly_adjective,
    mostly_noun,
    says_relatedness,
)
from koplc.kopl.types import AmongOp, Comparator
from koplc.kopl.units import bare_number, sympy_unit
from koplc.kopl.values import DATE, YEAR

# The lexicon's words as alternatives of one pattern each.
_MOST, _LEAST = ("|".join(SUPERLATIVES[op]) for op in (AmongOp.LARGEST, AmongOp.SMALLEST))
_MORE, _LESS = ("|".join(COMPARATIVES[c]) for c in (Comparator.GT, Comparator.LT))
_EARLIER_TIME, _LATER_TIME = ("|".join(AS_TIMES[c]) for c in (Comparator.LT, Comparator.GT))
_OLDER, _YOUNGER = ("|".join(AS_AMOUNTS[c]) for c in (Comparator.GT, Comparator.LT))
_MORE_SAID, _LESS_SAID = ("|".join(COMPARATIVE_ADJECTIVES[c]) for c in (Comparator.GT,
                                                                          Comparator.LT))
_AMOUNT_COMPARATIVES = f"{_MORE_SAID}|{_LESS_SAID}"


@dataclass(frozen=True)
class Cues:
    """What the question's words ask for."""

    yes_no: bool
    relation: bool
    most: bool
    least: bool
    more: bool
    less: bool
    numbers: tuple[str, ...]
    text: str
    units: tuple[str, ...] = ()
    """The unit said with each of `numbers`, as written ("" where none is)."""
    how_many: bool = False
    earlier: bool = False
    """Whether the question asks for the earlier of times ("older", "oldest", "earliest");
    `later` the later ("newest", "more recently")."""
    later: bool = False
    who: bool = False
    """Whether the question opens by asking who (or whom, or whose): it asks for someone, not
    for a time, an amount or a count."""
    options: tuple[str, ...] = ()
    """The options an alternative question offers ("positive or negative")."""
    older: bool = False
    """Whether the question says "older" or "oldest": more of an amount (an age), where of a
    time it is `earlier`; `younger` likewise less."""
    younger: bool = False
    written: tuple[str, ...] = ()
    """Each of `numbers` as the question writes it ("9,500,000", "five", "second")."""
    one: bool = False
    """Whether a superlative picks one thing, its noun in the singular (`asks_for_one`)."""
    how_much: bool = False
    """Whether the question opens "how much": it asks for an amount, not for names."""
    where: bool = False
    """Whether the question opens "where is" (are, was, were): it asks for a place, not for a
    time, an amount or a count ("where did ENT place" may ask for a rank)."""
    someone: bool = False
    """Whether the question asks "which" or "what" of a noun that is mostly a person in
    WordNet ("which natives", "what contestants"), "which ones" ("which of them") or "which"
    of things in the plural ("which vessels"): it asks for people or things by name, not for
    any value."""
    noun: str | None = None
    """The noun a which- or what-question asks for (`lexicon.asked_noun`, of the question with
    its names left out); None for any other question ("describe the movie ENT" asks for no
    movie) and where it names none."""
    kinds: frozenset[str] = frozenset()
    """What WordNet says the question's common nouns are kinds of, one level up ("women":
    female, adult): a string value so named is stated ("Which women have black hair?": a sex
    of female). A lemma of one letter is an abbreviation (hydrogen's "H"), not a kind's name,
    and is left out."""
    classes: bool = False
    """Whether the question asks which or what kinds (sorts, types) of something
    (`relatives.classifies`): it asks for classes by name, not for an amount or a count."""
    when: bool = False
    """Whether the question asks for a time: it opens with "when", or its which- or
    what-question's noun is a time in most of its WordNet senses ("in what year"). Its "first"
    or "earlier" then says which time ("when was ENT first observed"), not which thing to pick."""
    sameness: bool = False
    """Whether the question asks for what shares a fact ("the same planet as ENT",
    `lexicon.says_sameness`): a relation followed there and straight back is said."""
    bounds: tuple[str, ...] = ()
    """The comparator the words right before each of `numbers` say ("under a kilo": "<"), ""
    where none do: a number so bound is compared by it alone ("under a kilo yet more than 12
    hours")."""
    graded: tuple[tuple[str, bool], ...] = ()
    """The comparatives and superlatives of no known direction ("cheaper", "fastest"), each
    with whether it is a superlative (`lexicon.graded`): both directions are tried, and the fit
    keeps the one the word reads as for the key (`fit.graded_agrees`)."""

    @property
    def stated(self) -> tuple[str, ...]:
        """The numbers the question states for sure: `numbers`, less a bare "one", which is as
        often a determiner or pronoun ("one atom", "which one").

        >>> cues("Which bakers won one episode in 2015?").stated
        ('2015',)
        """
        return tuple(n for n, w in zip(self.numbers, self.written, strict=True)
                     if w.lower() != "one")

    @property
    def graded_most(self) -> bool:
        """Whether a superlative of no known direction picks, where no known one does."""
        return any(most for _, most in self.graded) and not (
            self.most or self.least or self.older or self.younger)

    @property
    def graded_more(self) -> bool:
        """Whether a comparative of no known direction compares, where no known one does."""
        return any(not most for _, most in self.graded) and not (
            self.more or self.less or self.older or self.younger)

    @property
    def comparators(self) -> tuple[str, ...]:
        """The comparators a stated time is compared by: those the words say, else "="."""
        said = (">",) * self.more + ("<",) * self.less
        return said or ("=",)

    @property
    def amount_comparators(self) -> tuple[str, ...]:
        """The comparators a stated amount is compared by: `comparators`, with "older" as more
        and "younger" as less."""
        said = (">",) * (self.more or self.older) + ("<",) * (self.less or self.younger)
        return said or ((">", "<") if self.graded_more else ("=",))

    @property
    def extremes(self) -> tuple[str, ...]:
        """The SelectAmong comparators the question's superlatives (or "older", "younger") ask."""
        if self.graded_most:
            return ("largest", "smallest")
        return ("largest",) * (self.most or self.older) + ("smallest",) * (self.least
                                                                          or self.younger)


def cues(question: str, spans: tuple[tuple[int, int], ...] = ()) -> Cues:
    """The question's cues; a word or number said inside one of the entity `spans` is part of
    a name ("series 5", "carbon-14", "the first series"), not a cue, as is a number joined by a
    hyphen to the word before it, a name the KB may lack ("unobtainium-300").

    >>> c = cues("Which elements have a melting point above 3000 kelvin?")
    >>> c.yes_no, c.most or c.least, c.comparators, c.numbers, c.units
    (False, False, ('>',), ('3000',), ('kelvin',))
    >>> cues("Which cities have more than 100,000,000 or ten million people?").numbers
    ('100000000', '10000000')
    >>> cues("Who was eliminated in the second episode?").numbers
    ('2',)
    >>> cues("Who won the series after series 5 in 2015?", ((25, 33),)).numbers
    ('2015',)
    >>> cues("What is unobtainium-300's half-life?").numbers
    ()
    >>> cues("Who was born more than 500 years before the battle?").comparators
    ('>',)
    >>> cues("Does N905FJ predate 1990?").comparators
    ('<',)
    >>> cues("Which has more horses under the hood, A or B?").comparators
    ('>',)
    """
    unnamed = question  # what the question says outside its names ("the first series")
    for start, end in spans:
        unnamed = unnamed[:start] + " " * (end - start) + unnamed[end:]

    outside = " ".join(unnamed.split())  # "Which Alaska Airlines jets": "Which jets"

    # a verb that says a comparative ("predate": earlier) is read as if the comparative were said
    compared = " ".join(filter(None, map(comparative_of, re.findall(r"[a-z]+", unnamed.lower()))))

    def has(pattern: str) -> bool:
        return any(re.search(rf"\b(?:{pattern})\b", text, re.IGNORECASE) is not None
                   for text in (unnamed, compared))

    amounts = quantities_in(question)
    said = sorted((q for q in (*amounts, *ordinals_in(question))  # "the first episode": 1
                   if not any(a.start < q.end and q.start < a.end for a in amounts if a != q)
                   and not any(start < q.end and q.start < end for start, end in spans)
                   and not re.search(r"[A-Za-z]-$", question[:q.start])),  # "krypton-85"
                  key=lambda q: q.start)
    more, less = has(_MORE), has(_LESS)
    if more and less:  # "more horses under the hood": an adjective compares, "under" may place
        more_said, less_said = has(_MORE_SAID), has(_LESS_SAID)
        if more_said != less_said:
            more, less = more_said, less_said
    bounds = tuple(next((c.value for c in (Comparator.GT, Comparator.LT)
                         if _RIGHT_BEFORE[c].search(question[:q.start])
                         or _RIGHT_BEFORE[c].search(_verb_read(question[:q.start]))), "")
                   for q in said)
    bound = {Comparator(b) for b in bounds if b}
    if bound:  # "more than 500 years before": the words right before a number compare it
        more, less = Comparator.GT in bound, Comparator.LT in bound
    said, bounds = _within_decades(said, bounds)
    asked = asked_part(question)  # "Tell me where X was born": "where X was born"
    return Cues(is_yes_no(question), asks_relatedness(unnamed) or says_relatedness(unnamed),
                has(_MOST), has(_LEAST), more, less,
                tuple(q.value for q in said), question.lower(), tuple(q.unit for q in said),
                asks_how_many(question), earlier=has(_EARLIER_TIME), later=has(_LATER_TIME),
                who=_WHO.match(asked) is not None, options=alternatives(question),
                someone=_asks_for_people(outside) or _WHICH_ONES.search(outside) is not None
                or _asks_for_things(outside),
                noun=asked_noun(outside) if WHICH_QUESTION.match(asked) and not asks_how_many(
                    question) else None,
                older=has(_OLDER), younger=has(_YOUNGER),
                written=tuple(question[q.start:q.end] for q in said),
                one=(has(_MOST) or has(_LEAST)) and asks_for_one(outside),
                graded=graded(unnamed), where=_WHERE.match(question) is not None or (
                    asked != question and asked[:5].lower() == "where"),
                how_much=_HOW_MUCH.match(asked) is not None,
                bounds=bounds, sameness=says_sameness(question), when=_asks_for_time(question),
                classes=any(classifies(w) for w in _CLASSES_OF.findall(question.lower())),
                kinds=frozenset(k for w in re.findall(r"\b[a-z]{3,}\b", outside)
                                if w not in CONTENT_STOP_WORDS for k in kinds_of(w, 1)
                                if len(k) > 1))


def _within_decades(said: list, bounds: tuple[str, ...]) -> tuple[list, tuple[str, ...]]:
    """The numbers said, each decade ("the 1970s", "in their twenties") as the two it lies
    between (above 1969, below 1980), with the comparators right before them."""
    numbers, compared = [], []
    for quantity, bound in zip(said, bounds, strict=True):
        if quantity.unit == DECADE:
            first = int(quantity.value)
            numbers += [replace(quantity, value=str(first - 1), unit=""),
                        replace(quantity, value=str(first + 10), unit="")]
            compared += [Comparator.GT.value, Comparator.LT.value]
        else:
            numbers.append(quantity)
            compared.append(bound)
    return numbers, tuple(compared)


# A comparative said right before a number ("more than", "under"), which compares that number.
_RIGHT_BEFORE = {c: re.compile(rf"\b(?:{'|'.join(COMPARATIVES[c])})(?:\s+than)?\s+$",
                               re.IGNORECASE) for c in (Comparator.GT, Comparator.LT)}


def _verb_read(text: str) -> str:
    """`text` with its last word read as the comparative it says (`relatives.comparative_of`:
    "does it predate " as "does it earlier "), where it says one."""
    last = re.search(r"([a-z]+)\s+$", text, re.IGNORECASE)
    said = last and comparative_of(last.group(1))
    return f"{text[:last.start()]}{said} " if said else text


# The noun a which- or what-question asks "of" something ("what kinds of engines").
_CLASSES_OF = re.compile(r"\b(?:which|what)\s+([a-z]+)\s+of\b")


# A question that opens with who, whom or whose ("Who's", "To whom").
_WHO = re.compile(r"\s*(?:\w+\s+)?(?:who|whom|whose)\b", re.IGNORECASE)
_WHEN = re.compile(r"\s*(?:\w+\s+)?when\b", re.IGNORECASE)
_WHERE = re.compile(r"\s*where\s+(?:is|are|was|were)\b", re.IGNORECASE)
_HOW_MUCH = re.compile(r"\s*(?:\w+\s+)?how\s+much\b", re.IGNORECASE)


def _said(text: str, phrase: str) -> bool:
    """Whether `text` says `phrase` as a word of its own: not inside a word, nor as the "s" of
    a possessive ("unobtainium-300's" says no "S")."""
    return re.search(rf"(?<![\w'’]){re.escape(phrase.lower())}(?!\w)", text) is not None


@per_kb()
def _key_facts(kb) -> dict[str, tuple[str, str, frozenset[str]]]:
    """Per attribute key: its type, most common unit, and its string values."""
    return {key: _facts_of(kb, key, (value for facts in by_node.values()
                                     for name, value, _ in facts if name == key))
            for key, by_node in kb.attr_index.items()}


def _facts_of(kb, key: str, values) -> tuple[str, str, frozenset[str]]:
    """A key's type, the most common unit of its quantity `values`, and its string values."""
    units, strings = Counter(), set()
    for value in values:
        if value.type == "quantity":
            units[value.unit] += 1
        elif value.type == "string":
            strings.add(str(value.value))
    unit = units.most_common(1)[0][0] if units else ""
    return kb.key_type.get(key, ""), unit, frozenset(strings)


_PICKS = ("ArgMax", "ArgMin")


def answer_kind(cue: Cues, candidates: list, node_of, kb) -> list:
    """The candidates whose last op gives what the question's form asks: a yes/no question a
    Verify, a superlative a SelectAmong, SelectBetween or the names of an ArgMax or ArgMin, a
    comparative a SelectBetween or the names of the ArgMax or ArgMin of two (of two times only,
    when its one comparative is of time: "which is newer"), when there are such candidates; a
    question asking who or where something is, no count and no time or amount of `kb`'s; one
    asking which people (`Cues.someone`), no count and no value; one asking which kinds of
    something (`Cues.classes`), no count and no time or amount; and a how-many question that
    says a quantity key of the KB and states no number, that key's value over a count."""
    if (cue.who or cue.where) and not cue.yes_no:
        candidates = [c for c in candidates if not _time_or_amount(node_of(c), kb)] or candidates
    if cue.classes and not (cue.yes_no or cue.how_many):  # classes by name: no amount
        candidates = [c for c in candidates if node_of(c).op != "Count"
                      and not _time_or_amount(node_of(c), kb)] or candidates
    if cue.how_much and not cue.yes_no:  # an amount: a value, not names
        candidates = [c for c in candidates if _valued(node_of(c))] or candidates
    if cue.someone and not cue.yes_no:  # people (things) by name: no value, no count
        candidates = [c for c in candidates if node_of(c).op != "Count"
                      and not node_of(c).op.startswith("QueryAttr")] or candidates
    if cue.how_many and not cue.numbers and any(node_of(c).op == "QueryAttr"
                                                for c in candidates):
        # the search reads a value on a how-many question only where the question says its
        # key or unit ("how many engines does N854NW have"): that value, not a count, unless
        # the question states a number, which constrains what it counts ("have four engines")
        candidates = [c for c in candidates if node_of(c).op != "Count"]
    candidates = _qualifier_said_or_not(cue.text, candidates, node_of)
    aged = cue.older or cue.younger  # "older than 65" states an age; "the oldest" ranks
    # "which is newer": a comparative of time alone compares times, not amounts
    timed = (cue.earlier or cue.later) and not aged and not cue.numbers and not re.search(
        rf"\b(?:{_AMOUNT_COMPARATIVES})\b", cue.text)
    wanted = [op.__name__ for op in ops_of("verify", "exists")] if cue.yes_no else (
        ("SelectAmong", "SelectBetween", *_PICKS) if cue.most or cue.least or cue.graded_most
        or (aged and not cue.numbers) else (
            ("SelectBetween", *_PICKS) if (cue.more or cue.less or cue.graded_more)
            and not timed else (_PICKS if (cue.earlier or cue.later) and not aged
                                and not cue.when else ())))
    kept = [c for c in candidates if _last_op(node_of(c)) in wanted]
    return kept or candidates


def picked_one(cue: Cues, candidates: list, answers_of) -> list:
    """Of the candidates, those that give one answer, when the question picks one thing by a
    superlative (`Cues.one`: "the most expensive car", not a tie of eight) and there are such."""
    kept = [c for c in candidates if len(answers_of(c)) == 1] if cue.one else []
    return kept or candidates


def offered(cue: Cues, candidates: list, answers_of) -> list:
    """Of the candidates, those whose answer says an option the alternative question offers
    ("is its parity positive or negative": one answering "positive"), when there are such."""
    wanted = {option.lower() for option in cue.options}
    kept = [c for c in candidates if any(wanted & set(re.findall(r"[\w'-]+", str(a).lower()))
                                         for a in answers_of(c))] if wanted else []
    return kept or candidates


def _qualifier_said_or_not(text: str, candidates: list, node_of) -> list:
    """Of an attribute's value and a qualifier's value of the same attribute, both answering,
    the one the question asks for: the qualifier's when it says the qualifier's name ("how
    uncertain is the natural abundance of lithium-6"), else the attribute's ("how much does an
    atom of iron-56 weigh" asks no uncertainty)."""
    def attribute(node: Node) -> tuple[str, str]:
        return node.input.model_dump_json(), node.key

    nodes = [node_of(c) for c in candidates]
    plain = {attribute(n) for n in nodes if n.op == "QueryAttr"}
    qualified = [(n, says_word(text, n.qkey)) for n in nodes
                 if n.op == "QueryAttrQualifier" and attribute(n) in plain]
    unsaid = {id(n) for n, said in qualified if not said}
    asked = {attribute(n) for n, said in qualified if said}
    kept = [c for c, n in zip(candidates, nodes, strict=True) if id(n) not in unsaid
            and not (n.op == "QueryAttr" and attribute(n) in asked)]
    return kept or candidates


def says_word(text: str, name: str) -> bool:
    """Whether the question (lower case) says a content word of the schema name `name`, or a
    word of the same stem: one of the two begins with the other, six letters or more
    ("uncertain" for "uncertainty").

    >>> says_word("how uncertain is the abundance of ent?", "uncertainty")
    True
    >>> says_word("how much does ent weigh?", "uncertainty")
    False
    """
    said = re.findall(r"[a-z]+", text)
    wanted = [w for w in words(name).lower().split() if len(w) > 2]
    return any(t == w or (min(len(t), len(w)) >= 6 and (t.startswith(w) or w.startswith(t)))
               for w in wanted for t in said)


# "Which ones", "which one", "which of them (these, those)": things by name, as people are.
_WHICH_ONES = re.compile(r"\bwhich\s+(?:ones?|of\s+(?:them|these|those))\b", re.IGNORECASE)


def _asks_for_people(question: str) -> bool:
    """Whether a which- or what-question's noun is a person in most of its WordNet senses."""
    noun = None if _WHO.match(question) or asks_how_many(question) else asked_noun(question)
    return noun is not None and noun not in WH_KINDS and (
        kind_share(noun, WH_KINDS["person"]) or 0.0) >= 0.5


_WHICH_NOUN = re.compile(r"^\W*which\s+([a-z]+)\b", re.IGNORECASE)


def _asks_for_things(question: str) -> bool:
    """Whether the question opens "which", or a request ("List", "Tell me which"), and a noun
    in the plural that is no time, past articles and adjectives: it asks for things by name
    ("Which vessels does ENT own?"), not for a value of theirs.

    >>> [_asks_for_things(q) for q in ("Which vessels does ENT own?", "Which series aired?",
    ...     "Which years saw a flood?", "In which ports is ENT?", "Tell me which ships sailed",
    ...     "List the planes built in 1979.", "Tell me the make of ENT.")]
    [True, False, False, False, True, True, False]
    """
    which, asked = _WHICH_NOUN.match(question), request(question)
    if which is None and asked is None:
        return False
    rest = question[which.start(1):] if which else question[asked.end(1):]
    said = re.findall(r"[a-z]+(?:-[a-z]+)*", rest.lower())
    while said and (said[0] in ("me", "us", "which", "all", "every") or said[0] in ARTICLES
                    or "-" in said[0] or mostly_adjective(said[0])):
        said = said[1:]  # "Tell me which seasons ...", "which twin-engined planes"
    word = said[0] if said else ""
    return (bool(word) and singular(word) != word and mostly_noun(singular(word))
            and not _asks_for_time(question))


def _asks_for_time(question: str) -> bool:
    """Whether the question opens with "when" or its which- or what-question's noun is a time
    in most of its WordNet senses.

    >>> [_asks_for_time(q) for q in ("When did ENT open?", "In what year was ENT found?",
    ...                              "Which isotope was first found?")]
    [True, True, False]
    """
    if _WHEN.match(question):
        return True
    noun = None if asks_how_many(question) else asked_noun(question)
    return noun is not None and (kind_share(noun, WH_KINDS["year date"]) or 0.0) >= 0.5


def of_kind_asked(cue: Cues, candidates: list, node_of, answers_of, kb) -> list:
    """Of the candidates, those that name things of the kind a which-question asks for, when
    `kb` holds such things and some candidate names them ("Which meat-eating animals weigh
    under five kilos?": animals, not their diets; no value, no count): the kind is one of its
    concepts, or one WordNet puts a concept under ("animals" of a KB of mammals), and not an
    attribute's name, nor its first or last word ("which year": a value)."""
    if cue.yes_no or cue.noun is None:
        return candidates
    kinds = _kinds(kb)
    if not any(cue.noun in k for k in kinds.values()):
        return candidates
    kept = [c for c in candidates if node_of(c).op == "QueryName"
            and _names_of_kind(answers_of(c), cue.noun, kb, kinds)]
    return kept or candidates


def _names_of_kind(names, noun: str, kb, kinds: dict[int, frozenset[str]]) -> bool:
    """Whether an entity of one of the first names is of a concept `kinds` says is a `noun`."""
    return any(noun in kinds.get(c, ()) for name in list(names)[:_CHECKED]
               for node in kb.name_to_nodes.get(name, ()) for c in kb.ancestors(node))


_CHECKED = 20  # names of an answer looked at: a bound on work, not tuned


@per_kb()
def _kinds(kb) -> dict[int, frozenset[str]]:
    """Each concept of `kb` -> the singular nouns that name its kind (`of_kind_asked`), once
    per KB."""
    keys = [words(key).lower().split() for key in kb.attr_index]
    keyed = {w for said in keys if said for w in (" ".join(said), said[0], said[-1])}
    found = {}
    for concept in range(kb.n_concepts):
        said = [w.lower() for w in name_head(kb.names[concept])]
        heads = {singular(w) for w in (" ".join(said), said[-1])} if said else set()
        found[concept] = frozenset((heads | {k for h in heads for k in kinds_of(h, 3)}) - keyed)
    return found


def _time_or_amount(node: Node, kb) -> bool:
    """Whether `node` answers a count, or a value of a date, year or quantity key (a
    qualifier's, of an attribute or a relation fact)."""
    if node.op == "Count":
        return True
    if not _valued(node):
        return False
    key = node.qkey if node.op in _QUALIFIER_QUERIES else node.key
    return kb.key_type.get(key) in ("date", "quantity")


_QUALIFIER_QUERIES = ("QueryAttrQualifier", "QueryRelationQualifier")


def _valued(node: Node) -> bool:
    """Whether `node` answers a value: an attribute's, a qualifier's or a count."""
    return node.op.startswith("QueryAttr") or node.op in (*_QUALIFIER_QUERIES, "Count")


def _last_op(node: Node) -> str:
    """The op that decides what `node` answers: an ArgMax or ArgMin it reads on from (its
    names, an attribute, a relation), else its own."""
    picked = [n.op for _, n in node.walk() if n.op in _PICKS]
    return picked[0] if picked else node.op


def _time_picks(cue: Cues) -> list[type[Node]]:
    """ArgMin when the question puts the earlier time first, ArgMax the later."""
    return [ArgMin] * cue.earlier + [ArgMax] * cue.later


def measure_said(kb, key: str, question: str) -> bool:
    """Whether a how-many question asks for `key`'s value: it counts the key's usual unit or
    one that converts to it ("how many kelvin", "how many days" of a half-life in years), it
    says the key itself, in the singular or the plural ("how many seats"), or asks how many of
    a unit of measure that the key's name holds ("how many years" of a birth year stored with
    no unit)."""
    unit, text = _key_facts(kb).get(key, ("", "", None))[1], question.lower()
    asked = _HOW_MANY_OF.search(text)
    if unit and unit != "1" and asked and _same_dimension(singular(asked.group(1)), unit):
        return True  # "how many hours" of a key in hours, "how many days" of one in years
    phrase = words(key).lower()
    if kb.key_type.get(key) != "quantity":
        return False
    if any(_said(text, form) for form in {phrase, singular(phrase), plural(phrase)}):
        return True
    return asked is not None and sympy_unit(asked.group(1)) is not None \
        and singular(asked.group(1)) in phrase.split()


def in_unit_asked(kb, node: Node, asked: str | None) -> bool:
    """Whether `node` answers a value kept in the unit a what-question asks for, or in one
    that converts to it ("what percent": a branching ratio in percent; "what temperature"
    names no unit)."""
    if not asked or not node.op.startswith(("QueryAttr", "QueryRelationQualifier")):
        return False
    qualifier = node.op in ("QueryAttrQualifier", "QueryRelationQualifier")
    key = node.qkey if qualifier else node.key
    facts = _qualifier_facts(kb)[0] if qualifier else _key_facts(kb)
    unit = facts.get(key, ("", "", None))[1]
    return bool(unit) and unit != "1" and _same_dimension(singular(asked), unit)


def _same_dimension(said: str, unit: str) -> bool:
    """Whether a word a how-many question counts is `unit` or a unit that converts to it."""
    from koplc.kopl.units import factor

    return said == unit.lower() or factor(said, unit) is not None


# The noun a how-many question counts ("how many years ...").
_HOW_MANY_OF = re.compile(r"\bhow\s+many\s+([a-z]+)")


def _quantity(number: str, unit: str) -> str:
    return f"{number} {unit}" if unit and unit != "1" else number


def _unit_of(said: str, usual: str) -> str:
    """The unit a stated number is in: the one said with it when it converts to the key's
    `usual` unit ("1,000 days" for a half-life in years), else the usual one."""
    from koplc.kopl.units import factor

    if said and usual and usual != "1" and factor(said, usual) is not None:
        return said
    return usual


def _stated(kind: str, unit: str, strings: frozenset[str], cue: Cues,
            span: tuple[float, float] | None = None, key: str = "") -> Iterator[tuple[str, str]]:
    """The (value, comparator) pairs the question states for a key of `kind`: a number in the
    key's usual unit for a quantity, a year for a date, each with the comparators its words
    give, or with the one the words right before it say (`Cues.bounds`); in the unit said with
    it where that converts to the key's; for a key kept as bare numbers within `span`,
    restated in the SI unit that brings it within, `units.bare_number`: "2.5 metres" of
    heights 66 to 264 is 250); a string value of the key that the question says as a word
    (in the plural too: "goalkeepers"), or as a number ("zero spin": "0"), or "none" where it
    says there is no such thing as the `key` names ("no hair" of a hair colour) (compared by
    "=")."""
    if kind == "quantity":
        for number, said, bound in zip(cue.numbers, cue.units or ("",) * len(cue.numbers),
                                       cue.bounds or ("",) * len(cue.numbers), strict=True):
            if said and span is not None and unit in ("", "1"):
                bare = bare_number(float(number), said, *span)
                number = number if bare is None else f"{bare:g}"
            elif not said:  # "9,500,000 viewers" of a key kept in millions
                number = in_scale(number, unit) or number
            for comparator in (bound,) if bound else cue.amount_comparators:
                yield _quantity(number, _unit_of(said, unit)), comparator
    elif kind == "date":
        for number, bound in zip(cue.numbers, cue.bounds or ("",) * len(cue.numbers),
                                 strict=True):
            if re.fullmatch(r"\d{3,4}", number):
                for comparator in (bound,) if bound else cue.comparators:
                    yield number, comparator
    elif kind == "string":
        for value in sorted(s for s in strings
                            if s and (_said(cue.text, s) or _said(cue.text, plural(s))
                                      or s.lower() in cue.kinds
                                      or s in cue.numbers
                                      or (s.lower() == "none" and _says_none(cue.text, key)))):
            yield value, "="


def strings_left_out(node: Node, kb, cue: Cues) -> int:
    """How many of the string values the question states (`_stated`: said as words, as what a
    noun is a kind of, as a number, as "no" such thing) no filter or check of `node` uses:
    "Which women have black hair?" states female and black."""
    stated = _stated_strings(kb, cue)
    if not stated:
        return 0
    used = {str(getattr(n, field)) for _, n in node.walk() if (field := n.value_field())}
    return len(stated - used)


@per_kb()
def _stated_strings(kb, cue: Cues) -> frozenset[str]:
    """The string values the question states (`strings_left_out`), once a question."""
    return frozenset(value for key, (kind, unit, strings) in _key_facts(kb).items()
                     if kind == "string" for value, _ in _stated(kind, unit, strings, cue,
                                                                  key=key))


def _says_none(text: str, key: str) -> bool:
    """Whether the question says there is no such thing as a word of `key` names: "no hair",
    "without any hair" of a hair colour."""
    named = {singular(w.lower()) for w in name_head(key)} if key else set()
    return any(singular(m.group(1)) in named
               for m in re.finditer(r"\b(?:no|without(?:\s+any)?)\s+([a-z]+)", text.lower()))


def _op(family: str, key_type: str) -> type[Node]:
    """The filter or verify for a key of the KB's type (a date key's value is stated as a year)."""
    return op_for(family, YEAR if key_type == DATE else key_type)


def filters(node: Node, kb, cue: Cues) -> Iterator[Node]:
    """The attribute filters of `node` whose values the question states (`_stated`); and a
    decade's two ("in their sixties": above 59, then below 70) as one step, since the search
    may not keep the first alone long enough to add the second."""
    decades = _decade_pairs(cue)
    for key, (kind, unit, strings) in sorted(_key_facts(kb).items()):
        made = {}
        for value, comparator in _stated(kind, unit, strings, cue, profile_of(kb).span(key), key):
            if kind == "string":
                yield FilterStr(input=node, key=key, value=value)
                continue
            made[value, comparator] = _op("filter", kind)
            yield made[value, comparator](input=node, key=key, value=value,
                                          comparator=comparator)
        for low, high in decades:
            if (low, ">") in made and (high, "<") in made:
                yield made[high, "<"](input=made[low, ">"](input=node, key=key, value=low,
                                                          comparator=">"),
                                      key=key, value=high, comparator="<")


def _decade_pairs(cue: Cues) -> set[tuple[str, str]]:
    """The (above, below) numbers that stand for one decade the question says (the same words
    written for both, `_within_decades`)."""
    said = list(zip(cue.numbers, cue.written, cue.bounds, strict=False))
    return {(a, b) for (a, wa, ca), (b, wb, cb) in zip(said, said[1:], strict=False)
            if wa == wb and (ca, cb) == (">", "<")}


# "who is the tallest player", "which is the largest", "what's the most expensive car": the
# thing a superlative picks is what is asked, not something to read on from ("what position
# does the tallest player play", "who directed the longest film")
_PICKED_ITSELF = re.compile(r"\b(?:who|what|which)(?:\s+(?!(?:is|are|was|were)\b)[a-z-]+)?"
                            r"(?:\s+(?:is|are|was|were)|['’]s)\s+(?:the\s+)?"
                            r"(?:most|least|[a-z]+est)\b", re.IGNORECASE)


# "which weighs the least", "who won the most technicals", "which isotope of X has the longest
# half-life": a word, then the superlative alone or with a word of the key's name
_NOT_VERB = r"(?!(?:does|do|did|the|an?)\b)[a-z'-]+"
_VERB_MOST = re.compile(rf"\b(?:who|what|which)\b[^?]*?\s{_NOT_VERB}\s+(?:the\s+)?"
                        r"(?:most|least|[a-z]+est)\b(?:\s+([a-z-]+))?", re.IGNORECASE)


def _picked_itself(text: str, facts: dict) -> bool:
    """Whether the thing the question's superlative picks is what it asks for ("who is the
    tallest player", "which weighs the least", "who won the most technicals"), not something
    to read on from ("what position does the tallest player play", "who directed the longest
    film")."""
    if _PICKED_ITSELF.search(text):
        return True
    found = _VERB_MOST.search(text)
    if not found:
        return False
    after = found.group(1)
    return after is None or singular(after.lower().split("-")[0]) in {
        singular(w) for key in facts for w in words(key).lower().split()}


def finishers(node: Node, kb, cue: Cues) -> Iterator[Node]:
    """Finishing ops beyond names, count and attribute: SelectAmong a set by a quantity when the
    question has a superlative (and, where the question reads on from the thing it picks, the
    ArgMax or ArgMin: "the position of the tallest player"), the names of its ArgMin or ArgMax
    by a date or year when it asks for the earliest or latest; a Verify of an attribute by a
    value the question states (`_stated`) when it is a yes/no question."""
    facts = _key_facts(kb)
    extremes = cue.extremes
    picked = any(n.op in _PICKS for _, n in node.walk())  # one superlative a question
    reads_on = not picked and not _picked_itself(cue.text, facts)
    if extremes or cue.earlier or cue.later:
        for key, (kind, _, _) in sorted(facts.items()):
            if kind == "quantity" and not picked:
                for comparator in extremes:
                    yield SelectAmong(input=node, key=key, comparator=comparator)
                    if reads_on:  # the thing picked, to read on from
                        yield (ArgMax if comparator == "largest" else ArgMin)(input=node, key=key)
            elif kind in (YEAR, DATE):
                for pick in _time_picks(cue):
                    yield QueryName(input=pick(input=node, key=key))
    if cue.yes_no:
        for key, (kind, unit, strings) in sorted(facts.items()):
            attr = QueryAttr(input=node, key=key)
            stated = list(_stated(kind, unit, strings, cue, profile_of(kb).span(key), key))
            for value, comparator in stated:
                if kind == "string":
                    yield VerifyStr(input=attr, value=value)
                else:
                    yield _op("verify", kind)(input=attr, value=value, comparator=comparator)
            truth = _truth(strings) if kind == "string" and not stated else None
            if truth is not None:  # "is it offered with a manual gearbox": whether it is true
                yield VerifyStr(input=attr, value=truth)


def _truth(strings: frozenset[str]) -> str | None:
    """The value of a key of two truth values ("true" and "false", "yes" and "no") that says
    it holds; None for any other key."""
    pair = {s.lower(): s for s in strings}
    for said, other in (("true", "false"), ("yes", "no")):
        if set(pair) == {said, other}:
            return pair[said]
    return None


def meetings(node: Node, kb, names: tuple[str, ...], cue: Cues) -> Iterator[Node]:
    """On a yes/no question, whether the entity set `node` holds another entity the question
    names ("is Han Solo from Tatooine": do Han Solo's homeworlds hold Tatooine). Not where the
    relation just followed never reaches an entity of the other's concepts in the KB (a
    plane's model is never a manufacturer, so "is N14228 a Boeing" does not ask that), nor
    where the other has no fact of that relation at all: the KB cannot tell ("is the owl monkey
    near threatened", of a mammal with no conservation status, is not "no")."""
    if not cue.yes_no or node.op == "Find":
        return
    used = set(find_names(node))
    related = node.op == "Relate"
    reached = _reached_concepts(kb, node.relation, str(node.direction)) if related else frozenset()
    for name in names:
        kinds = _concepts_named(kb, name)
        if (name not in used and (not reached or not kinds or reached & kinds)
                and (not related or _has_facts(kb, name, node.relation, str(node.direction)))):
            yield Exists(input=And(left=node, right=Find(name=name)))


def _has_facts(kb, name: str, relation: str, direction: str) -> bool:
    """Whether an entity called `name` is among those that `relation` followed in `direction`
    could reach: it has a fact of the relation on the side those have."""
    table = (kb.in_objects if direction == "forward" else kb.out_objects).get(relation, {})
    return any(table.get(n) for n in kb.name_to_nodes.get(name, ()))


@per_kb(maxsize=1024)
def _reached_concepts(kb, relation: str, direction: str) -> frozenset[int]:
    """The concepts of every entity the relation reaches in `direction`, over the whole KB."""
    table = (kb.out_objects if direction == "forward" else kb.in_objects).get(relation, {})
    reached = {o for objects in table.values() for o in objects}
    return frozenset(c for o in reached for c in kb.ancestors(o))


@per_kb(maxsize=1024)
def _concepts_named(kb, name: str) -> frozenset[int]:
    """The concepts of the entities called `name` (the beam asks at every step)."""
    return frozenset(c for n in kb.name_to_nodes.get(name, ()) for c in kb.ancestors(n))


def pair_ops(left: Node, right: Node, kb, cue: Cues) -> Iterator[Node]:
    """What two named entities answer together: the relation between them when the question
    asks how they are related, which has the greater or lesser quantity when it compares, and
    which has the earlier or later date or year ("which is older, A or B"); on a yes/no
    question, whether the first is that one ("is Luke heavier than Vader": is Luke among the
    ArgMax of the two by mass)."""
    if cue.relation:
        yield QueryRelation(left=left, right=right)
    both = Or(left=left, right=right)
    for key, (kind, _, _) in sorted(_key_facts(kb).items()):
        either = cue.graded_more or cue.graded_most
        picks = ([ArgMax] * (cue.more or cue.most or cue.older or either)
                 + [ArgMin] * (cue.less or cue.least or cue.younger or either)
                 if kind == "quantity" else _time_picks(cue) if kind in (YEAR, DATE) else [])
        for pick in picks:
            picked = pick(input=both, key=key)
            if cue.yes_no:  # whether the first is the one picked
                yield Exists(input=And(left=left, right=picked))
            elif kind == "quantity":
                yield SelectBetween(left=left, right=right, key=key,
                                    comparator="greater" if pick is ArgMax else "less")
            else:
                yield QueryName(input=picked)


@per_kb()
def _qualifier_facts(kb) -> tuple[dict[str, tuple[str, str, frozenset[str]]],
                                  dict[str, frozenset[str]]]:
    """Per qualifier key, as `_key_facts`; and per relation, the qualifier keys its facts
    carry."""
    values: dict[str, list] = {}
    by_relation: dict[str, set[str]] = {}
    for node in kb.all_nodes:
        for fact in (*kb.attributes[node], *kb.relations[node]):
            for qkey, qvalues in fact[-1].items():
                values.setdefault(qkey, []).extend(qvalues)
                if len(fact) == 5:
                    by_relation.setdefault(fact[1], set()).add(qkey)
    return ({qkey: _facts_of(kb, qkey, said) for qkey, said in values.items()},
            {r: frozenset(q) for r, q in by_relation.items()})


def qualifier_filters(node: Node, kb, cue: Cues) -> Iterator[Node]:
    """The QFilters of a relation's facts (`node` a Relate) by a value the question states for
    one of the qualifier keys those facts carry ("isotopes discovered in 1929")."""
    keys, by_relation = _qualifier_facts(kb)
    if node.op != "Relate" or not keys:
        return
    for qkey in sorted(by_relation.get(node.relation, ())):
        kind, unit, strings = keys[qkey]
        for value, comparator in _stated(kind, unit, strings, cue, key=qkey):
            family = "qfilter"
            yield (op_for(family, "string")(input=node, qkey=qkey, qvalue=value)
                   if kind == "string" else
                   op_for(family, YEAR if kind == DATE else kind)(
                       input=node, qkey=qkey, qvalue=value, comparator=comparator))


def qualifier_queries(node: Node, kb, cue: Cues) -> Iterator[Node]:
    """What the qualifiers of one named entity's facts answer: a qualifier's value
    (QueryAttrQualifier), an attribute's value under a qualifier value the question says
    (QueryAttrUnderCondition: "potassium-40's branching ratio for beta-minus decay"), and a
    qualifier of its facts of one relation, whatever they reach (QueryRelationQualifier of the
    entity and its Relate: "in which episode was X eliminated", the series unsaid)."""
    if node.op != "Find" or not _qualifier_facts(kb)[0]:
        return
    seen = set()
    for entity in kb.name_to_nodes.get(node.name, ()):
        for _, relation, direction, _, qualifiers in kb.relations[entity]:
            for qkey in sorted(qualifiers):
                if (relation, direction, qkey) not in seen:
                    seen.add((relation, direction, qkey))
                    reached = Relate(input=node, relation=relation, direction=direction)
                    yield QueryRelationQualifier(left=node, right=reached, relation=relation,
                                                 qkey=qkey)
        for key, value, qualifiers in kb.attributes[entity]:
            for qkey, qvalues in sorted(qualifiers.items()):
                yield QueryAttrQualifier(input=node, key=key, value=str(value), qkey=qkey)
                for qvalue in qvalues:
                    if _condition_said(qvalue, cue):
                        yield QueryAttrUnderCondition(input=node, key=key, qkey=qkey,
                                                      qvalue=str(qvalue.value)
                                                      if qvalue.type == "string" else str(qvalue))


def _condition_said(qvalue, cue: Cues) -> bool:
    """Whether the question says a qualifier's value: a string as words, a number or a year
    as one of the numbers it states ("in episode 10", "in 1932")."""
    if qvalue.type == "string":
        return _said(cue.text, str(qvalue.value))
    number = str(qvalue).split()[0]
    return any(_same_number(number, said) for said in cue.numbers)


def _same_number(a: str, b: str) -> bool:
    try:
        return float(a) == float(b)
    except ValueError:
        return False


def relation_qualifiers(left: Node, right: Node, kb) -> Iterator[Node]:
    """The qualifier values of the facts between two named entities (QueryRelationQualifier:
    "the natural abundance of chlorine-35 in chlorine")."""
    if not _qualifier_facts(kb)[0] or left.op != "Find" or right.op != "Find":
        return
    rights = set(kb.name_to_nodes.get(right.name, ()))
    seen = set()
    for entity in kb.name_to_nodes.get(left.name, ()):
        for _, relation, _, obj, qualifiers in kb.relations[entity]:
            for qkey in qualifiers:
                if obj in rights and (relation, qkey) not in seen:
                    seen.add((relation, qkey))
                    yield QueryRelationQualifier(left=left, right=right, relation=relation,
                                                 qkey=qkey)


def links_of(kb, name: str) -> list[tuple[str, str]]:
    """The (relation, direction) pairs the entities called `name` have facts by."""
    return sorted({(relation, direction) for node in kb.name_to_nodes.get(name, ())
                   for _, relation, direction, _, _ in kb.relations[node]})


def constraints(left: str, right: str, kb, cue: Cues) -> Iterator[Node]:
    """What two named entities constrain together, one relation from each ("which humans are
    from Tatooine": the members of Human's species that have Tatooine as homeworld), or two
    from one of them where its two meet the other's one (`_paths_from`): the
    names of the entities both lead to, or their number when the question asks how many, and
    their values of an attribute whose name the question says ("when were United's 777-222s
    built": the year built of the planes United operates that are 777-222s)."""
    said = [key for key in sorted(kb.attr_index) if says_word(cue.text, key)]
    rights = _paths_from(kb, right)
    pairs = [(a, b) for a in _paths_from(kb, left) for b in rights if len(a[0]) + len(b[0]) <= 3]
    for (path1, reached1), (path2, reached2) in sorted(pairs, key=lambda p: len(p[0][0])
                                                       + len(p[1][0])):
        if len(path1) + len(path2) == 3 and not reached1 & reached2:
            continue  # a side of two relations only where they meet: each pair is tried
        both = And(left=_along(Find(name=left), path1), right=_along(Find(name=right), path2))
        yield Count(input=both) if cue.how_many else QueryName(input=both)
        yield from (QueryAttr(input=both, key=key) for key in said)


def _along(node: Node, path: tuple[tuple[str, str], ...]) -> Node:
    """`node` followed along the (relation, direction) pairs of `path`."""
    for relation, direction in path:
        node = Relate(input=node, relation=relation, direction=direction)
    return node


def _paths_from(kb, name: str) -> list[tuple[tuple[tuple[str, str], ...], frozenset]]:
    """The paths of one relation and of two from the entities called `name`, each with the
    things it reaches; the second relation never the first straight back ("the players from
    Brazil" and "the players of the clubs in Wendel" meet, two constraints with a side of two
    hops)."""
    paths = []
    for first in links_of(kb, name):
        reached = _reach(kb, kb.name_to_nodes.get(name, ()), first)
        paths.append(((first,), reached))
        back = (first[0], "backward" if first[1] == "forward" else "forward")
        for second in sorted({(r, d) for node in reached for _, r, d, _, _ in kb.relations[node]}
                             - {back}):
            paths.append(((first, second), _reach(kb, reached, second)))
    return paths


def _reach(kb, nodes, link: tuple[str, str]) -> frozenset:
    """What the (relation, direction) `link` reaches from `nodes`."""
    return frozenset(obj for node in nodes for _, r, d, obj, _ in kb.relations[node]
                     if (r, d) == link)


__all__ = ["Cues", "answer_kind", "constraints", "cues", "filters", "finishers", "in_unit_asked",
           "links_of", "measure_said", "meetings", "of_kind_asked", "offered", "pair_ops",
           "picked_one", "qualifier_filters", "qualifier_queries", "relation_qualifiers"]
