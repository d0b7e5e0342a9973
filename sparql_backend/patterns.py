"""The pieces lowered programs are made of: lowered entity sets and SPARQL group text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from koplc.sparql_backend.terms import iri


class Sub(NamedTuple):
    """A lowered entity set (or list of values): the engine's list is the distinct bindings of
    the `key` variables in `where`, and `var` holds each element.

    Keys make lists cheap: the pattern may repeat an element (a join fans out), because the
    element is identified by its key (a fact node, an (entity, fact) pair, an entity of a set),
    and only the consumer that counts takes `SELECT DISTINCT key`. Relate and the filters need
    the distinct input anyway, so chains stay one flat pattern the store can plan as a whole.
    `fact` says where the facts behind each element are: ("node", var) for a reified fact,
    ("relation", name, direction) or ("attribute", key, value var) for plain triples, None where
    the engine keeps none. `flat`: no UNION at the top, so more triples may join it in place
    (a UNION joined with a pattern makes some stores, pyoxigraph among them, loop). `fan`:
    how many joins since the last DISTINCT may repeat an element (FindAll and each Relate add
    one), so paths can be counted instead of elements; `entities` cuts it back to zero.
    `empty`: known to match nothing whatever the data.
    """

    where: str
    var: str
    key: tuple[str, ...]
    fact: tuple | None = None
    flat: bool = True
    fan: int = 0
    empty: bool = False

    def nothing(self) -> Sub:
        """The same list known to be empty: lowering folds it away (Virtuoso answers wrongly
        when a FILTER(false) branch sits in a UNION)."""
        return self._replace(where=NEVER, flat=True, fan=0, empty=True)

    def distinct(self, extra: str = "", *more: str) -> str:
        """The subquery that lists each element once, joined with `extra` (a pattern that
        matches at most once per element) and projecting its variables `more`."""
        variables = " ".join(dict.fromkeys((*self.key, self.var, *more)))
        return select_distinct(variables, join(self.where, extra))

    def entities(self, limit: int = 2) -> Sub:
        """This list for an op that reads only its distinct entities (Relate, the filters, And):
        as it is while flat and `fan` < `limit`, else the subquery of its distinct entities."""
        if self.empty or (self.flat and self.fan < limit):
            return self
        return Sub(select_distinct(self.var, self.where), self.var, (self.var,))

    def joinable(self) -> Sub:
        """This list as a pattern more triples can join: a UNION goes into a subquery."""
        return self if self.flat or self.empty else \
            self._replace(where=self.distinct(), flat=True)


@dataclass(frozen=True)
class Guard:
    """An ASK run before the query: when its answer is `raises`, the engine would raise
    `message`."""

    ask: str
    message: str
    raises: bool = True


@dataclass(frozen=True)
class Shape:
    """What the rows of a lowered query mean: `kind` (entities, values, names, count, labels,
    answer, between, among) and details (the facts of an entity set, a Select* comparator)."""

    kind: str
    detail: tuple | None = None


NEVER = "FILTER(false)"


def indent(text: str, by: str = "  ") -> str:
    return by + text.replace("\n", "\n" + by)


def block(text: str) -> str:
    """A nested group `{ ... }`."""
    return "{\n" + indent(text) + "\n}"


def select_distinct(variables: str, where: str) -> str:
    """A subquery keeping each binding of `variables` once."""
    return f"{{ SELECT DISTINCT {variables} WHERE {{\n{indent(where, '    ')}\n}} }}"


def values(var: str, iris) -> str:
    """A VALUES block binding `var` to each of the IRIs `iris`."""
    return f"VALUES {var} {{ {' '.join(iri(x) for x in iris)} }}"


def join(*parts: str) -> str:
    """Patterns in one group, one after the other (empty parts dropped)."""
    return "\n".join(p for p in parts if p)
