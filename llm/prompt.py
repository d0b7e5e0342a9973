"""SymKGQA prompts: instructions, a function catalogue from the op registry, the KB's schema,
demonstrations, and the question annotated with its entities and concepts."""

from __future__ import annotations

from dataclasses import dataclass

from koplc.kopl.grounding.mentions import Linked
from koplc.llm.catalogue import catalogue, ops_for_kb
from koplc.llm.demos import Demo

INSTRUCTIONS = """\
You translate a question about a knowledge base into a KoPL program. A program is a list of \
function calls, one per line; each call takes the output of the line before it as its input, \
and a blank line ends the program. Start from the entities the question mentions (Find), \
follow relations with Relate (forward from the subject to the object, backward from the object \
to the subject), one Relate per hop, and finish with the function that gives the kind of \
answer asked for (QueryName for names, Count for how many). Use only the functions below and \
only relation names of this knowledge base.
"""


@dataclass(frozen=True)
class PromptBuilder:
    """Builds prompts for one KB; `prefix` is the same for every question (kept evaluated)."""

    prefix: str

    @classmethod
    def for_kb(cls, kb) -> PromptBuilder:
        """The fixed part: instructions, the catalogue of the ops `kb` can use, its schema."""
        parts = [INSTRUCTIONS, "Functions (inputs; arguments -> output):",
                 catalogue(ops_for_kb(kb)), ""]
        relations = sorted(kb.relation_names)
        if relations:
            parts.append("Relations: " + ", ".join(relations))
        concepts = kb.concept_names()
        if concepts:
            parts.append("Concepts: " + ", ".join(concepts))
        return cls("\n".join(parts) + "\n\n")

    def build(self, linked: Linked, demos: list[Demo]) -> str:
        """The whole prompt for a question; the model continues with its steps."""
        shots = "\n\n".join(d.text() for d in demos)
        annotation = f"Entities: {', '.join(linked.entities)}"
        if linked.concepts:
            annotation += f"\nConcepts: {', '.join(linked.concepts)}"
        return f"{self.prefix}{shots}\n\nQuestion: {linked.question}\n{annotation}\n"
