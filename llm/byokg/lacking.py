"""What the KB holds for things like a named entity but not for it: the facts a question may ask
of the entity that the KB lacks ("What planet is Yoda from?" of a KB that gives most characters
a homeworld, but not Yoda). The search keeps only programs that answer something, so without
them the nearest program that does answer (Yoda's birth year) is taken; with them, a question
that one of these fits clearly better than any program that answers finds nothing.

A fact counts as held for things like the entity when some other member of the entity's
concept has it: an attribute key, or a relation in a direction. In a KB with no concepts, the
things like the entity are those that play every part it plays in the KB's relations (the
subject of a species, say: the characters); an entity in none has no such things. On an
endpoint's fragment the members are those the fragment holds, so fewer lacking facts are seen
than in memory, never more."""

from __future__ import annotations

from koplc.kopl.ir import Find, Node, QueryAttr, QueryName, Relate

# Set on the dev KBs' three tune sets (tests/fixtures/devkbs: questions.jsonl tune halves,
# more_questions.jsonl, absent_questions.jsonl): over the questions naming one entity, the
# absent ones' lacking programs fit 0.28 to 0.38 above the best program that answers ("How heavy
# is a giraffe's brain?": brain mass), the answerable ones' at most 0.19 ("How big is the engine
# in the Buick Roadmaster?": engine type, which it lacks, over displacement); midway.
LACKING = 0.24


def lacking_programs(kb, entity: str, concept: str | None) -> list[Node]:
    """The programs asking `entity` for an attribute key or a relation (either way) that some
    member of `concept` (with no concept: some thing playing the entity's parts, `_alike`) has
    and no entity named `entity` has, in a fixed order."""
    own = set(kb.name_to_nodes.get(entity, ()))
    if not own:
        return []
    members = (_members(kb, concept) if concept else _alike(kb, own)) - own
    found: list[Node] = []
    for key in sorted(kb.attr_index):
        if _held(kb.attr_index[key], members) and not _held(kb.attr_index[key], own):
            found.append(QueryAttr(input=Find(name=entity), key=key))
    for direction, table in (("forward", kb.out_objects), ("backward", kb.in_objects)):
        for relation in sorted(table):
            if _held(table[relation], members) and not _held(table[relation], own):
                found.append(QueryName(input=Relate(input=Find(name=entity),
                                                    relation=relation, direction=direction)))
    return found


def _members(kb, concept: str) -> set[int]:
    """The nodes of `concept`'s members (entities, as FilterConcept of everything keeps)."""
    return {n for c in kb.name_to_nodes.get(concept, ()) for n in kb.concept_members.get(c, ())
            if n >= kb.n_concepts}


def _alike(kb, own: set[int]) -> set[int]:
    """The things that play every part the `own` nodes play in the KB's relations (a relation
    in a direction: the subjects of "species"); none when they play none."""
    parts = [table[relation] for table in (kb.out_objects, kb.in_objects)
             for relation in sorted(table) if _held(table[relation], own)]
    if not parts:
        return set()
    smallest = min(parts, key=len)
    return {n for n in smallest if all(n in part for part in parts)}


def _held(table: dict[int, tuple], nodes: set[int]) -> bool:
    """Whether a fact table (node -> its facts, nodes with none left out) has facts for any of
    `nodes`."""
    if len(nodes) < len(table):
        return any(n in table for n in nodes)
    return any(n in nodes for n in table)
