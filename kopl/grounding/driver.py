"""The grounding driver: runs the passes in order and collects what each changed.

Order: operator words first (the repairs read comparators), function repair next (the names
pass grounds the keys and relations of the repaired operations), then names and directions
jointly, then units (which need the grounded keys).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from koplc.kopl.check import check
from koplc.kopl.diagnostics import Diagnostic
from koplc.kopl.grounding.context import Change, GroundingContext
from koplc.kopl.grounding.names import ground_names
from koplc.kopl.grounding.operators import normalise_operators
from koplc.kopl.grounding.repair import repair_functions
from koplc.kopl.grounding.unit_conversion import convert_units
from koplc.kopl.ir import Node

PASSES = (("operators", normalise_operators), ("repair", repair_functions),
          ("names", ground_names), ("units", convert_units))


@dataclass
class Grounded:
    """A grounded program, every change made, and the checker's errors that remain."""

    program: Node
    changes: list[Change] = field(default_factory=list)
    remaining: list[Diagnostic] = field(default_factory=list)

    def to_json(self) -> dict:
        """The program (IR JSON), the changes and the remaining errors as a JSON object."""
        return {"program": self.program.model_dump(mode="json"),
                "changes": [c.to_json() for c in self.changes],
                "remaining": [d.to_json() for d in self.remaining]}


def ground(program: Node, ctx: GroundingContext) -> Grounded:
    """Run every enabled pass over the program; raises GroundingError when a name has no
    candidate in the KB."""
    changes: list[Change] = []
    for name, run in PASSES:
        if (name == "repair" and not ctx.options.repair_functions) or \
                (name == "units" and not ctx.options.convert_units):
            continue
        program, found = run(program, ctx)
        changes += found
    remaining = [d for d in check(program) if d.is_error]
    return Grounded(program, changes, remaining)


def explain(changes: list[Change]) -> str:
    """The changes as a readable table: pass, step, field, original, replacement, top
    candidates with scores, and why."""
    if not changes:
        return "no changes: the program was already grounded"
    header = ("pass", "step", "field", "original", "replacement", "top candidates", "why")
    rows = [header] + [(c.pass_name, str(c.step), f"{c.op}.{c.field}",
                        "-" if c.original is None else c.original, c.replacement,
                        ", ".join(f"{s.name} ({s.score:.2f})" for s in c.candidates[:3]) or "-",
                        c.reason) for c in changes]
    widths = [min(max(len(row[i]) for row in rows), 48) for i in range(len(header) - 1)]
    lines = []
    for n, row in enumerate(rows):
        cells = [_fit(cell, width).ljust(width) for cell, width in zip(row, widths,
                                                                       strict=False)]
        lines.append(" | ".join([*cells, row[-1]]).rstrip())
        if n == 0:
            lines.append("-+-".join("-" * w for w in widths) + "-+-" + "-" * 3)
    return "\n".join(lines)


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
