"""What a triples file does not say: which concept its subjects and each relation's objects
belong to, and which relations are attributes (`koplc.kopl.kb.triples` reads the file)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field


@dataclass(frozen=True)
class TripleSchema:
    """Which concept subjects and each relation's objects belong to, and which relations are
    attributes (relation → value type)."""

    subject_concept: str
    object_concepts: dict[str, str] = field(default_factory=dict)
    attributes: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_json(cls, text: str) -> TripleSchema:
        data = json.loads(text)
        return cls(data["subject_concept"], dict(data.get("object_concepts", {})),
                   dict(data.get("attributes", {})))

    def to_json(self) -> str:
        return json.dumps({"subject_concept": self.subject_concept,
                           "object_concepts": self.object_concepts,
                           "attributes": self.attributes}, sort_keys=True)

    def concepts(self) -> list[str]:
        """Concept names in id order: the subjects' concept, then objects' in first mention."""
        return list(dict.fromkeys([self.subject_concept, *self.object_concepts.values()]))
