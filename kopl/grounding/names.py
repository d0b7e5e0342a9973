"""The name-grounding pass: every entity, concept, relation, attribute and qualifier name, and
every Relate direction, grounded jointly against the KB.

Each name gets its candidates from the indexes, ranked by the chooser with the question as
context; a Relate's direction is scored by the written direction and by the KB's schema (which
concepts sit at each end of the relation). The beam search (`beam.py`) then picks the grounding
of the whole program with the best joint score, running partial programs with the native
executor so that candidates which leave the program empty rank below those that do not.
"""

from __future__ import annotations

from itertools import product

from koplc.kopl import ir
from koplc.kopl.diagnostics import Diagnostic
from koplc.kopl.errors import GroundingError
from koplc.kopl.grounding.beam import Option, Pick, State, search
from koplc.kopl.grounding.candidates import retrieve_all
from koplc.kopl.grounding.choosers import Candidate
from koplc.kopl.grounding.context import GroundingContext, Scored
from koplc.kopl.grounding.directions import direction_picks
from koplc.kopl.grounding.edits import Edit, numbered
from koplc.kopl.grounding.index.kb_indexes import require_names
from koplc.kopl.grounding.memo_executor import MemoExecutor
from koplc.kopl.grounding.repair import PASS as REPAIR_PASS
from koplc.kopl.grounding.repair import retype_node
from koplc.kopl.grounding.unit_conversion import PASS as UNITS_PASS
from koplc.kopl.grounding.unit_conversion import convert_node
from koplc.kopl.ir import Node
from koplc.kopl.registry import family_of, value_kind_of
from koplc.kopl.types import ArgKind
from koplc.kopl.values import DATE, QUANTITY, YEAR

PASS = "names"
NAME_KINDS = (ArgKind.ENTITY, ArgKind.CONCEPT, ArgKind.RELATION, ArgKind.ATTRIBUTE,
              ArgKind.QUALIFIER)
_ORDERED = frozenset({QUANTITY, DATE})
KEY_TYPE_COST = 0.2


def written_names(program: Node) -> list[tuple[ArgKind, str]]:
    """Every (kind, name) the program writes, path relations included."""
    out = []
    for _, node in program.walk():
        for field, kind in type(node).arg_fields():
            value = getattr(node, field)
            if kind in NAME_KINDS:
                out.append((kind, value))
            elif kind is ArgKind.PATH:
                out += [(ArgKind.RELATION, hop.relation) for hop in value]
    return out


def ground_names(program: Node, ctx: GroundingContext):
    """Ground every name and direction jointly; returns (program, changes)."""
    table = candidate_table(ctx, written_names(program))
    guided = ctx.options.execution_guidance
    runner = MemoExecutor(ctx.kb, ctx.exec_options).gives_something if guided else None
    best = search(program, lambda state, path, node: _expand(ctx, table, state, node),
                  runner, ctx.options.beam_width)
    new = best.built[()]
    edits, side_edits = _provenance(best, table, guided)
    changes = numbered(new, PASS, edits)
    for name in (REPAIR_PASS, UNITS_PASS):
        changes += numbered(new, name, [e for p, e in side_edits if p == name])
    return new, changes


def candidate_table(ctx: GroundingContext, names: list[tuple[ArgKind, str]]
                    ) -> dict[tuple[ArgKind, str], list[Candidate]]:
    """Candidates per written name; GroundingError naming every name that has none."""
    table, problems = {}, []
    usable = []
    for kind, written in dict.fromkeys(names):
        try:
            require_names(ctx.indexes, kind, written)
            usable.append((kind, written))
        except GroundingError as err:
            problems += err.diagnostics
    for (kind, written), found in retrieve_all(ctx, usable).items():
        if kind is ArgKind.ENTITY and written in ctx.kb.name_to_nodes \
                and all(c.name != written for c in found):
            found.insert(0, Candidate(written, 1.0, 0.0, 1.0))  # a concept found by name
        if not found:
            problems.append(Diagnostic("ungroundable", f"no {kind} of the KB is close to "
                                       f"{written!r} (every candidate scores below "
                                       f"{ctx.options.min_score})"))
        table[(kind, written)] = found
    if problems:
        raise GroundingError(problems)
    return table


def _expand(ctx: GroundingContext, table, state: State, node: Node) -> list[Option]:
    fields = [(field, kind) for field, kind in type(node).arg_fields()
              if kind in NAME_KINDS or kind is ArgKind.PATH]
    if not fields:  # still retyped and restated: a Verify reads its input's grounded key
        return [_option(ctx, node, {}, [])]
    choices = [_field_picks(ctx, table, node, field, kind) for field, kind in fields]
    options = []
    for combo in product(*choices):
        updates = {pick.field: value for value, pick in combo}
        if isinstance(node, ir.Relate):
            for direction, pick in direction_picks(ctx, node, updates["relation"]):
                options.append(_option(ctx, node, {**updates, "direction": direction},
                                       [*(p for _, p in combo), pick]))
        else:
            options.append(_option(ctx, node, updates, [p for _, p in combo]))
    return options


def _option(ctx: GroundingContext, node: Node, updates: dict, picks: list[Pick]) -> Option:
    """The node with the picks applied, then retyped and its quantity restated for the
    picked key (so that running it tests the grounding, not a stale literal)."""
    new = node.model_copy(update=updates)
    edits: list[tuple[str, Edit]] = []
    if ctx.options.repair_functions:
        new, found = retype_node(ctx, new)
        edits += [(REPAIR_PASS, e) for e in found]
    if ctx.options.convert_units:
        new, found = convert_node(new, ctx)
        edits += [(UNITS_PASS, e) for e in found]
    score = sum(p.score for p in picks) - _key_type_cost(ctx, new)
    return Option(new, score, tuple(picks), tuple(edits))


def _key_type_cost(ctx: GroundingContext, node: Node) -> float:
    """A cost for a key whose values the operation cannot use (a string key in FilterNum)."""
    wanted = _key_types(node)
    if wanted is None:
        return 0.0
    key = getattr(node, "key", None) or getattr(node, "qkey", None)
    key_type = ctx.profile.key_type(key) if key else None
    return KEY_TYPE_COST if key_type not in wanted else 0.0


def _key_types(node: Node) -> frozenset[str] | None:
    """The KB key types (string, quantity, date) whose values the op's key may hold, or None
    when the op takes no key of its own."""
    family = family_of(node)
    if family in ("filter", "qfilter"):
        kind = value_kind_of(node)
        return frozenset({DATE if kind == YEAR else kind})  # the KB types a year key as a date
    return _ORDERED if family in ("select", "superlative") else None


def _field_picks(ctx, table, node: Node, field: str, kind: ArgKind) -> list[tuple]:
    written = getattr(node, field)
    if kind is ArgKind.PATH:
        hops = tuple(hop.model_copy(update={"relation": table[(ArgKind.RELATION,
                                                               hop.relation)][0].name})
                     for hop in written)
        before = ", ".join(hop.relation for hop in written)
        after = ", ".join(hop.relation for hop in hops)
        return [(hops, Pick(field, before, after, 0.0, "nearest relation of each hop"))]
    return [(c.name, Pick(field, written, c.name, c.score, _reason(kind, c)))
            for c in table[(kind, written)]]


def _reason(kind: ArgKind, c: Candidate) -> str:
    support = f", question support {c.support:.2f}" if c.support else ""
    return f"nearest {kind} (similarity {c.similarity:.2f}{support})"


def _provenance(best: State, table, guided: bool
                ) -> tuple[list[Edit], list[tuple[str, Edit]]]:
    edits: list[Edit] = []
    side_edits: list[tuple[str, Edit]] = []  # (pass, edit)
    for path, option in best.choices:
        side_edits += option.edits
        for pick in option.picks:
            if pick.chosen == pick.written or not pick.chosen:
                continue
            reason = pick.reason + _passed_over(best, path, option, pick, guided)
            edits.append(Edit(option.node, pick.field, pick.written, pick.chosen, reason,
                              _scored(table, option.node, pick)))
    return edits, side_edits


def _passed_over(best: State, path, option: Option, pick: Pick, guided: bool) -> str:
    if not guided:
        return ""
    skipped = []
    for where, failed in best.passed_over:
        if where != path or failed.score <= option.score:
            continue
        for other in failed.picks:
            if other.field == pick.field and other.chosen != pick.chosen \
                    and other.chosen not in skipped:
                skipped.append(other.chosen)
    if not skipped:
        return ""
    listed = ", ".join(repr(s) for s in skipped[:3])
    return f"; ranked higher but left the program empty: {listed}"


def _scored(table, node: Node, pick: Pick) -> tuple[Scored, ...]:
    if pick.field == "direction" or pick.field == "path":
        return tuple(Scored(name, score) for name, score in pick.alternatives)
    kind = dict(type(node).arg_fields())[pick.field]
    return tuple(Scored(c.name, c.score) for c in table.get((kind, pick.written), ())[:5])
