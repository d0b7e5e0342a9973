"""The executor op by op: completeness, errors that name the step, rendering, and each option
of ExecOptions tested both ways."""

from __future__ import annotations

from datetime import date

import pytest

from kb_fixtures import EXAMPLE_KB, EXAMPLE_KB_EXT, kb_for_fixture  # noqa: F401 - kb_for
from koplc.kopl import ir
from koplc.kopl.errors import ExecutionError
from koplc.kopl.execution.executor import ExecOptions, Executor, execute
from koplc.kopl.registry import OPS
from koplc.kopl.types import AmongOp, BetweenOp, Comparator, Direction

FWD, BWD = Direction.FORWARD, Direction.BACKWARD
LEBRON, JR = ir.Find(name="LeBron James"), ir.Find(name="LeBron James Jr.")
PLAYERS = ir.FilterConcept(input=ir.FindAll(), concept="basketball player")


@pytest.fixture
def kb(kb_for):
    return kb_for(EXAMPLE_KB)


def run(program, kb, **options):
    return execute(program, kb, ExecOptions(**options)).render()


def test_every_op_of_the_registry_has_a_visit_method():
    missing = [name for name in OPS if not hasattr(Executor, OPS[name].visitor)]
    assert not missing, f"no visit method for {missing}"


def test_a_missing_relate_direction_names_the_step(kb):
    program = ir.QueryName(input=ir.Relate(input=LEBRON, relation="child", direction=None))
    with pytest.raises(ExecutionError, match=r"step 2 \(Relate\): no direction"):
        execute(program, kb)


def test_an_unknown_comparator_word_names_the_step(kb):
    program = ir.Count(input=ir.FilterNum(input=ir.FindAll(), key="height", value="1",
                                          comparator="bigger"))
    with pytest.raises(ExecutionError, match=r"step 2 \(FilterNum\): unknown comparator 'bigger'"):
        execute(program, kb)


@pytest.mark.parametrize("program", [
    ir.SelectBetween(left=LEBRON, right=JR, key="height", comparator="taller"),
    ir.SelectAmong(input=PLAYERS, key="height", comparator="tallest"),
    ir.QueryName(input=ir.Relate(input=LEBRON, relation="child", direction="sideways")),
])
def test_other_unknown_operator_words_raise(kb, program):
    with pytest.raises(ExecutionError, match="unknown"):
        execute(program, kb)


def test_an_ill_typed_program_raises_instead_of_crashing(kb):
    program = ir.QueryName(input=ir.Count(input=LEBRON))
    with pytest.raises(ExecutionError, match=r"step 2 \(Count\): gives count, not entities"):
        execute(program, kb)
    with pytest.raises(ExecutionError, match="without facts"):
        execute(ir.QFilterStr(input=ir.And(left=LEBRON, right=LEBRON), qkey="k", qvalue="v"), kb)


def test_a_bad_literal_names_the_step(kb):
    program = ir.Count(input=ir.FilterNum(input=ir.FindAll(), key="height", value="tall",
                                          comparator=Comparator.GT))
    with pytest.raises(ExecutionError, match=r"step 2 \(FilterNum\): cannot read 'tall'"):
        execute(program, kb)


def test_unknown_names_give_the_engines_empty_answers(kb):
    assert run(ir.QueryName(input=ir.Find(name="Michael Jordan")), kb) == []
    assert run(ir.Count(input=ir.FilterConcept(input=ir.FindAll(), concept="pilot")), kb) == "0"
    assert run(ir.QueryAttr(input=LEBRON, key="weight"), kb) == []
    assert run(ir.QueryRelation(left=LEBRON, right=ir.Find(name="nobody")), kb) == []


def test_relate_answers_carry_their_facts(kb):
    answer = execute(ir.Relate(input=LEBRON, relation="drafted by", direction=FWD), kb)
    assert answer.entity_ids == ["Q162990"]
    assert answer.facts == [{"relation": "drafted by", "direction": "forward",
                             "object": "Q162990", "qualifiers": {"point in time": ["2003-06-26"]}}]
    assert answer.render().startswith("(['Q162990'], [{'relation': 'drafted by'")
    assert answer.to_json() == {"type": "entities with facts", "entity_ids": ["Q162990"]}


@pytest.mark.parametrize("unit_conversion, expected", [(False, "0"), (True, "2")])
def test_unit_conversion_option(kb, unit_conversion, expected):
    taller = ir.Count(input=ir.FilterNum(input=PLAYERS, key="height", value="1.5 metre",
                                         comparator=Comparator.GT))
    assert run(taller, kb, unit_conversion=unit_conversion) == expected


@pytest.mark.parametrize("unit_conversion, expected", [(False, ["Anthony Davis"]),
                                                       (True, ["Yao Ming"])])
def test_unit_conversion_in_select(kb_for, unit_conversion, expected):
    tallest = ir.SelectAmong(input=PLAYERS, key="height", comparator=AmongOp.LARGEST)
    assert run(tallest, kb_for(EXAMPLE_KB_EXT), unit_conversion=unit_conversion) == expected


@pytest.mark.parametrize("unit_conversion, expected", [(False, "not sure"), (True, "yes")])
def test_unit_conversion_in_verify(kb_for, unit_conversion, expected):
    mass = ir.VerifyNum(input=ir.QueryAttr(input=ir.Find(name="Yao Ming"), key="mass"),
                        value="140 kilogram", comparator=Comparator.GT)
    assert run(mass, kb_for(EXAMPLE_KB_EXT), unit_conversion=unit_conversion) == expected


@pytest.mark.parametrize("findall_concepts, count, names", [
    (True, "3", ["LeBron James", "LeBron James Jr.", "basketball player"]),
    (False, "2", ["LeBron James", "LeBron James Jr."])])
def test_findall_concepts_option(kb, findall_concepts, count, names):
    athletes = ir.FilterConcept(input=ir.FindAll(), concept="athlete")
    assert run(ir.Count(input=athletes), kb, findall_concepts=findall_concepts) == count
    assert sorted(run(ir.QueryName(input=athletes), kb, findall_concepts=findall_concepts)) == names
    assert run(ir.Count(input=ir.FindAll()), kb, findall_concepts=findall_concepts) == \
        ("8" if findall_concepts else "4")


def test_inclusive_comparators_option(kb):
    program = ir.QueryName(input=ir.FilterNum(input=ir.FindAll(), key="height",
                                              value="188 centimetre", comparator=Comparator.GE))
    with pytest.raises(ExecutionError, match="unsupported comparator '>='"):
        execute(program, kb)
    assert sorted(run(program, kb, inclusive_comparators=True)) == ["LeBron James",
                                                                    "LeBron James Jr."]
    born = ir.QueryName(input=ir.FilterYear(input=ir.FindAll(), key="date of birth",
                                            value="1984", comparator=Comparator.LE))
    assert run(born, kb, inclusive_comparators=True) == ["LeBron James"]


@pytest.mark.parametrize("program", [
    ir.Entity(id="Q36159"),
    ir.ArgMax(input=PLAYERS, key="height"),
    ir.TimeConstraint(input=LEBRON, relation="drafted by", time="2003"),
    ir.Exists(input=LEBRON),
])
def test_extension_ops_option(kb, program):
    execute(program, kb)
    with pytest.raises(ExecutionError, match="koplc extension"):
        execute(program, kb, ExecOptions(extension_ops=False))


def test_exists_says_whether_the_set_holds_an_entity(kb):
    teams = ir.Relate(input=LEBRON, relation="member of sports team", direction=FWD)
    for team, said in (("Cleveland Cavaliers", "yes"), ("LeBron James Jr.", "no")):
        met = ir.Exists(input=ir.And(left=teams, right=ir.Find(name=team)))
        assert execute(met, kb).value == said
    assert execute(ir.Exists(input=ir.Find(name="nobody")), kb).value == "no"


def test_entity_by_id(kb):
    assert run(ir.QueryName(input=ir.Entity(id="Q36159")), kb) == ["LeBron James"]
    assert run(ir.Count(input=ir.Entity(id="Q0")), kb) == "0"


def test_argmax_argmin_keep_ties_and_follow_paths(kb_for):
    kb = kb_for(EXAMPLE_KB_EXT)
    shortest = ir.QueryName(input=ir.ArgMin(input=PLAYERS, key="height"))
    assert sorted(run(shortest, kb)) == ["Austin Reaves", "LeBron James Jr."]
    assert run(ir.QueryName(input=ir.ArgMax(input=PLAYERS, key="height")), kb) == ["Anthony Davis"]
    teams = ir.FilterConcept(input=ir.FindAll(), concept="basketball team")
    via_members = ir.ArgMax(input=teams, key="height", path=(
        ir.Hop(relation="member of sports team", direction=BWD),))
    assert run(ir.QueryName(input=via_members), kb) == ["Los Angeles Lakers"]
    oldest = ir.ArgMin(input=ir.FindAll(), key="date of birth")
    assert run(ir.QueryName(input=oldest), kb) == ["LeBron James"]
    assert run(ir.Count(input=ir.ArgMax(input=PLAYERS, key="nothing")), kb) == "0"


TIMED_KB = {"concepts": {}, "entities": {
    "p": {"name": "Pat", "instanceOf": [], "attributes": [], "relations": [
        {"relation": "member of", "direction": "forward", "object": "a",
         "qualifiers": {"start time": [{"type": "date", "value": "2001-03-01"}],
                        "end time": [{"type": "year", "value": 2004}]}},
        {"relation": "member of", "direction": "forward", "object": "b",
         "qualifiers": {"start time": [{"type": "year", "value": 2010}]}}]},
    "q": {"name": "Quinn", "instanceOf": [], "attributes": [], "relations": [
        {"relation": "member of", "direction": "forward", "object": "a",
         "qualifiers": {"point in time": [{"type": "year", "value": 1999}]}}]},
    "a": {"name": "A", "instanceOf": [], "attributes": [], "relations": []},
    "b": {"name": "B", "instanceOf": [], "attributes": [], "relations": []}}}


@pytest.mark.parametrize("time, expected", [
    ("2001", ["Pat"]), ("2001-02-01", []), ("2004-12-31", ["Pat"]), ("2005", []),
    ("NOW", ["Pat"]), ("1999", ["Quinn"]), ("1999-06-01", ["Quinn"])])
def test_time_constraint(time, expected):
    import json

    from koplc.kopl.kb.kopl_json import kb_from_text

    kb = kb_from_text(json.dumps(TIMED_KB))
    people = ir.Or(left=ir.Find(name="Pat"), right=ir.Find(name="Quinn"))
    program = ir.QueryName(input=ir.TimeConstraint(input=people, relation="member of", time=time))
    assert sorted(run(program, kb, today=date(2020, 1, 1))) == expected


def test_select_between_keeps_the_engines_tie_rule(kb):
    same = ir.SelectBetween(left=LEBRON, right=ir.Find(name="LeBron James"), key="height",
                            comparator=BetweenOp.GREATER)
    assert run(same, kb) == "LeBron James"
    with pytest.raises(ExecutionError, match="no quantity values of 'inception'"):
        execute(ir.SelectBetween(left=LEBRON, right=JR, key="inception",
                                 comparator=BetweenOp.LESS), kb)
