"""SymKGQA prompts: instructions, a function catalogue from the op registry, the KB's schema,
demonstrations, and the question annotated with its entities and concepts."""

from __future__ import annotations

from dataclasses import dataclass

from koplc.kopl.grounding.mentions import Linked
from koplc.kopl.registry import OpInfo
from koplc.kopl.types import Type
from koplc.llm.symkgqa.catalogue import catalogue, ops_for_kb
from koplc.llm.symkgqa.demos import Demo

_ANSWERS = {Type.NAMES: "names", Type.COUNT: "how many", Type.VALUES: "an attribute's value",
            Type.QUALIFIER_VALUES: "a qualifier's value", Type.BOOLEAN: "yes or no",
            Type.RELATIONS: "how two things are related"}


def instructions(ops: list[OpInfo]) -> str:
    """The prompt's instructions, written from the ops a KB can use (as the catalogue is).

    >>> from koplc.kopl.registry import OPS
    >>> "Count for how many" in instructions([OPS["Find"], OPS["Count"]])
    True
    """
    names = {op.name for op in ops}
    text = ("You translate a question about a knowledge base into a KoPL program. A program is "
            "a list of function calls, one per line; each call takes the output of the line "
            "before it as its input (a call with two inputs joins the last two branches), and "
            "a blank line ends the program.")
    sources = [op.name for op in ops if op.arity == 0]
    if sources:
        text += f" Start from what the question mentions ({', '.join(sources)})"
        text += (", follow relations with Relate (forward from the subject to the object, "
                 "backward from the object to the subject), one Relate per hop"
                 if "Relate" in names else "") + "."
    finals: dict[str, list[str]] = {}
    for op in ops:
        if op.output in _ANSWERS:
            finals.setdefault(_ANSWERS[op.output], []).append(op.name)
    if finals:
        kinds = ", ".join(f"{' or '.join(ops_)} for {kind}" for kind, ops_ in finals.items())
        text += f" Finish with a function that gives the kind of answer asked for ({kinds})."
    return text + (" Use only the functions below and only the relation and attribute names "
                   "of this knowledge base.\n")


@dataclass(frozen=True)
class PromptBuilder:
    """Builds prompts for one KB; `prefix` is the same for every question (kept evaluated)."""

    prefix: str

    @classmethod
    def for_kb(cls, kb) -> PromptBuilder:
        """The fixed part: instructions, the catalogue of the ops `kb` can use, its schema."""
        parts = [instructions(ops_for_kb(kb)), "Functions (inputs; arguments -> output):",
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
