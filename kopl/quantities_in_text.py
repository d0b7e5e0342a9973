"""Numbers as people write them in a question, each read into a plain decimal with where it
stands and the unit said with it.

Digits with thousands separators (``100,000,000``, ``1_000``, thin spaces), decimals, a sign
(``-40``, ``minus 40``), a scale word or ``k`` after them (``10 million``, ``1.5k``), and numbers
in words (``fifty-five``, ``two thousand and five``, ``ten million``, years said in pairs as
``nineteen sixty-five``). The number words are number-parser's; a unit is what sympy's units
read (`koplc.kopl.units`), or ``%``, or a currency sign before the number.

A position is not a value: ordinals (``2nd``, ``twenty-first``) give no number, and neither does
``one`` used as a pronoun (``which one``, ``the one that``). A number inside a name (``Apollo
11``) is still returned: whether it is a value is the caller's call.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from functools import cache

from lemminflect import getAllLemmas
from number_parser import parse_number, parse_ordinal  # type: ignore[import-untyped]
from number_parser.parser import LanguageData  # type: ignore[import-untyped]

from koplc.kopl.lexicon import (
    ARTICLES,
    AUXILIARIES,
    COMPARATOR_PHRASES,
    CONTENT_STOP_WORDS,
    NOT_NAMES,
    PREPOSITIONS,
    singular,
)
from koplc.kopl.types import Comparator


@dataclass(frozen=True)
class QuantityInText:
    """A number said in a text: its value as a plain decimal string, the span of the words that
    say it, and the unit said with it as written ("" when none is)."""

    value: str
    start: int
    end: int
    unit: str = ""


def quantities_in(text: str) -> tuple[QuantityInText, ...]:
    """The numbers said in `text`, in the order they are said.

    >>> [(q.value, q.unit) for q in quantities_in(
    ...     "Which lakes over 1.5k square miles are below fifty-five metres, or deeper than 2m?")]
    [('1500', 'square miles'), ('55', 'metres'), ('2', 'm')]
    >>> [q.value for q in quantities_in("Which one was founded before 1998 by the 2nd king?")]
    ['1998']
    >>> [q.value for q in quantities_in("Does it seat more than a dozen people?")]
    ['12']
    >>> [(q.value, q.unit) for q in quantities_in("above nine and a half million, or sixteen "
    ...                                             "and a half hours")]
    [('9500000', ''), ('16.5', 'hours')]
    >>> [q.value for q in quantities_in("Who was named star baker more than twice?")]
    ['2']
    >>> [(q.value, q.unit) for q in quantities_in("Who in their twenties won in the 1970s?")]
    [('20', 'decade'), ('1970', 'decade')]
    """
    decades = decades_in(text)
    found = [*shares_in(text), *decades]
    found += [q for q in _quantities_in(text) if not any(
        d.start < q.end and q.start < d.end for d in found)]
    return tuple(sorted(found, key=lambda q: q.start))


def shares_in(text: str) -> tuple[QuantityInText, ...]:
    """The shares said as fractions in words, each in percent ("%"): "half", "a quarter",
    "two thirds", "three-quarters"; and a fraction of a scale word as the amount it says ("half
    a million"). Not a fraction of another amount ("a quarter of an hour"), one after a whole
    number ("nine and a half"), nor a place ("the third", which has no number before it).

    >>> [(q.value, q.unit) for q in shares_in("more than a quarter of natural nickel")]
    [('25', '%')]
    >>> [q.value for q in shares_in("half of them, or two-thirds, or one fifth")]
    ['50', '66.67', '20']
    >>> [(q.value, q.unit) for q in shares_in("half a million in the third quarter")]
    [('500000', '')]
    >>> shares_in("a quarter of an hour, nine and a half million, the longest half-life")
    ()
    """
    found = []
    for match in _SHARE.finditer(text):
        said = (match.group(1) or "").lower()
        part = _DENOMINATORS.get(singular(match.group(2).lower()))
        if part is None or (not said and part != 2) or _AFTER_A_WHOLE.search(
                text[:match.start()]):
            continue
        count = 1 if said in ("", "a", "an", "one") else parse_number(said)
        if not count or count >= part:
            continue
        scaled = _OF_A_SCALE.match(text, match.end())
        if scaled is None and _AMOUNT_AFTER.match(text, match.end()):
            continue
        scale = _scale(scaled.group(1).lower()) if scaled else None
        value = Decimal(count) / part * (scale or 100)
        found.append(QuantityInText(_plain(value.quantize(Decimal("0.01"))), match.start(),
                                    scaled.end() if scaled else match.end(),
                                    "" if scaled else "%"))
    return tuple(found)


_DENOMINATORS = {"half": 2, "halve": 2, "third": 3, "quarter": 4, "fourth": 4, "fifth": 5,
                 "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10}
_SHARE = re.compile(r"\b(?:(an?|one|two|three|four|five|six|seven|eight|nine)[\s\u2010-]+)?"
                    r"(halves|half|thirds?|quarters?|fourths?|fifths?|sixths?|sevenths?|"
                    r"eighths?|ninths?|tenths?)\b(?![\u2010-]\w)", re.IGNORECASE)  # not "half-life"
# what makes a fraction one of an amount: "half a million", "a quarter of an hour"
_AMOUNT_AFTER = re.compile(r"\s+(?:of\s+)?(?:an?|one)\b", re.IGNORECASE)
_OF_A_SCALE = re.compile(r"\s+(?:of\s+)?(?:an?|one)\s+(thousand|million|billion|trillion)\b",
                         re.IGNORECASE)
_AFTER_A_WHOLE = re.compile(r"\band\s+$", re.IGNORECASE)  # "nine and a half"


DECADE = "decade"
"""The unit of a decade said ("the 1970s", "in their twenties"): the ten from its value on."""

# A decade of years written in digits ("the 1970s", "1970's"; not "the 70s", whose century is
# not said) or in words with its century ("the nineteen-seventies"), or of someone's age in
# words after a possessive ("in their twenties").
_DECADE = re.compile(r"\b(\d{3}0)['’]?s\b|\b(?:their|his|her|its|my|your|our)\s+([a-z]+ies)\b"
                     r"|\b([a-z]+teen|twenty)[-\s]([a-z]+ies)\b", re.IGNORECASE)


def decades_in(text: str) -> tuple[QuantityInText, ...]:
    """The decades said in `text`, each as its first value with the unit `DECADE`.

    >>> [(q.value, q.start) for q in decades_in("Was it in the 1970s, in her thirties?")]
    [('1970', 14), ('30', 28)]
    >>> [q.value for q in decades_in("Was it built in the nineteen-seventies?")]
    ['1970']
    """
    found = []
    for match in _DECADE.finditer(text):
        if match.group(1):
            found.append(QuantityInText(match.group(1), match.start(1), match.end(), DECADE))
            continue
        if match.group(3):  # a century and a decade in words ("nineteen-seventies")
            century = numbers_in(match.group(3).lower())
            tens = numbers_in(singular(match.group(4).lower()))
            if century and tens and tens[0] in {str(n) for n in range(10, 100, 10)}:
                found.append(QuantityInText(str(int(century[0]) * 100 + int(tens[0])),
                                            match.start(3), match.end(), DECADE))
            continue
        tens = numbers_in(singular(match.group(2).lower()))
        if len(tens) == 1 and tens[0] in {str(n) for n in range(20, 100, 10)}:
            found.append(QuantityInText(tens[0], match.start(2), match.end(2), DECADE))
    return tuple(found)


def _quantities_in(text: str) -> list[QuantityInText]:
    """`quantities_in` but for decades."""
    tokens = [_Token(m) for m in _TOKEN.finditer(text)]
    found: list[QuantityInText] = []
    i = 0
    while i < len(tokens):
        if tokens[i].kind == "digits":
            quantity, i = _digits(text, tokens, i)
            found.extend(quantity)
        elif _is_number_word(tokens[i].word):
            pieces, i = _worded(text, tokens, i)
            found.extend(pieces)
        elif (one := _a_unit(text, tokens, i) or _a_numeral(text, tokens, i)
               or _times(tokens, i)) is not None:
            found.append(one[0])
            i = one[1]
        else:
            i += 1
    return found


def numbers_in(text: str) -> tuple[str, ...]:
    """The values of `quantities_in`.

    >>> numbers_in("more than 100,000,000 people, or ten million")
    ('100000000', '10000000')
    """
    return tuple(q.value for q in quantities_in(text))


# Digits, with a sign when nothing word-like touches it ("COVID-19" has no minus), thousands
# grouped by one separator, a fraction, an exponent, and letters written onto them ("1.5k",
# "5km", "2nd"), whose reading decides whether the digits are a number at all.
_DIGITS = r"""
    (?<![\w.])(?P<sign>[-+\u2212])?
    (?P<whole>\d{1,3}(?P<sep>[,_\u2009\u202f\u00a0])\d{3}(?:(?P=sep)\d{3})*(?!\d)|\d+)
    (?P<fraction>\.\d+)?(?P<exponent>[eE][-+]?\d+)?
    (?P<tail>[^\W_]*)
"""
_TOKEN = re.compile(rf"(?P<digits>{_DIGITS})|(?P<word>[^\W\d_]+)|(?P<other>\S)", re.VERBOSE)

# Notations a number-parser word stands for, and the words that make a number negative (it
# reads neither). Only lower-case "k": "300K" is kelvin, and "m" alone is metres.
_SCALE_SUFFIXES = {"k": "thousand", "bn": "billion"}
_NEGATIVE_WORDS = frozenset({"minus", "negative"})

# Words a unit never starts with or holds (sympy reads "has" as hectares, "me" as a mass).
_FUNCTION_WORDS = ARTICLES | PREPOSITIONS | AUXILIARIES | CONTENT_STOP_WORDS | NOT_NAMES
_ORDERING = (Comparator.GT, Comparator.LT, Comparator.GE, Comparator.LE)
_ORDERING_PHRASES = frozenset(p for c in _ORDERING for p in COMPARATOR_PHRASES[c])
_TRAILING_PHRASES = frozenset(p for c in (Comparator.GE, Comparator.LE)
                              for p in COMPARATOR_PHRASES[c])
_HYPHENS = ("", "-", "\u2010")
_LONGEST_UNIT = 4  # words, as in "kilometre per hour"


class _Token:
    __slots__ = ("kind", "match", "start", "end", "word")

    def __init__(self, match: re.Match[str]):
        self.kind = match.lastgroup if match.group("digits") is None else "digits"
        self.match, self.start, self.end = match, match.start(), match.end()
        self.word = match.group().lower() if self.kind == "word" else ""


@cache
def _english():
    return LanguageData("en")


def _is_number_word(word: str) -> bool:
    return word in _english().all_numbers


def _scale(word: str) -> int | None:
    return _english().big_powers_of_ten.get(word)


def ordinals_in(text: str) -> tuple[QuantityInText, ...]:
    """The places the text says before a noun, in words or digits ("the fifth episode", "3rd
    round"), as numbers; not an ordinal said as an adverb ("who was born first").

    >>> [(q.value, q.start) for q in ordinals_in("Who came first in the 3rd round, once?")]
    [('3', 22)]
    >>> [q.value for q in ordinals_in("the fifth episode and the twenty-first one")]
    ['5', '21']
    """
    found = []
    lowered = text.lower()
    for match in re.finditer(r"\b([a-z]+(?:-[a-z]+)?|\d+(?:st|nd|rd|th))(?=\s+([a-z]+))", lowered):
        if match.group(2) in CONTENT_STOP_WORDS:
            continue
        place = _place(match.group(1))
        if place:
            found.append(QuantityInText(str(place), match.start(1), match.end(1), ""))
    return tuple(found)


def numbered(span: str) -> str | None:
    """A name of two words that says its number in words, written as a name with the number
    after it in digits: "series one" → "series 1", "the seventh series" (its "seventh series")
    → "series 7", "3rd season" → "season 3"; None when the span is not such a name.

    >>> numbered("series one"), numbered("seventh series"), numbered("3rd season")
    ('series 1', 'series 7', 'season 3')
    >>> numbered("series 1"), numbered("first"), numbered("one two"), numbered("once more")
    (None, None, None, None)
    """
    words = span.split()
    if len(words) != 2 or any(w[:1].isdigit() for w in words[1:]):
        return None
    first, second = (w.lower() for w in words)
    place = _place(first)
    if place and not _is_number_word(second):
        return f"{words[1]} {place}"
    if _is_number_word(second) and not _is_number_word(first) and not place:
        return f"{words[0]} {parse_number(second)}"
    return None


def _place(word: str) -> int | None:
    """The number an ordinal says ("fifth", "3rd"); None for any other word (number_parser
    reads "once" as 11: an ordinal word must end as one)."""
    digits = _ORDINAL_DIGITS.fullmatch(word)
    if digits:
        return int(digits.group(1))
    return parse_ordinal(word) if word.endswith(("st", "nd", "rd", "th")) else None


_ORDINAL_DIGITS = re.compile(r"(\d+)(?:st|nd|rd|th)")


def in_scale(number: str, unit: str) -> str | None:
    """`number` restated in `unit` when the unit is a scale word, as a KB may keep an amount
    ("9.29 million" viewers): "9,500,000" read is 9.5 of "million"; None for any other unit.

    >>> in_scale("9500000", "million"), in_scale("12", "thousand"), in_scale("5", "metre")
    ('9.5', '0.012', None)
    """
    scale = _scale(unit.lower()) if unit else None
    return _plain(Decimal(number) / scale) if scale else None


def _plain(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "+0") else text


def _gap(text: str, left: _Token, right: _Token) -> str:
    return text[left.end:right.start]


def _a_unit(text: str, tokens: list[_Token], i: int) -> tuple[QuantityInText, int] | None:
    """One unit said with an article, or half of one, right after a comparison ("more than a
    kilo", "under half an hour"), which says 1 (0.5) of it, and the index after it; None for
    any other article ("hours a day" states no number)."""
    value, j = (Decimal("0.5"), i + 1) if tokens[i].word == "half" else (Decimal(1), i)
    if j >= len(tokens) or tokens[j].word not in ("a", "an"):
        return None
    before = " " + " ".join(re.findall(r"[a-z]+", text[:tokens[i].start].lower()))
    if not any(before.endswith(" " + phrase) for phrase in _ORDERING_PHRASES):
        return None
    unit, after = _unit_after(text, tokens, j + 1)
    if not unit:
        return None
    return QuantityInText(_plain(value), tokens[i].start, tokens[after - 1].end, unit), after


def _a_numeral(text: str, tokens: list[_Token], i: int) -> tuple[QuantityInText, int] | None:
    """A noun that is a number said with an article ("a dozen": 12, `relatives.numeral`), with
    the unit after it, and the index after them; None for any other words."""
    if tokens[i].word not in ("a", "an") or i + 1 >= len(tokens) or not tokens[i + 1].word \
            or _is_number_word(tokens[i + 1].word):  # "a hundred and twenty": number-parser's
        return None
    from koplc.kopl.relatives import numeral  # WordNet, read once needed

    value = numeral(tokens[i + 1].word)
    if value is None:
        return None
    unit, after = _unit_after(text, tokens, i + 2)
    return QuantityInText(str(value), tokens[i].start, tokens[after - 1].end, unit), after


def _times(tokens: list[_Token], i: int) -> tuple[QuantityInText, int] | None:
    """An adverb that says a number of times ("twice": 2, `relatives.times`) and the index
    after it; None for any other word."""
    word = tokens[i].word
    if not word or word in _FUNCTION_WORDS:
        return None
    from koplc.kopl.relatives import times  # WordNet, read once needed

    value = times(word)
    if value is None:
        return None
    return QuantityInText(str(value), tokens[i].start, tokens[i].end, ""), i + 1


# Digits.

def _digits(text: str, tokens: list[_Token], i: int) -> tuple[list[QuantityInText], int]:
    """The number that the digits at `i` say (none when letters written onto them are no unit
    or scale: "2nd", "7H4"), with the scale words and unit after them; and the next index."""
    m = tokens[i].match
    tail = m.group("tail")
    scale = _scale(_SCALE_SUFFIXES.get(tail, "")) if tail else 1
    unit = "" if scale or not tail else tail if _reads_as_unit(tail) else None
    if unit is None:
        return [], i + 1
    whole = m.group("whole").replace(m.group("sep") or ",", "")
    value = Decimal(whole + (m.group("fraction") or "") + (m.group("exponent") or ""))
    value *= scale or 1
    if m.group("sign") in ("-", "\u2212"):
        value = -value
    start, end = tokens[i].start, tokens[i].end
    if m.group("sign") is None:
        value, start = _signed(text, start, value)
    j = i + 1
    while not tail and j < len(tokens) and _gap(text, tokens[j - 1], tokens[j]).isspace() \
            and (power := _scale(tokens[j].word)):
        value, end, j = value * power, tokens[j].end, j + 1
    if not unit:
        unit, j = _unit_after(text, tokens, j)
    unit = unit or _currency_before(text, tokens, i)
    return [QuantityInText(_plain(value), start, end, unit)], j


def _currency_before(text: str, tokens: list[_Token], i: int) -> str:
    before = tokens[i - 1] if i else None
    if before is not None and before.kind == "other" \
            and unicodedata.category(before.match.group()) == "Sc" \
            and not _gap(text, before, tokens[i]).strip():
        return before.match.group()
    return ""


# Units.

def _unit_after(text: str, tokens: list[_Token], i: int) -> tuple[str, int]:
    """The unit said right after a number that ends before token `i` ("%", "square miles"),
    and the index after it."""
    if i < len(tokens) and tokens[i].match.group() == "%" and \
            not _gap(text, tokens[i - 1], tokens[i]).strip():
        return "%", i + 1
    words: list[_Token] = []
    for token in tokens[i:i + _LONGEST_UNIT]:
        if token.kind != "word" or not _gap(text, tokens[i - 1 + len(words)], token).isspace():
            break
        words.append(token)
    for n in range(len(words), 0, -1):
        if not any(w.word in _FUNCTION_WORDS for w in words[:n]):
            said = text[words[0].start:words[n - 1].end]
            if _reads_as_unit(said):
                return said, i + n
    return "", i


@cache
def _reads_as_unit(text: str) -> bool:
    """Whether sympy reads `text` as a unit: in words ("square miles"), or as a symbol, whose
    case matters ("K" is kelvin, "k" a thousand); or it is a currency (`units.is_money`:
    "dollars")."""
    from koplc.kopl.units import is_money

    if is_money(text):
        return True
    try:
        from sympy.physics import units

        from koplc.kopl.units import sympy_unit
    except ImportError:  # the units extra (sympy) is not installed: no unit words are known
        return False
    return sympy_unit(text) is not None or isinstance(getattr(units, text, None), units.Quantity)


# Numbers in words.

def _worded(text: str, tokens: list[_Token], i: int) -> tuple[list[QuantityInText], int]:
    """The numbers that the run of number words at `i` says, and the index after the run."""
    skips = _english().skip_tokens
    run, j = [tokens[i]], i + 1
    while j < len(tokens):
        token = tokens[j]
        if token.kind == "other" and token.match.group() in skips:
            j += 1
            continue
        if token.kind != "word" or _gap(text, run[-1], token).strip() not in _HYPHENS \
                or not (_is_number_word(token.word) or token.word in skips):
            break
        run.append(token)
        j += 1
    if j < len(tokens) and _ends_an_ordinal(text, run, tokens[j]):
        return [], j + 1
    while run[-1].word in skips:
        run.pop()
    pieces = [(Decimal(value), start, end) for value, start, end
              in _years_said_in_pairs(text, list(_pieces(text, run)))]
    if pieces:  # "nine and a half million": the last number and its fraction, then its scale
        value, start, end = pieces[-1]
        fraction = _FRACTION.match(text, end)
        if fraction is not None:
            scale = _scale((fraction.group("scale") or "").lower()) or 1
            pieces[-1] = ((value + _FRACTIONS[fraction.group("part").lower()]) * scale, start,
                          fraction.end())
            j = next((k for k, t in enumerate(tokens) if t.start >= fraction.end()), len(tokens))
    found = []
    for n, (number, start, end) in enumerate(pieces):
        unit, after = _unit_after(text, tokens, j) if n == len(pieces) - 1 else ("", j)
        if number == 1 and len(pieces) == 1 and " " not in text[start:end] and not unit \
                and not _one_is_a_number(text, start, end):
            continue
        j = after
        signed, start = _signed(text, start, number)
        found.append(QuantityInText(_plain(signed), start, end, unit))
    return found, j


# A fraction said after a number in words, and a scale word after it ("nine and a half
# million", "two and a quarter").
_FRACTIONS = {"half": Decimal("0.5"), "quarter": Decimal("0.25")}
_FRACTION = re.compile(r"\s+and\s+(?:an?\s+|one\s+)?(?P<part>half|quarter)\b"
                       r"(?:\s+(?P<scale>thousand|million|billion|trillion)\b)?", re.IGNORECASE)


def _pieces(text: str, run: list[_Token]) -> Iterator[tuple[int, int, int]]:
    """(value, start, end) of each number a run of number words says, longest first: number-
    parser reads "two thousand and five" as one number and "one and two" as none."""
    skips = _english().skip_tokens
    i = 0
    while i < len(run):
        for j in range(len(run), i, -1):
            if run[j - 1].word in skips or run[i].word in skips:
                continue
            value = parse_number(text[run[i].start:run[j - 1].end], language="en")
            if value is not None:
                yield value, run[i].start, run[j - 1].end
                i = j
                break
        else:
            i += 1


def _years_said_in_pairs(text: str, pieces: list[tuple[int, int, int]]
                         ) -> list[tuple[int, int, int]]:
    """Two two-digit numbers said one after the other are a year ("nineteen sixty-five")."""
    if len(pieces) == 2 and all(10 <= value <= 99 for value, _, _ in pieces) \
            and text[pieces[0][2]:pieces[1][1]].strip() in _HYPHENS:
        return [(pieces[0][0] * 100 + pieces[1][0], pieces[0][1], pieces[1][2])]
    return pieces


def _ends_an_ordinal(text: str, run: list[_Token], after: _Token) -> bool:
    """Whether the run is the start of an ordinal ("twenty-first", "one hundred and first")."""
    if after.kind != "word" or _gap(text, run[-1], after).strip() not in _HYPHENS:
        return False
    if parse_ordinal(after.word, language="en") is None or _is_number_word(after.word):
        return False
    return parse_ordinal(text[run[0].start:after.end], language="en") is not None


def _signed(text: str, start: int, value: Decimal) -> tuple[Decimal, int]:
    """The value negated, and its start moved, when a negative word says it ("minus 40")."""
    said = re.search(r"([^\W\d_]+)\s+$", text[:start])
    if said and said.group(1).lower() in _NEGATIVE_WORDS:
        return -value, said.start()
    return value, start


def _one_is_a_number(text: str, start: int, end: int) -> bool:
    """Whether a lone "one" counts: after a phrase that orders values ("more than one", "at
    least one"), before one that closes a bound ("one or more"), or before a singular noun
    ("one moon"); not as a pronoun ("which one is", "the one that", "one of")."""
    before = re.findall(r"[^\W\d_]+", text[:start].lower())
    after = re.findall(r"[^\W\d_]+", text[end:].lower())
    if not text[end:].strip()[:1].isalpha():
        after = []  # punctuation ends what "one" could count
    if any(" ".join(before[-n:]) in _ORDERING_PHRASES for n in range(1, 5) if len(before) >= n):
        return True
    if any(" ".join(after[:n]) in _TRAILING_PHRASES for n in range(1, 5) if len(after) >= n):
        return True
    return bool(after) and _singular_noun(after[0])


def _singular_noun(word: str) -> bool:
    """Whether lemminflect knows `word` as a noun in its singular form (a plural noun after
    "one" is the verb: "which one flows")."""
    return word not in _FUNCTION_WORDS and word in getAllLemmas(word).get("NOUN", ())


__all__ = ["QuantityInText", "numbers_in", "quantities_in"]
