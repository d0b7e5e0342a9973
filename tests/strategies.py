"""Hypothesis strategies for well-typed programs over every op of the registry.

`programs()` draws any well-typed program (KoPL ops and the S-expression extensions);
`sexpr_programs()` draws the ones S-expressions can express. Name alphabets are parameters so a
syntax with restrictions (BART, S-expressions) gets names it can carry, and the text-heavy
syntaxes get adversarial ones.
"""

from __future__ import annotations

import datetime

from hypothesis import strategies as st

from koplc.kopl import ir
from koplc.kopl.registry import OPS
from koplc.kopl.types import AmongOp, BetweenOp, Comparator, Direction, Type

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'-&:é",
               min_size=1, max_size=8)
PLAIN_NAMES = st.lists(WORD, min_size=1, max_size=4).map(" ".join)
WILD_NAMES = st.text(min_size=1, max_size=12).filter(lambda s: s.strip() != "")
UNITS = st.sampled_from(["", " metre", " United States dollar", " square kilometre", " 1"])
NUMBERS = st.builds(lambda n, u: f"{n}{u}",
                    st.one_of(st.integers(-10**6, 10**9).map(str),
                              st.floats(-1e9, 1e9, allow_nan=False).map(repr)), UNITS)
YEARS = st.integers(1, 2100).map(str)
DATES = st.dates(datetime.date(1000, 1, 1), datetime.date(2100, 12, 31)).map(str)
TIMES = st.one_of(st.just("NOW"), YEARS, DATES)
COMPARATORS = st.sampled_from(list(Comparator))
DIRECTIONS = st.sampled_from(list(Direction))
MIDS = st.from_regex(r"m\.0[0-9a-z_]{2,6}", fullmatch=True)
DOTTED = st.lists(st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True), min_size=2,
                  max_size=3).map(".".join).filter(lambda s: s.split(".")[0] not in ("m", "g"))


def programs(names=PLAIN_NAMES, max_leaves: int = 6) -> st.SearchStrategy[ir.Node]:
    """Well-typed programs of every output type, over every op."""
    entities, facts = _entity_strategies(names, max_leaves)
    values = st.one_of(
        st.builds(ir.QueryAttr, input=entities, key=names),
        st.builds(ir.QueryAttrUnderCondition, input=entities, key=names, qkey=names,
                  qvalue=st.one_of(names, YEARS)),
    )
    answers = st.one_of(
        st.builds(ir.QueryName, input=entities),
        st.builds(ir.Count, input=entities),
        values,
        st.builds(ir.QueryRelation, left=entities, right=entities),
        st.builds(ir.SelectBetween, left=entities, right=entities, key=names,
                  comparator=st.sampled_from(list(BetweenOp))),
        st.builds(ir.SelectAmong, input=entities, key=names,
                  comparator=st.sampled_from(list(AmongOp))),
        st.builds(ir.VerifyStr, input=values, value=names),
        st.builds(ir.VerifyNum, input=values, value=NUMBERS, comparator=COMPARATORS),
        st.builds(ir.VerifyYear, input=values, value=YEARS, comparator=COMPARATORS),
        st.builds(ir.VerifyDate, input=values, value=DATES, comparator=COMPARATORS),
        st.builds(ir.QueryAttrQualifier, input=entities, key=names, value=names, qkey=names),
        st.builds(ir.QueryRelationQualifier, left=entities, right=entities, relation=names,
                  qkey=names),
        st.builds(ir.Exists, input=entities),
    )
    return st.one_of(answers, entities, facts)


def _entity_strategies(names, max_leaves):
    hops = st.lists(st.builds(ir.Hop, relation=names, direction=DIRECTIONS), max_size=2)
    leaves = st.one_of(st.just(ir.FindAll()), st.builds(ir.Find, name=names),
                       st.builds(ir.Entity, id=MIDS))

    def extend(inner):
        facts = _fact_ops(inner, names)
        return st.one_of(
            facts,
            st.builds(ir.QFilterStr, input=facts, qkey=names, qvalue=names),
            st.builds(ir.QFilterNum, input=facts, qkey=names, qvalue=NUMBERS,
                      comparator=COMPARATORS),
            st.builds(ir.QFilterYear, input=facts, qkey=names, qvalue=YEARS,
                      comparator=COMPARATORS),
            st.builds(ir.QFilterDate, input=facts, qkey=names, qvalue=DATES,
                      comparator=COMPARATORS),
            st.builds(ir.FilterConcept, input=inner, concept=names),
            st.builds(ir.And, left=inner, right=inner),
            st.builds(ir.Or, left=inner, right=inner),
            st.builds(ir.ArgMax, input=inner, key=names, path=hops.map(tuple)),
            st.builds(ir.ArgMin, input=inner, key=names, path=hops.map(tuple)),
            st.builds(ir.TimeConstraint, input=inner, relation=names, time=TIMES),
        )

    entities = st.recursive(leaves, extend, max_leaves=max_leaves)
    return entities, _fact_ops(entities, names)


def _fact_ops(entities, names):
    return st.one_of(
        st.builds(ir.Relate, input=entities, relation=names, direction=DIRECTIONS),
        st.builds(ir.FilterStr, input=entities, key=names, value=names),
        st.builds(ir.FilterNum, input=entities, key=names, value=NUMBERS, comparator=COMPARATORS),
        st.builds(ir.FilterYear, input=entities, key=names, value=YEARS, comparator=COMPARATORS),
        st.builds(ir.FilterDate, input=entities, key=names, value=DATES, comparator=COMPARATORS),
    )


def sexpr_programs(max_leaves: int = 6) -> st.SearchStrategy[ir.Node]:
    """Well-typed programs that S-expressions can express (entity sets, or their count)."""
    names = st.lists(st.from_regex(r"[a-z][a-z0-9']{0,7}", fullmatch=True), min_size=1,
                     max_size=3).map(" ".join).filter(lambda s: s.upper() != s and s != "now")
    ordered = st.sampled_from([Comparator.EQ, Comparator.LT, Comparator.LE, Comparator.GT,
                               Comparator.GE])
    hops = st.lists(st.builds(ir.Hop, relation=DOTTED, direction=DIRECTIONS), max_size=2)
    # A bare name reads back only as the target of a JOIN, so Find feeds Relate alone.
    leaves = st.one_of(st.builds(ir.Entity, id=MIDS),
                       st.builds(ir.FilterConcept, input=st.just(ir.FindAll()), concept=DOTTED))
    found = st.builds(ir.Find, name=names)

    def extend(inner):
        return st.one_of(
            st.builds(ir.FilterConcept, input=inner, concept=DOTTED),
            st.builds(ir.And, left=inner, right=inner),
            st.builds(ir.Relate, input=inner | found, relation=DOTTED, direction=DIRECTIONS),
            st.builds(ir.FilterNum, input=st.just(ir.FindAll()) | inner, key=DOTTED,
                      value=st.integers(-10**6, 10**6).map(str), comparator=ordered),
            st.builds(ir.FilterYear, input=st.just(ir.FindAll()) | inner, key=DOTTED,
                      value=YEARS, comparator=ordered),
            st.builds(ir.FilterDate, input=st.just(ir.FindAll()) | inner, key=DOTTED,
                      value=DATES, comparator=ordered),
            st.builds(ir.FilterStr, input=st.just(ir.FindAll()) | inner, key=DOTTED,
                      value=names),
            st.builds(ir.ArgMax, input=inner, key=DOTTED, path=hops.map(tuple)),
            st.builds(ir.ArgMin, input=inner, key=DOTTED, path=hops.map(tuple)),
            st.builds(ir.TimeConstraint, input=inner, relation=DOTTED, time=TIMES),
        )

    entities = st.recursive(leaves, extend, max_leaves=max_leaves)
    return st.one_of(entities, st.builds(ir.Count, input=entities))


def ops_in(program: ir.Node) -> set[str]:
    """The op names a program uses."""
    return {type(node).__name__ for _, node in program.walk()}


ALL_OPS = set(OPS)
ANSWER_TYPES = set(Type)


@st.composite
def mutated(draw, seeds: list[str], tokens: list[str], max_edits: int = 5,
            max_cut: int = 8) -> str:
    """A seed program with a few random cuts and insertions of syntax-significant tokens."""
    text = draw(st.sampled_from(seeds))
    for _ in range(draw(st.integers(1, max_edits))):
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + max_cut)))
        insert = draw(st.one_of(st.sampled_from(tokens), st.text(max_size=3), st.just("")))
        text = text[:i] + insert + text[j:]
    return text
