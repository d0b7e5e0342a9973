"""Question-side repairs of the LLM front end: Finds of names the question does not mention are
pointed at the question's own entities (QUACK with the question as context)."""

from __future__ import annotations

from koplc.kopl.grounding.mentions import Linked
from koplc.kopl.grounding.name_forms import normal_form


def repair_finds(program, linked: Linked) -> tuple[object, list[dict]]:
    """Point every Find whose name the question does not mention at the question's entity it
    resembles most. A small model copies the annotated entity, yet now and then writes another
    name (a demonstration's, a relative's, a concept's); the question's own entities are the
    grounding candidates that its context vouches for (QUACK, question as context).

    >>> from koplc.kopl.syntax import steps as steps_syntax
    >>> p = steps_syntax.parse("Step 1: Find(Cameron Diaz)\\nStep 2: QueryName()\\nDone").program
    >>> q = Linked("the movie Camilla starred who", ("Camilla",), (), ((10, 17),))
    >>> new, changes = repair_finds(p, q)
    >>> new.input.name, changes[0]["replacement"]
    ('Camilla', 'Camilla')
    """
    from difflib import SequenceMatcher

    from koplc.kopl.transform import rebuild

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
        changes.append({"pass": "question-entities", "op": "Find", "field": "name",
                        "original": node.name, "replacement": best,
                        "reason": "the question names this entity, not the written one"})
        return node.model_copy(update={"name": best}), []

    new, _ = rebuild(program, visit)
    return new, changes


def find_names(node) -> tuple[str, ...]:
    """The names a program's Find steps start from, each once, in the program's order."""
    return tuple(dict.fromkeys(n.name for _, n in node.walk() if n.op == "Find"))
