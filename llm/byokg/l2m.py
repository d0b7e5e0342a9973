"""Least-to-most verbalisation of explored programs with the LM: one sub-question per
sub-program, bottom up, each written after the ones below it, the last one being the full
question. A question is kept only when it passes inverse consistency: among the program and
the programs one relation edit from it that the KB answers, the LM finds the question most
likely given the program itself. `by` records the LM and the check that kept it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from koplc.kopl.exploration import PoolEntry, canonical_question
from koplc.kopl.ir import Node, QueryName
from koplc.kopl.syntax import steps as steps_syntax
from koplc.kopl.types import Type
from koplc.llm.lm.scoring import inverse_consistency
from koplc.llm.symkgqa.demos import calls_of

INSTRUCTIONS = ("Each program below comes with a plain reading. Write the question a person "
                "would ask, in natural English, reusing the question before it where it "
                "helps.\n\n")
SHOT = ("Program:\nFind(Moby Dick)\nRelate(written_by, forward)\n"
        "Plain: What are the entities that wrote Moby Dick?\n"
        "Question: Who wrote Moby Dick?\n\n")


@dataclass(frozen=True)
class Verbalised:
    """An entry's L2M question, its sub-questions, and whether the check kept it."""

    entry_id: str
    question: str
    sub_questions: tuple[str, ...]
    kept: bool
    margin: float


def sub_programs(program: Node) -> list[Node]:
    """The entity-set steps under `program` that follow a relation or filter, bottom up, then
    the program itself."""
    subs = [node for _, node in program.walk()
            if node is not program and node.output in (Type.ENTITIES, Type.ENTITIES_WITH_FACTS)
            and node.op not in ("Find", "FindAll")]
    return [*subs, program]


def _calls(node: Node) -> str:
    return calls_of(steps_syntax.print_program(node))


def verbalise(entry: PoolEntry, lm, kb) -> Verbalised:
    """The L2M question of one pool entry, checked by inverse consistency."""
    context, subs = INSTRUCTIONS + SHOT, []
    for node in sub_programs(entry.program):
        asked = node if node.output not in (Type.ENTITIES, Type.ENTITIES_WITH_FACTS) \
            else QueryName(input=node)
        context += f"Program:\n{_calls(asked)}\nPlain: {canonical_question(asked)}\nQuestion:"
        text = lm.generate(context, 1, 0.0, 1, ("\n",))[0].strip()
        subs.append(text)
        context += f" {text}\n\n"
    question = subs[-1]
    margin = consistency_margin(entry.program, question, lm, kb)
    return Verbalised(entry.id, question, tuple(subs[:-1]), bool(question) and margin > 0,
                      margin)


def consistency_margin(program: Node, question: str, lm, kb) -> float:
    """log P(question | program) per character, minus the best of the nearby programs'
    (positive: the question picks out its own program; no nearby program: +inf)."""
    from koplc.kopl.grounding.path_edits import neighbours

    own = inverse_consistency(lm, steps_syntax.print_program(program), question)
    others = [inverse_consistency(lm, steps_syntax.print_program(n.program), question)
              for n in neighbours(program, kb) if n.program != program]
    return own - max(others) if others else float("inf")


def with_l2m_questions(entries: Iterable[PoolEntry], lm, kb, by: str) -> Iterator[
        tuple[PoolEntry, Verbalised]]:
    """Each entry with its L2M question added (`by` + ":l2m+inverse-consistency") when the
    check keeps it, beside the verbalisation."""
    for entry in entries:
        made = verbalise(entry, lm, kb)
        if made.kept and made.question not in {q.text for q in entry.questions}:
            entry = entry.with_question(made.question, f"{by}:l2m+inverse-consistency")
        yield entry, made
