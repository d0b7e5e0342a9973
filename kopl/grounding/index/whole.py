"""The name indexes of the whole KB that a fragment is cut from, for a search of names.

On an endpoint each question is compiled on a fragment (the neighbourhood of what it names),
whose own names are a few hundred of the KB's. A tool that searches names by what they are
(the agent's SearchNodes) should list what the whole KB holds, as it does in memory: other
species beside "Human", not the people around it. `whole_indexes(kb)` gives the entity and
concept indexes of the whole KB, its entity names streamed a page at a time (`KBAccess.names`)
and kept in the endpoint's cache folder; a KB of more than `WHOLE_NAMES` entity names gets
None (its names would not fit in memory), and the caller searches the fragment's own.
"""

from __future__ import annotations

from koplc.kopl.grounding.index.kb_indexes import Indexes, kb_names
from koplc.kopl.kb.access import whole_of
from koplc.kopl.kb.memo import per_kb
from koplc.kopl.types import ArgKind

WHOLE_NAMES = 1_000_000  # the most entity names of a whole KB held for a search of names


def whole_indexes(kb) -> Indexes | None:
    """The entity and concept indexes of the KB `kb` is a fragment of; None when `kb` is
    whole itself or its whole KB has more than WHOLE_NAMES entity names."""
    whole = whole_of(kb)
    if whole is None:
        return None
    # A fragment carries the whole concept hierarchy: its concept names are the KB's.
    return _of_whole(whole, tuple(kb_names(kb, ArgKind.CONCEPT)))


@per_kb(maxsize=4)
def _of_whole(whole, concepts: tuple[str, ...]) -> Indexes | None:
    names: set[str] = set()
    for page in whole.names():
        names.update(name for _, name in page if name)
        if len(names) > WHOLE_NAMES:
            return None
    folder = whole.folder / "indexes" if getattr(whole, "folder", None) else None
    return Indexes.from_names({ArgKind.ENTITY: sorted(names), ArgKind.CONCEPT: list(concepts)},
                              folder)
