"""`KBAccess` (koplc.kopl.kb.access) for a KB in memory: every question read off its indexes."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

from koplc.kopl.kb.access import Pattern, Schema
from koplc.kopl.kb.model import KB, QUALIFIERS


class MemoryAccess:
    """The in-memory KB behind the access protocol."""

    def __init__(self, kb: KB):
        self.kb = kb
        self.name = f"KB {kb.source or '<memory>'}"

    def names(self, page: int = 10_000) -> Iterator[list[tuple[str, str]]]:
        kb = self.kb
        for start in range(kb.n_concepts, len(kb.ids), page):
            stop = min(start + page, len(kb.ids))
            yield [(kb.ids[n], kb.names[n]) for n in range(start, stop)]

    def schema(self) -> Schema:
        kb = self.kb
        relations = {(r, "forward"): sum(map(len, facts.values()))
                     for r, facts in kb.out_facts.items()}
        relations.update({(r, "backward"): sum(map(len, facts.values()))
                          for r, facts in kb.in_facts.items()})
        units: dict[str, set[str]] = {}
        for key, by_node in kb.attr_index.items():
            for facts in by_node.values():
                units.setdefault(key, set()).update(str(f[1].unit) for f in facts
                                                    if f[1].unit is not None)
        qualifiers: Counter[str] = Counter(k for table in (kb.attributes, kb.relations)
                                           for facts in table for f in facts
                                           for k in f[QUALIFIERS])
        return Schema(relations=relations,
                      attributes={k: sum(map(len, v.values())) for k, v in kb.attr_index.items()},
                      kinds=dict(kb.key_type), units={k: tuple(sorted(u)) for k, u in units.items()},
                      concepts={kb.names[c]: sum(1 for n in kb.concept_members.get(c, ())
                                                 if n >= kb.n_concepts)
                                for c in range(kb.n_concepts)},
                      qualifiers=dict(qualifiers))

    def patterns(self, ids: list[str], samples: int = 3) -> list[Pattern]:
        kb = self.kb
        nodes = [kb.id_to_node[i] for i in ids if i in kb.id_to_node]
        seen: dict[tuple[str, str], list[str]] = {}
        for n in nodes:
            for key, value, _ in kb.attributes[n]:
                seen.setdefault((key, "attribute"), []).append(str(value))
            for _, relation, direction, obj, _ in kb.relations[n]:
                seen.setdefault((relation, direction), []).append(kb.names[obj])
        return [Pattern(name, direction, len(values), tuple(dict.fromkeys(values))[:samples])
                for (name, direction), values in sorted(seen.items())]

    def sample(self, n: int, seed: int = 0) -> list[str]:
        kb = self.kb
        entities = kb.ids[kb.n_concepts:]
        return random.Random(seed).sample(entities, min(n, len(entities)))

    def run(self, program) -> list[str]:
        from koplc.kopl.execution.executor import DEFAULT, execute

        return [str(item) for item in execute(program, self.kb, DEFAULT).items()]
