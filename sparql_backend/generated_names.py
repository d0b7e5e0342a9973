"""Made-up names for a generated KB: a person's, a title, or one word, each from a number.

A name is a pure function of its number (`name_of`), so a generator keeps no table of names
for millions of entities and finds every entity sharing a name by recomputing numbers. Names
are read off the number in mixed radix over syllables, so distinct numbers give distinct names
of a style (a person's below 75**5); entities share a name only where they draw one number.

>>> name_of("person", 0), name_of("title", 7), name_of("word", 123456)
('Baba Bababa', 'A Nusapu', 'Sibozi')
"""

from __future__ import annotations

_CONSONANTS = "bdfghklmnprstvz"
_VOWELS = "aeiou"
SYLLABLES = [c + v for c in _CONSONANTS for v in _VOWELS]  # 75
_ARTICLES = ("The", "A", "")


def word(number: int, syllables: int) -> str:
    """The capitalised word of `syllables` syllables that `number` spells."""
    parts = []
    for _ in range(syllables):
        number, digit = divmod(number, len(SYLLABLES))
        parts.append(SYLLABLES[digit])
    return "".join(parts).capitalize()


_STRIDE = 2147483647  # prime, so coprime with every power of 75: `_spread` is a bijection


def _spread(number: int, size: int) -> int:
    """`number` (below `size`) moved by a bijection of 0..size-1, so that neighbouring
    numbers do not spell names that start alike."""
    return number * _STRIDE % size


def name_of(style: str, number: int) -> str:
    """The name numbered `number` of a style: "person" (a given name and a surname), "title"
    (an article, a word, and a sequel number past the first), else "word"."""
    n = len(SYLLABLES)
    if style == "person":
        given, family = divmod(_spread(number % n ** 5, n ** 5), n ** 3)
        return f"{word(given, 2)} {word(family, 3)}"
    if style == "title":
        rest, article = divmod(number, len(_ARTICLES))
        sequel, stem = divmod(rest, n ** 3)
        title = " ".join(p for p in (_ARTICLES[article], word(_spread(stem, n ** 3), 3)) if p)
        return f"{title} {sequel + 1}" if sequel else title
    rest, stem = divmod(number, n ** 3)
    return word(_spread(stem, n ** 3), 3) + (f" {word(rest, 2)}" if rest else "")


def alias_of(style: str, name: str) -> str | None:
    """The alias a name goes by (skos:altLabel): a person's initial and surname, a title
    without its article; None for a word."""
    if style == "person":
        given, _, family = name.partition(" ")
        return f"{given[0]}. {family}"
    if style == "title":
        for article in _ARTICLES[:-1]:
            if name.startswith(article + " "):
                return name[len(article) + 1:]
    return None
