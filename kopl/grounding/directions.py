"""Scoring a Relate's two directions from what was written and from the KB's schema.

A direction fits when the concepts of the Relate's input (read from the grounded input without
running it) include a concept found at that end of the relation's facts; a direction with no
facts at all scores lowest. A written direction scores above its flip, which is offered only
when `flip_direction` is on; a missing one scores both alike.
"""

from __future__ import annotations

from koplc.kopl.grounding.beam import Pick
from koplc.kopl.grounding.context import GroundingContext
from koplc.kopl.ir import Relate
from koplc.kopl.types import Direction

MISSING = 0.7


def direction_picks(ctx: GroundingContext, node: Relate, relation: str
                    ) -> list[tuple[Direction, Pick]]:
    """Each direction worth trying for `relation` from the node's input, with its pick."""
    written = node.direction if isinstance(node.direction, Direction) else None
    concepts = ctx.profile.static_concepts(node.input)
    scored = []
    for direction in (Direction.FORWARD, Direction.BACKWARD):
        if written is not None and direction != written and not ctx.options.flip_direction:
            continue
        base = MISSING if written is None else 1.0 if direction == written else \
            1.0 - ctx.options.flip_cost
        side = ctx.profile.ends(relation, direction)[0]
        fit = 0.0 if not side else 0.5 if concepts is None else 1.0 if concepts & side else 0.2
        scored.append((direction, 0.5 * base + 0.5 * fit, _why(ctx, node.direction, direction,
                                                                side, concepts, relation)))
    alternatives = tuple((str(d.value), s) for d, s, _ in scored)
    shown = None if node.direction is None else str(getattr(node.direction, "value",
                                                            node.direction))
    return [(d, Pick("direction", shown, str(d.value), s, why, alternatives))
            for d, s, why in scored]


def _why(ctx: GroundingContext, written, direction, side, concepts, relation: str) -> str:
    if written is None:
        start = "the direction was missing"
    elif written == direction:
        start = "as written"
    elif isinstance(written, Direction):
        start = f"flipped from {written.value}"
    else:
        start = f"{written!r} is not a direction"
    if not side:
        return f"{start}; the KB has no {direction.value} {relation!r} facts"
    if concepts is None:
        return f"{start}; the KB has {direction.value} {relation!r} facts"
    names = ctx.kb.names
    kinds = ", ".join(sorted(names[c] for c in concepts & side)[:3]) or \
        ", ".join(sorted(names[c] for c in concepts)[:3])
    fits = "fits" if concepts & side else "does not fit"
    return f"{start}; an input of concept {kinds} {fits} {direction.value} {relation!r}"
