"""Hypothesis strategies for well-typed KoPL programs whose names and values come from a KB.

Entity and concept names and relations come from the KB, with a few names it lacks. Keys and
the literals compared with them are drawn together from the KB's facts — each value as stored,
nudged (±1, the next year, another unit, the other date spelling) so comparisons go both ways,
and sometimes paired with the wrong key. `small_sets=True` keeps FindAll out and the inputs of
QueryRelation* small: the official Python engine's cost there grows with |left| x |right|.
"""

from __future__ import annotations

from hypothesis import strategies as st

from koplc.kopl import ir
from koplc.kopl.kb.model import KB
from koplc.kopl.types import AmongOp, BetweenOp, Comparator, Direction
from koplc.kopl.values import DATE, QUANTITY, STRING, YEAR, Value

UNKNOWN = ["no such name", "height", "point in time", "male"]
COMPARATORS = st.sampled_from([Comparator.EQ, Comparator.NE, Comparator.LT, Comparator.GT,
                               Comparator.EQ, Comparator.LE, Comparator.GE])
DIRECTIONS = st.sampled_from(list(Direction))
KINDS = (STRING, QUANTITY, YEAR, DATE)


def _pick(items, unknown: int = 1):
    """Draw from `items`, with `unknown` names the KB lacks mixed in."""
    items = sorted(set(items))
    return st.sampled_from(items + UNKNOWN[:unknown] if items else UNKNOWN)


def texts(value: Value, kind: str) -> list[str]:
    """Literals of `kind` near a KB value: itself and neighbours that compare differently."""
    if kind == STRING:
        return [value.value] if value.type == STRING else []
    if kind == QUANTITY:
        if value.type != QUANTITY:
            return []
        unit = "" if value.unit == "1" else f" {value.unit}"
        return [str(value), f"{value.value + 1:g}{unit}", f"{value.value - 1:g}{unit}",
                f"{value.value:g} metre"]
    if value.type not in (YEAR, DATE):
        return []
    if kind == YEAR:
        return [str(value.year), str(value.year + 1)]
    if value.type == YEAR:
        return [f"{value.year}-01-01"]
    return [str(value), value.value.strftime("%Y/%m/%d")]


def _pairs(facts: list[tuple[str, Value]], kind: str, keys: list[str]):
    """(key, literal) pairs of one kind: from the facts, plus mismatched and unknown keys."""
    pairs = sorted({(k, t) for k, v in facts for t in texts(v, kind)})
    if not pairs:
        return st.tuples(_pick(keys), st.sampled_from({STRING: ["male"], QUANTITY: ["100"],
                                                       YEAR: ["2000"], DATE: ["2000-01-01"]}
                                                      [kind]))
    literals = sorted({t for _, t in pairs})
    return st.one_of(st.sampled_from(pairs), st.sampled_from(pairs), st.sampled_from(pairs),
                     st.tuples(_pick(keys), st.sampled_from(literals)))


class Vocabulary:
    """The names of one KB and its (key, literal) pairs, as strategies."""

    def __init__(self, kb: KB):
        entities = kb.names[kb.n_concepts:]
        step = max(1, len(entities) // 3000)
        self.entities = _pick(entities[::step] + kb.concept_names())
        self.concepts = _pick(kb.concept_names())
        self.relations = _pick(kb.relation_names)
        attrs = [(k, v) for facts in kb.attributes for k, v, _ in facts]
        quals = [(qk, qv) for table in (kb.attributes, kb.relations) for facts in table
                 for f in facts for qk, qvs in f[-1].items() for qv in qvs]
        keys = sorted({k for k, _ in attrs})
        qkeys = sorted({k for k, _ in quals})
        self.keys, self.qkeys = _pick(keys), _pick(qkeys)
        self.attr = {kind: _pairs(attrs, kind, keys) for kind in KINDS}
        self.qual = {kind: _pairs(quals, kind, qkeys) for kind in KINDS}
        under = sorted({(k, qk, t) for facts in kb.attributes for k, _, q in facts
                        for qk, qvs in q.items() for qv in qvs for kind in KINDS
                        for t in texts(qv, kind)})
        self.under = st.sampled_from(under) if under else st.tuples(
            self.keys, self.qkeys, st.sampled_from(["2010", "male"]))
        of = sorted({(k, t, qk) for facts in kb.attributes for k, v, q in facts for qk in q
                     for kind in KINDS for t in texts(v, kind)})
        self.qualifier_of = st.sampled_from(of) if of else st.tuples(
            self.keys, st.sampled_from(["1"]), self.qkeys)
        rq = sorted({(f[1], qk) for facts in kb.relations for f in facts for qk in f[-1]})
        self.relation_qualifier = st.one_of(st.sampled_from(rq), st.tuples(
            self.relations, self.qkeys)) if rq else st.tuples(self.relations, self.qkeys)


def entity_sets(v: Vocabulary, small_sets: bool, max_leaves: int = 4):
    """Entity sets, built from Find (and FindAll) by the set and filter ops."""
    leaves = st.builds(ir.Find, name=v.entities)
    if not small_sets:
        leaves = st.one_of(leaves, st.just(ir.FindAll()))

    def filters(inner):
        def attr(cls, kind, op=True):
            return st.builds(lambda i, kv, c: cls(input=i, key=kv[0], value=kv[1],
                                                  **({"comparator": c} if op else {})),
                             inner, v.attr[kind], COMPARATORS)
        return st.one_of(
            st.builds(ir.Relate, input=inner, relation=v.relations, direction=DIRECTIONS),
            attr(ir.FilterStr, STRING, op=False), attr(ir.FilterNum, QUANTITY),
            attr(ir.FilterYear, YEAR), attr(ir.FilterDate, DATE))

    def extend(inner):
        with_facts = filters(inner)

        def qual(cls, kind, op=True):
            return st.builds(lambda i, kv, c: cls(input=i, qkey=kv[0], qvalue=kv[1],
                                                  **({"comparator": c} if op else {})),
                             with_facts, v.qual[kind], COMPARATORS)
        return st.one_of(
            with_facts, with_facts,
            qual(ir.QFilterStr, STRING, op=False), qual(ir.QFilterNum, QUANTITY),
            qual(ir.QFilterYear, YEAR), qual(ir.QFilterDate, DATE),
            st.builds(ir.FilterConcept, input=inner, concept=v.concepts),
            st.builds(ir.And, left=inner, right=inner),
            st.builds(ir.Or, left=inner, right=inner),
        )

    return st.recursive(leaves, extend, max_leaves=max_leaves)


def kb_programs(kb: KB, small_sets: bool = False):
    """Well-typed KoPL programs (no extension ops) over the names and values of `kb`."""
    v = Vocabulary(kb)
    sets = entity_sets(v, small_sets)
    named = st.builds(ir.Find, name=v.entities)
    pair_left = entity_sets(v, True, max_leaves=2) if small_sets else sets
    pair_right = st.one_of(named, st.builds(ir.Relate, input=named, relation=v.relations,
                                            direction=DIRECTIONS))
    under = st.builds(lambda i, t: ir.QueryAttrUnderCondition(input=i, key=t[0], qkey=t[1],
                                                              qvalue=t[2]), sets, v.under)

    def verify(cls, kind, op=True):
        values = st.one_of(st.builds(lambda i, kv: (ir.QueryAttr(input=i, key=kv[0]), kv[1]),
                                     sets, v.attr[kind]),
                           st.builds(lambda u, kv: (u, kv[1]), under, v.attr[kind]))
        return st.builds(lambda iv, c: cls(input=iv[0], value=iv[1],
                                           **({"comparator": c} if op else {})),
                         values, COMPARATORS)

    quantity_key = st.one_of(v.attr[QUANTITY].map(lambda kv: kv[0]), v.keys)
    return st.one_of(
        sets,
        st.builds(ir.QueryName, input=sets),
        st.builds(ir.Count, input=sets),
        st.builds(ir.QueryAttr, input=sets, key=v.keys),
        under,
        verify(ir.VerifyStr, STRING, op=False), verify(ir.VerifyNum, QUANTITY),
        verify(ir.VerifyYear, YEAR), verify(ir.VerifyDate, DATE),
        st.builds(ir.QueryRelation, left=pair_left, right=pair_right),
        st.builds(lambda left, right, rq: ir.QueryRelationQualifier(
            left=left, right=right, relation=rq[0], qkey=rq[1]),
            pair_left, pair_right, v.relation_qualifier),
        st.builds(lambda i, t: ir.QueryAttrQualifier(input=i, key=t[0], value=t[1], qkey=t[2]),
                  sets, v.qualifier_of),
        st.builds(ir.SelectBetween, left=sets, right=sets, key=quantity_key,
                  comparator=st.sampled_from(list(BetweenOp))),
        st.builds(ir.SelectAmong, input=sets, key=quantity_key,
                  comparator=st.sampled_from(list(AmongOp))),
    )


def _current(kb: KB, node) -> list[int]:
    """The node ids a set program yields, to steer the next step (the engine judges later)."""
    from koplc.kopl.errors import ExecutionError
    from koplc.kopl.execution.executor import execute

    try:
        return [kb.id_to_node[i] for i in execute(node, kb).entity_ids]
    except ExecutionError:
        return []


def _choose(draw, found: list, fallback):
    """Mostly something present in the current set; sometimes anything."""
    found = sorted(set(found), key=str)
    if found and draw(st.integers(0, 9)) < 8:
        return draw(st.sampled_from(found))
    return draw(fallback)


@st.composite
def guided_sets(draw, kb: KB, v: Vocabulary, depth: int = 3, small_sets: bool = False):
    """Entity sets whose every step mostly picks names the current set actually has."""
    if small_sets or draw(st.integers(0, 2)):
        node = ir.Find(name=_choose(draw, [kb.names[n] for n in kb.entity_nodes[::97]],
                                    v.entities))
    else:
        node = ir.FindAll()
    for _ in range(draw(st.integers(0, depth))):
        ids = _current(kb, node)
        step = draw(st.sampled_from(["relate", "relate", "attr", "concept", "qualifier",
                                     "and", "or"]))
        if step == "relate":
            node = _relate(draw, kb, v, node, ids)
        elif step == "attr":
            node = _attribute_filter(draw, kb, v, node, ids)
        elif step == "qualifier":
            if draw(st.booleans()):
                node = _relate(draw, kb, v, node, ids)
            else:
                node = _attribute_filter(draw, kb, v, node, ids)
            node = _qualifier_filter(draw, v, node, _facts(kb, node))
        elif step == "concept":
            concepts = [kb.names[c] for n in ids[:50] for c in kb.ancestors(n)]
            node = ir.FilterConcept(input=node, concept=_choose(draw, concepts, v.concepts))
        else:
            other = draw(guided_sets(kb, v, depth=1, small_sets=small_sets))
            node = (ir.And if step == "and" else ir.Or)(left=node, right=other)
    return node


def _relate(draw, kb: KB, v: Vocabulary, node, ids):
    options = [(r, d) for d, table in (("forward", kb.out_objects), ("backward", kb.in_objects))
               for r, per in table.items() for n in ids[:50] if n in per]
    relation, direction = _choose(draw, options, st.tuples(v.relations, DIRECTIONS))
    return ir.Relate(input=node, relation=relation, direction=direction)


_FILTERS = {STRING: ir.FilterStr, QUANTITY: ir.FilterNum, YEAR: ir.FilterYear, DATE: ir.FilterDate}
_QFILTERS = {STRING: ir.QFilterStr, QUANTITY: ir.QFilterNum, YEAR: ir.QFilterYear,
             DATE: ir.QFilterDate}


def _attribute_filter(draw, kb: KB, v: Vocabulary, node, ids):
    kind = draw(st.sampled_from(KINDS))
    pairs = [(k, t) for n in ids[:50] for k, value, _ in kb.attributes[n] for t in texts(value, kind)]
    key, text = _choose(draw, pairs, v.attr[kind])
    extra = {} if kind == STRING else {"comparator": draw(COMPARATORS)}
    return _FILTERS[kind](input=node, key=key, value=text, **extra)


def _facts(kb: KB, node) -> list[tuple]:
    from koplc.kopl.execution.executor import Executor

    executor = Executor(kb)
    try:
        return list(executor.with_facts(node)[1])
    except Exception:  # noqa: BLE001 - only steering; the engine is the judge
        return []


def _qualifier_filter(draw, v: Vocabulary, node, facts):
    kind = draw(st.sampled_from(KINDS))
    pairs = [(qk, t) for f in facts[:50] for qk, qvs in f[-1].items() for qv in qvs
             for t in texts(qv, kind)]
    qkey, text = _choose(draw, pairs, v.qual[kind])
    extra = {} if kind == STRING else {"comparator": draw(COMPARATORS)}
    return _QFILTERS[kind](input=node, qkey=qkey, qvalue=text, **extra)


@st.composite
def guided_programs(draw, kb: KB):
    """Programs whose sets are built by `guided_sets` and whose questions ask what they have;
    the inputs of QueryRelation* are small sets (Find and one step)."""
    v = Vocabulary(kb)
    node = draw(guided_sets(kb, v))
    ids = _current(kb, node)
    attrs = [(k, value) for n in ids[:50] for k, value, _ in kb.attributes[n]]
    kind = draw(st.sampled_from(KINDS))
    key, text = _choose(draw, [(k, t) for k, value in attrs for t in texts(value, kind)],
                        v.attr[kind])
    question = draw(st.sampled_from(["set", "name", "count", "attr", "verify", "under",
                                     "qualifier", "relation", "between", "among"]))
    if question == "set":
        return node
    if question == "name":
        return ir.QueryName(input=node)
    if question == "count":
        return ir.Count(input=node)
    if question == "attr":
        return ir.QueryAttr(input=node, key=key)
    if question == "verify":
        cls = {STRING: ir.VerifyStr, QUANTITY: ir.VerifyNum, YEAR: ir.VerifyYear,
               DATE: ir.VerifyDate}[kind]
        extra = {} if kind == STRING else {"comparator": draw(COMPARATORS)}
        return cls(input=ir.QueryAttr(input=node, key=key), value=text, **extra)
    if question == "under":
        found = [(k, qk, t) for n in ids[:50] for k, _, q in kb.attributes[n]
                 for qk, qvs in q.items() for qv in qvs for t in texts(qv, kind)]
        k, qk, t = _choose(draw, found, v.under)
        return ir.QueryAttrUnderCondition(input=node, key=k, qkey=qk, qvalue=t)
    if question == "qualifier":
        found = [(k, t, qk) for n in ids[:50] for k, value, q in kb.attributes[n] for qk in q
                 for t in texts(value, kind)]
        k, t, qk = _choose(draw, found, v.qualifier_of)
        return ir.QueryAttrQualifier(input=node, key=k, value=t, qkey=qk)
    if question == "relation":
        right = draw(guided_sets(kb, v, depth=1, small_sets=True))
        left = draw(guided_sets(kb, v, depth=1, small_sets=True))
        if draw(st.booleans()):
            return ir.QueryRelation(left=left, right=right)
        relation, qkey = draw(v.relation_qualifier)
        return ir.QueryRelationQualifier(left=left, right=right, relation=relation, qkey=qkey)
    quantity = _choose(draw, [k for k, value in attrs if value.type == QUANTITY], v.keys)
    if question == "between":
        other = draw(guided_sets(kb, v, depth=1))
        return ir.SelectBetween(left=node, right=other, key=quantity,
                                comparator=draw(st.sampled_from(list(BetweenOp))))
    return ir.SelectAmong(input=node, key=quantity, comparator=draw(st.sampled_from(list(AmongOp))))
