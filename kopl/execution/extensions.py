"""The extensions of the executor: Entity, ArgMax, ArgMin, TimeConstraint (from S-expressions)
and Exists.

The official engine has none of these (`ExecOptions.extension_ops=False` makes them raise as it
would). Semantics:

- `Entity(id)`: the node with that KB id; an unknown id gives the empty set.
- `ArgMax`/`ArgMin(input, key, path)`: from each distinct input entity follow the path's
  (relation, direction) hops, collect the key's values on the nodes reached, and keep every
  entity holding the extreme value (ties kept). Quantities use the majority unit (converted when
  unit conversion is on); without quantities, times compare by date when all are dates and by
  year otherwise; strings are ignored. No comparable value gives the empty set.
- `TimeConstraint(input, relation, time)`: the input entities with a stored fact of the
  relation (either direction) that holds at the time — a year, a date, or NOW (the option
  `today`, else the real date). A fact holds when a ``point in time`` qualifier matches (same
  year if either side is a year, same day otherwise) or ``start time`` ≤ time ≤ ``end time``
  (a missing end is open; comparison by year when either side is a year). A fact with none of
  these qualifiers is timeless and holds.
- `Exists(input)`: "yes" when the input set holds an entity, else "no": a yes/no question over
  relations ("is Han Solo from Tatooine": `Exists(And(Relate(Find(Han Solo), homeworld,
  forward), Find(Tatooine)))`), which KoPL's Verify ops, over attribute values, cannot ask.
"""

from __future__ import annotations

from koplc.kopl.kb.model import KB
from koplc.kopl.types import Direction
from koplc.kopl.values import DATE, TIME, YEAR, Value, parse_literal

_EMPTY: tuple = ()
POINT, START, END = "point in time", "start time", "end time"


class ExtensionOps:
    """The visitors (`OpInfo.visitor`) of the S-expression extension ops (mixed into
    `Executor`)."""

    __slots__ = ()
    # Read from `Executor`, which mixes this class in.
    kb: KB

    def visit_Entity(self, node):
        n = self.kb.id_to_node.get(node.id)
        return ((n,) if n is not None else _EMPTY), None

    def visit_ArgMax(self, node):
        return self._arg_extreme(node, max)

    def visit_ArgMin(self, node):
        return self._arg_extreme(node, min)

    def _arg_extreme(self, node, pick):
        ids, _ = self._entities(node.input)
        tables = [self._hop_table(hop) for hop in node.path]
        index = self.kb.attr_index.get(node.key, {})
        values: list[tuple[int, Value]] = []
        for entity in dict.fromkeys(ids):
            frontier = (entity,)
            for table in tables:
                frontier = dict.fromkeys(o for n in frontier for o in table.get(n, _EMPTY))
            values += [(entity, fact[1]) for n in frontier for fact in index.get(n, _EMPTY)]
        candidates = self.in_majority_unit(values) or _time_ranks(values)
        if not candidates:
            return [], None
        extreme = pick(rank for _, rank in candidates)
        return list(dict.fromkeys(e for e, rank in candidates if rank == extreme)), None

    def _hop_table(self, hop) -> dict:
        if hop.direction == Direction.FORWARD:
            return self.kb.out_objects.get(hop.relation, {})
        return self.kb.in_objects.get(hop.relation, {})  # the pre-check refused any other

    def visit_Exists(self, node):
        ids, _ = self._entities(node.input)
        return "yes" if ids else "no"

    def visit_TimeConstraint(self, node):
        ids, _ = self._entities(node.input)
        moment = parse_literal(node.time, TIME, self.options.today)  # the pre-check read it
        kb, relation = self.kb, node.relation
        forward = kb.out_facts.get(relation, {})
        backward = kb.in_facts.get(relation, {})
        keep = [n for n in ids
                if any(holds(f[-1], moment) for f in (*forward.get(n, _EMPTY),
                                                       *backward.get(n, _EMPTY)))]
        return keep, None


def _time_ranks(values: list[tuple[int, Value]]) -> list[tuple[int, int]]:
    times = [(n, v) for n, v in values if v.type in (YEAR, DATE)]
    if times and all(v.type == DATE for _, v in times):
        return [(n, v.value.toordinal()) for n, v in times]
    return [(n, v.year) for n, v in times]


def _not_after(a: Value, b: Value) -> bool:
    return a.value <= b.value if a.type == b.type == DATE else a.year <= b.year


def _same_time(a: Value, b: Value) -> bool:
    return a.value == b.value if a.type == b.type == DATE else a.year == b.year


def holds(qualifiers: dict, moment: Value) -> bool:
    """Whether a fact with these qualifiers holds at `moment` (see the module notes)."""
    def times(key: str) -> list[Value]:
        return [v for v in qualifiers.get(key, _EMPTY) if v.type in (YEAR, DATE)]

    points, starts, ends = times(POINT), times(START), times(END)
    if not (points or starts or ends):
        return True
    if any(_same_time(p, moment) for p in points):
        return True
    if not (starts or ends):
        return False
    started = not starts or any(_not_after(s, moment) for s in starts)
    return started and (not ends or any(_not_after(moment, e) for e in ends))
