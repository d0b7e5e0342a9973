"""What a KB with no concepts holds, by kind: plain labelled triples say nothing of what their
things are, but WordNet knows many things by name ("France" is a country, "cheetah" a big cat,
"hydrogen" a chemical element). The subjects and the objects of each relation make a set whose
kind is what WordNet says most of their names are (`relatives.shared_kind`), so "how many
mammals are in the table" counts the subjects of the relation whose subjects are placentals,
and "which animals ..." is something the KB holds. A KB with concepts says its things' kinds
itself and gets none of this.
"""

from __future__ import annotations

from koplc.kopl.answering.meant_values import MOST_VALUES
from koplc.kopl.kb.memo import per_kb
from koplc.kopl.lexicon import singular
from koplc.kopl.relatives import every_kind_of, names_one_thing, shared_kind, shared_word

# Names read of each set: enough for a majority, few enough to read each set once per KB fast.
SAMPLE = 100


@per_kb()
def role_kinds(kb) -> tuple[tuple[str, str, str, int], ...]:
    """(relation, direction, kind, size) for each relation of a KB with no concepts and each
    side of it WordNet names a kind of, or whose names most carry a common noun
    (`relatives.shared_word`: "Alaska Airlines Inc.": airline): direction "backward" for its
    subjects (what `Relate(relation, "backward")` reaches from everything), "forward" for its
    objects; not a side of values (`value_sides`). Once per KB; none for a KB with concepts."""
    if kb.n_concepts:
        return ()
    found, values = [], value_sides(kb)
    for direction, index in (("backward", kb.out_objects), ("forward", kb.in_objects)):
        for relation, held in sorted(index.items()):
            names = [kb.names[node] for node in list(held)[:SAMPLE]]
            kind = shared_kind(names) or shared_word(names)
            if kind is not None and (relation, direction) not in values:
                found.append((relation, direction, kind, len(held)))
    return tuple(found)


@per_kb()
def value_sides(kb) -> frozenset[tuple[str, str]]:
    """The (relation, "forward") of each relation that points at `MOST_VALUES` things or fewer,
    most of which hold no facts of their own and have names WordNet knows mostly as common
    nouns: values ("carnivore" as a diet), whose words say what they mean, not what the
    things are (a diet is no animal; hydrogen, with an atomic number, is an element)."""
    return frozenset((relation, "forward") for relation, held in kb.in_objects.items()
                     if len(held) <= MOST_VALUES and not _mostly_instances(
                         [kb.names[node] for node in held]) and 2 * sum(
                             _holds_facts(kb, node) for node in held) <= len(held))


def _holds_facts(kb, node: int) -> bool:
    """Whether a thing has facts of its own: attributes, or relations it is the subject of
    (an element's atomic number; not a diet's "carnivore", which only things point at)."""
    return bool(kb.attributes[node]) or any(
        fact[2] == "forward" for fact in kb.relations[node])


def _mostly_instances(names: list[str]) -> bool:
    """Whether WordNet knows more than half of the names it knows as nouns as proper names
    of one thing ("France", "Paris"), not as common nouns ("carnivore")."""
    known = [is_instance for name in names if (is_instance := names_one_thing(name)) is not None]
    return 2 * sum(known) > len(known)


def side_kind(kb, relation: str, direction: str) -> str | None:
    """The kind `role_kinds` gives the things `Relate(relation, direction)` reaches, or None."""
    return _side_kinds(kb).get((relation, direction))


@per_kb()
def _side_kinds(kb) -> dict[tuple[str, str], str]:
    """`role_kinds` by (relation, direction), once per KB: read for every program the search
    weighs."""
    return {(relation, direction): kind for relation, direction, kind, _ in role_kinds(kb)}


def of_kind(noun: str, kind: str) -> bool:
    """Whether things of `kind` are `noun`s: the same noun, or one WordNet puts above it
    ("animals" of placentals), read in the singular."""
    said = singular(noun.lower())
    return said == kind or said in every_kind_of(kind)


def roles_of_kind(kb, noun: str) -> list[tuple[str, str]]:
    """The (relation, direction) sides of `kb`'s relations whose things are `noun`s, the
    largest first."""
    found = [(size, relation, direction) for relation, direction, kind, size in role_kinds(kb)
             if of_kind(noun, kind)]
    return [(relation, direction) for _, relation, direction in sorted(found, reverse=True)]

