"""Names as KBs write them: an IRI's local name, and the words of a relation, attribute or
concept name whatever convention wrote it.

KBs name schema items in several conventions: labels (``place of birth``), snake_case
(``place_of_birth``), kebab-case, camelCase (``birthPlace``), Freebase's dotted paths
(``people.person.place_of_birth``, also written ``__people__person__place_of_birth``), and
opaque ids (Wikidata's ``P31``). `name_words` reads any of them as lower-case words, and
`name_head` as the words of the last path segment, the part that says what the item is (its
domain and type come first in a Freebase path).
"""

from __future__ import annotations

import re
from functools import lru_cache

_SEGMENT = re.compile(r"\.|_{2,}")
_NOT_ALPHANUMERIC = re.compile(r"[\W_]+")
_ID = re.compile(r"[A-Z]+\d+")


def local_name(iri: str) -> str:
    """The part of an IRI that names the thing: after the last ``/`` or ``#``, or after the
    last ``:`` in an IRI with neither (``urn:``); the whole IRI when that part is empty.

    A colon after the last ``/`` of a hierarchical IRI belongs to the name
    (``…/resource/Category:Novels``), so it is not a cut there.

    >>> local_name("urn:kb:r:plays_in_club"), local_name("http://x.org/ns#birthPlace")
    ('plays_in_club', 'birthPlace')
    >>> local_name("http://rdf.freebase.com/ns/music.recording.releases")
    'music.recording.releases'
    """
    trimmed = iri.rstrip("/#:")
    cut = max(trimmed.rfind("/"), trimmed.rfind("#"))
    if cut < 0:
        cut = trimmed.rfind(":")
    return trimmed[cut + 1:] or iri


def name_segments(name: str) -> tuple[str, ...]:
    """A schema name's path segments, cut at dots and runs of underscores; a name with a space
    is a label, one segment whatever its punctuation.

    >>> name_segments("__people__person__place_of_birth"), name_segments("no. of pages")
    (('people', 'person', 'place_of_birth'), ('no. of pages',))
    """
    if any(c.isspace() for c in name):
        return (name,)
    return tuple(s for s in _SEGMENT.split(name) if s) or (name,)


@lru_cache(maxsize=65536)
def name_words(name: str) -> tuple[str, ...]:
    """A schema name as lower-case words, every path segment's in order; ids such as ``P31``
    stay as written.

    >>> name_words("music.recording.releases"), name_words("birthPlace")
    (('music', 'recording', 'releases'), ('birth', 'place'))
    >>> name_words("date-of-birth"), name_words("ISBNNumber"), name_words("P31")
    (('date', 'of', 'birth'), ('isbn', 'number'), ('P31',))
    """
    return tuple(w for segment in name_segments(name) for w in _segment_words(segment))


@lru_cache(maxsize=65536)
def name_head(name: str) -> tuple[str, ...]:
    """The words of a schema name's last path segment (all its words when it has one).

    >>> name_head("people.person.place_of_birth"), name_head("birthPlace")
    (('place', 'of', 'birth'), ('birth', 'place'))
    >>> name_head("__people__person__spouse_s")
    ('spouses',)
    """
    return _segment_words(name_segments(name)[-1])


def name_phrase(name: str) -> str:
    """A schema name's words as one phrase.

    >>> name_phrase("__book__book__written_by"), name_phrase("hasGenre")
    ('book book written by', 'has genre')
    """
    return " ".join(name_words(name))


def _segment_words(segment: str) -> tuple[str, ...]:
    """A segment's words; a lone "s" after a word is that word's plural ending written apart,
    as Freebase writes "spouse(s)": ``spouse_s`` is "spouses"."""
    words: list[str] = []
    for chunk in _NOT_ALPHANUMERIC.split(segment):
        if _ID.fullmatch(chunk):
            words.append(chunk)
        elif chunk.lower() == "s" and words:
            words[-1] += "s"
        elif chunk:
            words.extend(w.lower() for w in _camel_parts(chunk))
    return tuple(words)


def _camel_parts(chunk: str) -> list[str]:
    """A chunk cut where case says a word starts: ``birthPlace``, ``ISBNNumber``, ``hasURL``."""
    parts, start = [], 0
    for i in range(1, len(chunk)):
        before, here = chunk[i - 1], chunk[i]
        after = chunk[i + 1] if i + 1 < len(chunk) else ""
        if here.isupper() and (before.islower() or before.isdigit()
                               or (before.isupper() and after.islower())):
            parts.append(chunk[start:i])
            start = i
    parts.append(chunk[start:])
    return parts
