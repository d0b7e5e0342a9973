"""Grounding may trade the question's own entity for a name that fits the program's relation
(a tag for the person of the same name); the entity stays, the program runs as written, and an
empty answer goes to path repair."""

from __future__ import annotations

from koplc.kopl.answering.repairs.context import RepairContext, change
from koplc.kopl.ir import Node
from koplc.kopl.transform import rebuild


def moved(grounding, linked) -> list[dict]:
    """The grounding changes that trade an entity the question names for another (the said
    units' records name no op)."""
    return [c for c in grounding if c.get("op") == "Find" and c.get("original") in linked.entities]


def pin_question_entities(program: Node, ctx: RepairContext) -> tuple[Node, list[dict]]:
    """Each Find that grounding moved off a question entity, pointed back at it."""
    back = {c["replacement"]: c["original"] for c in moved(ctx.grounding, ctx.linked)}
    if not back:
        return program, []
    changes: list[dict] = []

    def visit(step, expected):
        if step.op == "Find" and step.name in back:
            changes.append(change("pin-entities", "Find", step.name, back[step.name],
                                  "the question names this entity", field="name"))
            return step.model_copy(update={"name": back[step.name]}), []
        return step, []

    return rebuild(program, visit)[0], changes
