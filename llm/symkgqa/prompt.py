"""SymKGQA prompts: instructions, a function catalogue from the op registry, the KB's schema,
demonstrations, and the question annotated with its entities and concepts.

A prompt is a fixed prefix, the same for every question about a KB (its KV state is kept,
llm/lm/kept_prefix.py), then the question's own part. A KB's schema is in the prefix when all
of it fits a quarter of the LM's context; otherwise each question gets the slice of it that it
most likely needs (schema_slice.py), after the demonstrations, a blank line before the
question. Not in the prefix, so that the prefix stays fixed; after the demonstrations, so that
questions with the same demonstrations share everything before their slice in the states kept
between prompts (llm/lm/speculative.py); a blank line before the question, because right after
a question annotated with "Concepts: ..." the model copies what followed the schema's own
Concepts line, and would write a new question instead of a program."""

from __future__ import annotations

from dataclasses import dataclass

from koplc.kopl.grounding.mentions import Linked
from koplc.kopl.kb.access import shown_schema
from koplc.kopl.registry import OpInfo
from koplc.kopl.types import Type
from koplc.llm.symkgqa.catalogue import catalogue, ops_for_kb
from koplc.llm.symkgqa.demos import Demo
from koplc.llm.symkgqa.schema_slice import (
    ANSWER_ROOM,
    DEFAULT_CONTEXT,
    SchemaSlicer,
    context_of,
    fits,
    schema_budget,
    token_estimate,
    whole_schema,
)

_ANSWERS = {Type.NAMES: "names", Type.COUNT: "how many", Type.VALUES: "an attribute's value",
            Type.QUALIFIER_VALUES: "a qualifier's value", Type.BOOLEAN: "yes or no",
            Type.RELATIONS: "how two things are related"}


def instructions(ops: list[OpInfo], sliced: bool = False) -> str:
    """The prompt's instructions, written from the ops a KB can use (as the catalogue is);
    `sliced` when each question shows its own part of the schema.

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
    text += (" Use only the functions below and only the relation and attribute names of this "
             "knowledge base")
    if sliced:
        text += "; those a question may need are listed just before it"
    return text + ".\n"


@dataclass(frozen=True)
class PromptBuilder:
    """Builds prompts for one KB; `prefix` is the same for every question (kept evaluated).
    `slicer` is None when the whole schema is in the prefix; else it picks each question's
    part of the schema, within what the `context` (in tokens) leaves."""

    prefix: str
    slicer: SchemaSlicer | None = None
    context: int = DEFAULT_CONTEXT

    @classmethod
    def for_kb(cls, kb, lm=None) -> PromptBuilder:
        """The fixed part: instructions, the catalogue of the ops `kb` can use, and its schema
        when it fits the context of `lm` (by default the embedded model's)."""
        shown = shown_schema(kb)  # a fragment's whole KB's, the same for all its fragments
        ops, context = ops_for_kb(shown), context_of(lm)
        schema = whole_schema(shown)
        sliced = not fits(schema, context)
        parts = [instructions(ops, sliced), "Functions (inputs; arguments -> output):",
                 catalogue(ops), ""]
        if sliced:
            return cls("\n".join(parts) + "\n", SchemaSlicer(kb), context)
        return cls("\n".join(parts + schema.lines()) + "\n\n", None, context)

    def build(self, linked: Linked, demos: list[Demo]) -> str:
        """The whole prompt for a question; the model continues with its steps."""
        shots = "\n\n".join(d.text() for d in demos)
        annotation = f"Entities: {', '.join(linked.entities)}"
        if linked.concepts:
            annotation += f"\nConcepts: {', '.join(linked.concepts)}"
        question = f"Question: {linked.question}\n{annotation}\n"
        schema = self.schema(linked, demos, shots + question)
        if schema:
            question = f"{schema}\n{question}"
        return f"{self.prefix}{shots}\n\n{question}"

    def schema(self, linked: Linked, demos: list[Demo], rest: str = "") -> str:
        """The schema lines shown with the question ("" when the prefix holds the schema):
        the slice that fits a quarter of the context, or less when the prefix, `rest` (the
        demonstrations and the question) and room for the answer leave less."""
        if self.slicer is None:
            return ""
        left = self.context - token_estimate(self.prefix + rest) - ANSWER_ROOM
        budget = min(schema_budget(self.context), left)
        return self.slicer.slice(linked, demos, budget).text()
