"""Finds of names the question does not mention point at the question's own entities (QUACK
with the question as context): a small model copies the annotated entity, yet now and then
writes another name (a demonstration's, a relative's, a concept's)."""

from __future__ import annotations

from difflib import SequenceMatcher

from koplc.kopl.answering.repairs.context import RepairContext, change
from koplc.kopl.execution.judge import find_names
from koplc.kopl.grounding.name_forms import normal_form
from koplc.kopl.ir import Node
from koplc.kopl.transform import rebuild


def point_finds_at_question(program: Node, ctx: RepairContext) -> tuple[Node, list[dict]]:
    """Every Find whose name the question does not mention, pointed at the question's entity
    it resembles most."""
    linked = ctx.linked
    said = f" {normal_form(linked.question)} "
    changes: list[dict] = []
    # A question word the linker passed over (say "cast") may still be a KB name; it is kept
    # only beside a Find of a linked entity, never instead of all of them.
    anchored = bool(set(find_names(program)) & set(linked.entities))

    def visit(node, expected):
        if node.op != "Find" or not linked.entities or node.name in linked.entities \
                or (anchored and f" {normal_form(node.name)} " in said):
            return node, []
        best = max(linked.entities, key=lambda e: SequenceMatcher(
            None, normal_form(e), normal_form(node.name)).ratio())
        changes.append(change("question-entities", "Find", node.name, best,
                              "the question names this entity, not the written one",
                              field="name"))
        return node.model_copy(update={"name": best}), []

    new, _ = rebuild(program, visit)
    return new, changes
