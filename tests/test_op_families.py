"""Op families and value kinds are data on the IR classes; the registry answers from them."""

from collections import defaultdict
from typing import get_args

import pytest

from koplc.kopl import ir
from koplc.kopl.execution.executor import Executor
from koplc.kopl.registry import (
    OPS,
    family_of,
    info_of,
    op_for,
    ops_of,
    value_kind_of,
    value_kinds_of,
)
from koplc.kopl.types import Family, ValueKind
from koplc.kopl.values import TYPES
from koplc.sparql_backend.lower import Lowering

FILTER_LIKE = ("filter", "qfilter", "verify")


def _pairs() -> dict[tuple[str, str], list[str]]:
    pairs = defaultdict(list)
    for name, info in OPS.items():
        pairs[info.family, info.value_kind].append(name)
    return pairs


def test_every_op_has_a_family_and_a_value_kind_of_the_closed_sets():
    for cls in ir.OP_CLASSES:
        assert "family" in vars(cls), f"{cls.__name__} does not say its family"
        assert family_of(cls) in get_args(Family)
        assert value_kind_of(cls) in get_args(ValueKind)


def test_every_family_has_an_op():
    assert {info.family for info in OPS.values()} == set(get_args(Family))


def test_an_op_takes_at_most_one_value():
    for cls in ir.OP_CLASSES:
        fields = [name for name, kind in cls.arg_fields() if kind.name in
                  ("STRING", "NUMBER", "YEAR", "DATE", "VALUE", "TIME")]
        assert len(fields) <= 1, cls.__name__
        assert cls.value_field() == (fields[0] if fields else None)


@pytest.mark.parametrize("pair", sorted(_pairs()))
def test_op_for_round_trips_where_the_pair_names_one_op(pair):
    family, kind = pair
    names = _pairs()[pair]
    if len(names) == 1:
        assert op_for(family, kind) is OPS[names[0]].cls
        assert (family_of(names[0]), value_kind_of(names[0])) == pair
    else:
        with pytest.raises(KeyError, match="more than one"):
            op_for(family, kind)


def test_op_for_refuses_a_pair_no_op_has():
    with pytest.raises(KeyError, match="no filter op"):
        op_for("filter", "keyed")


@pytest.mark.parametrize("family", FILTER_LIKE)
def test_the_filter_like_families_cover_exactly_the_value_kinds(family):
    assert set(value_kinds_of(family)) == set(TYPES)
    assert len(ops_of(family)) == len(TYPES)
    for kind in TYPES:
        assert family_of(op_for(family, kind)) == family


def test_the_examples_of_the_issue():
    assert op_for("filter", "quantity") is ir.FilterNum
    assert op_for("verify", "date") is ir.VerifyDate
    assert op_for("qfilter", "year") is ir.QFilterYear
    assert ops_of("verify") == (ir.VerifyStr, ir.VerifyNum, ir.VerifyYear, ir.VerifyDate)


def test_family_and_value_kind_of_a_node_a_class_a_name_and_an_alias():
    node = ir.FilterYear(input=ir.FindAll(), key="k", value="1990", comparator="<")
    assert family_of(node) == family_of(ir.FilterYear) == family_of("FilterYear") == "filter"
    assert value_kind_of(node) == "year"
    assert info_of("What").name == "QueryName"
    with pytest.raises(KeyError):
        info_of("NoSuchOp")


def test_only_ops_that_differ_in_value_kind_alone_share_a_visitor():
    for name, info in OPS.items():
        shared = info.visitor == f"visit_{info.family}"
        assert shared == (info.family in FILTER_LIKE), name
        if not shared:
            assert info.visitor == f"visit_{name}"


@pytest.mark.parametrize("name", sorted(OPS))
def test_the_visitor_the_registry_names_is_where_it_says(name):
    """From an op's class a newcomer reaches its semantics and lowering by the registry's
    `visitor` and `module`: kopl/execution/<module>.py, sparql_backend/lower_<module>.py."""
    info = OPS[name]
    assert getattr(Executor, info.visitor).__module__ == f"koplc.kopl.execution.{info.module}"
    assert getattr(Lowering, info.visitor).__module__ == \
        f"koplc.sparql_backend.lower_{info.module}"
