"""Lexical signals between a written name and a KB name: normal forms, tokens, trigrams.

The normal form folds the differences LLMs introduce without changing what a name means: case,
underscores and hyphens for spaces, punctuation, a leading article, roman numerals written as
digits. Two names with the same normal form are the same name for grounding purposes.

Linking a question's words to KB names looks names up by their `spellings` (the normal form, and
German's ASCII spelling of ä, ö, ü), and a name written as an identifier (`written_as_identifier`)
also by its `joined_spellings`, since identifiers mark word boundaries inconsistently
(``O'Brien``, ``o_brien``; ``HAL 9000``, ``hal9000``; ``1.FC_Koeln``, ``1. FC Köln``).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from koplc.kopl.lexicon import ARTICLES, NAME_STOP_WORDS

_ROMAN = {"i": "1", "ii": "2", "iii": "3", "iv": "4", "v": "5", "vi": "6", "vii": "7",
          "viii": "8", "ix": "9", "x": "10"}
_SEPARATORS = re.compile(r"[_\-–—/]+")
# German writes ä, ö, ü as ae, oe, ue where only ASCII is at hand (raw identifiers, URLs).
_GERMAN_ASCII = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"})
_NOT_WORD = re.compile(r"[^\w\s]+")


@lru_cache(maxsize=65536)
def spoken_form(name: str) -> str:
    """The name folded for comparison, articles kept: accents, case, separators and
    punctuation dropped, roman numerals after the first word written as digits.

    >>> spoken_form("The_Lord's Prayer"), spoken_form("Henry VIII")
    ('the lords prayer', 'henry 8')
    """
    text = unicodedata.normalize("NFKD", name)
    text = "".join(c for c in text if not unicodedata.combining(c)).casefold()
    text = _SEPARATORS.sub(" ", text).replace("&", " and ")
    words = _NOT_WORD.sub("", text).split()
    return " ".join(_ROMAN.get(w, w) if i else w for i, w in enumerate(words))


@lru_cache(maxsize=65536)
def normal_form(name: str) -> str:
    """The spoken form less a leading article: names equal here are the same name.

    >>> normal_form("The_Lord's Prayer"), normal_form("Henry VIII"), normal_form("HENRY 8")
    ('lords prayer', 'henry 8', 'henry 8')
    """
    words = spoken_form(name).split()
    if len(words) > 1 and words[0] in ARTICLES:
        words = words[1:]
    return " ".join(words)


def spellings(name: str) -> tuple[str, ...]:
    """The normal forms a name is linked by: its own, and its ASCII spelling's when it has
    ä, ö or ü.

    >>> spellings("Grace_HOPPER"), spellings("1. FC Köln")
    (('grace hopper',), ('1 fc koln', '1 fc koeln'))
    """
    own = normal_form(name)
    if name.isascii():
        return (own,)
    ascii_spelling = normal_form(unicodedata.normalize("NFC", name).translate(_GERMAN_ASCII))
    return (own,) if ascii_spelling == own else (own, ascii_spelling)


def joined_spellings(name: str) -> tuple[str, ...]:
    """The `spellings` without their spaces: what an identifier is linked by.

    >>> joined_spellings("O'Brien") == joined_spellings("o_brien") == ("obrien",)
    True
    """
    return tuple(s.replace(" ", "") for s in spellings(name))


def written_as_identifier(span: str) -> bool:
    """Whether written text marks word boundaries otherwise than by spaces alone: with
    underscores, dots, hyphens, apostrophes, digits or a capital inside a word.

    >>> [written_as_identifier(s) for s in ("Grace_Hopper", "hal9000", "GraceHopper",
    ...                                     "Grace Hopper", "every day")]
    [True, True, True, False, False]
    """
    return any(not word.isalpha() or _capital_inside(word) for word in span.split())


def _capital_inside(word: str) -> bool:
    return any(a.islower() and b.isupper() for a, b in zip(word, word[1:], strict=False))


def folded(name: str) -> str:
    """The name in lower case with underscores and runs of spaces as one space."""
    return " ".join(_SEPARATORS.sub(" ", name.casefold()).split())


def tokens(name: str) -> list[str]:
    """The words of the normal form."""
    return normal_form(name).split()


def content_tokens(name: str) -> list[str]:
    """The words of the normal form less short function words (kept when nothing else is)."""
    words = tokens(name)
    return [w for w in words if w not in NAME_STOP_WORDS] or words


def trigrams(text: str) -> frozenset[str]:
    """Character trigrams of a normal form, padded with spaces at both ends."""
    padded = f" {text} "
    return frozenset(padded[i:i + 3] for i in range(len(padded) - 2))


def dice(a: frozenset[str], b: frozenset[str]) -> float:
    """The Dice coefficient of two sets (1.0 for two empty sets)."""
    if not a and not b:
        return 1.0
    return 2 * len(a & b) / (len(a) + len(b))


def same_stem(a: str, b: str) -> bool:
    """Whether two words share a stem: a common prefix of four letters, or of three that is
    most of the shorter word.

    >>> same_stem("written", "writer"), same_stem("tags", "tagged"), same_stem("act", "art")
    (True, True, False)
    """
    if a == b:
        return True
    shared = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        shared += 1
    return shared >= 4 or (shared >= 3 and shared >= 0.75 * min(len(a), len(b)))


def related_words(a: str, b: str) -> bool:
    """Same stem, or one word holds the other's stem inside it (``screenwriter``, ``written``).

    >>> related_words("screenwriter", "written"), related_words("genres", "genre")
    (True, True)
    """
    if same_stem(a, b):
        return True
    return min(len(a), len(b)) >= 4 and (b[:4] in a[1:] or a[:4] in b[1:])


def token_overlap(written: str, candidate: str) -> float:
    """How many content words the two names share (related words match), over the larger
    count."""
    a, b = content_tokens(written), content_tokens(candidate)
    if not a or not b:
        return 0.0
    shared = sum(1 for w in a if any(related_words(w, v) for v in b))
    return shared / max(len(a), len(b))


def char_similarity(written: str, candidate: str) -> float:
    """Trigram Dice of the two normal forms: robust to typos and dropped words."""
    return dice(trigrams(normal_form(written)), trigrams(normal_form(candidate)))


def lexical_score(written: str, candidate: str) -> float:
    """1.0 for an exact match, 0.97 for equal normal forms, else a blend of the lexical signals.

    >>> lexical_score("place_of_birth", "place_of_birth"), lexical_score("Place Of Birth",
    ...                                                                  "place_of_birth")
    (1.0, 0.97)
    """
    if written == candidate:
        return 1.0
    if normal_form(written) == normal_form(candidate):
        return 0.97
    return 0.6 * char_similarity(written, candidate) + 0.4 * token_overlap(written, candidate)


def phrases(text: str, longest: int = 12, form=normal_form) -> set[str]:
    """Every run of up to `longest` consecutive words of the text's normal (or other) form."""
    words = form(text).split()
    return {" ".join(words[i:j]) for i in range(len(words))
            for j in range(i + 1, min(len(words), i + longest) + 1)}
