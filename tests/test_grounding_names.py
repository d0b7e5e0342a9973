"""Name grounding on the geography KB: every kind of name, directions, the question as context,
execution guidance (and its ablation), provenance, and the errors for names nothing matches."""

from __future__ import annotations

import pytest

from grounding_fixtures import context, geo_fixture  # noqa: F401 - the geo fixture
from koplc import api
from koplc.kopl.errors import GroundingError
from koplc.kopl.execution.executor import execute
from koplc.kopl.grounding.driver import explain, ground
from koplc.kopl.grounding.index.kb_indexes import Indexes
from koplc.kopl.grounding.names import ground_names
from koplc.kopl.kb.model import KBBuilder
from koplc.kopl.types import Direction


def parsed(text: str):
    return api.parse(text).program


@pytest.mark.model
def test_typos_paraphrases_and_a_missing_direction(geo):
    grounded = ground(parsed("QueryName(Relate(Find('pariss'), 'location'))"),
                      context(geo, "where is Paris located"))
    relate = grounded.program.input
    assert (relate.input.name, relate.relation, relate.direction) == (
        "Paris", "located in", Direction.FORWARD)
    assert grounded.remaining == []
    fields = {(c.pass_name, c.field): c for c in grounded.changes}
    assert fields[("names", "name")].original == "pariss"
    assert fields[("names", "name")].candidates[0].name == "Paris"
    assert fields[("names", "direction")].original is None


@pytest.mark.model
def test_concepts_attributes_and_qualifiers(geo):
    text = ("Count(QFilterYear(Relate(FilterConcept(FindAll(), 'humans'), 'citizenship', "
            "'forward'), 'start date', '1895', '='))")
    grounded = ground(parsed(text), context(geo)).program
    qfilter = grounded.input
    assert qfilter.qkey == "start time"
    assert qfilter.input.relation == "country of citizenship"
    assert qfilter.input.input.concept == "human"
    assert execute(grounded, geo[0]).value == "1"
    attribute = ground(parsed("QueryAttr(Find('Paris'), 'areas')"), context(geo)).program
    assert attribute.key == "area"


@pytest.mark.model
def test_a_backward_direction_comes_from_the_kb(geo):
    for guided in (True, False):
        grounded = ground(parsed("QueryName(Relate(Find('France'), 'located in'))"),
                          context(geo, execution_guidance=guided)).program
        assert grounded.input.direction == Direction.BACKWARD


@pytest.mark.model
def test_execution_guidance_skips_a_relation_that_gives_nothing(geo):
    text = "QueryName(Relate(Find('Paris'), 'capital'))"
    guided = ground(parsed(text), context(geo))
    assert guided.program.input.relation == "capital of"
    assert execute(guided.program, geo[0]).value == ["France"]
    change = next(c for c in guided.changes if c.field == "relation")
    assert "left the program empty: 'capital'" in change.reason
    # The ablation keeps the exact name, which gives nothing from Paris.
    unguided = ground(parsed(text), context(geo, execution_guidance=False)).program
    assert unguided.input.relation == "capital"
    assert execute(unguided, geo[0]).value == []


@pytest.mark.model
def test_execution_guidance_skips_an_entity_no_later_step_can_use(geo):
    text = "QueryName(Relate(Find('Springfeld'), 'located in', 'forward'))"
    assert ground(parsed(text), context(geo, execution_guidance=False)
                  ).program.input.input.name == "Springfield"
    grounded = ground(parsed(text), context(geo)).program
    assert grounded.input.input.name == "Springfield, Illinois"
    assert execute(grounded, geo[0]).value == ["United States"]


@pytest.mark.model
def test_the_question_decides_between_near_misses(geo):
    text = "Count(Relate(Find('Springfeld'), 'located in', 'forward'))"
    without = ground(parsed(text), context(geo, execution_guidance=False)).program
    with_question = ground(parsed(text), context(
        geo, "in which country is Springfield, Illinois", execution_guidance=False)).program
    assert without.input.input.name == "Springfield"
    assert with_question.input.input.name == "Springfield, Illinois"


@pytest.mark.model
def test_the_joint_grounding_keeps_both_branches_non_empty(geo):
    text = ("QueryName(And(Relate(Find('Frnace'), 'located in'), "
            "FilterConcept(FindAll(), 'cities')))")
    grounded = ground(parsed(text), context(geo)).program
    assert sorted(execute(grounded, geo[0]).value) == ["Paris"]


@pytest.mark.model
def test_a_grounded_program_is_left_alone(geo):
    text = "QueryName(Relate(Find('Paris'), 'located in', 'forward'))"
    grounded = ground(parsed(text), context(geo))
    assert grounded.program == parsed(text) and grounded.changes == []
    assert "no changes" in explain(grounded.changes)


@pytest.mark.model
def test_a_program_without_names_is_left_alone(geo):
    grounded = ground(parsed("Count(FindAll())"), context(geo))
    assert grounded.program == parsed("Count(FindAll())") and grounded.changes == []


@pytest.mark.model
def test_a_name_nothing_matches_is_a_clear_error(geo):
    with pytest.raises(GroundingError) as caught:
        ground(parsed("QueryName(Relate(Find('Paris'), 'qxzvbw jjkq'))"), context(geo))
    assert [d.code for d in caught.value.diagnostics] == ["ungroundable"]
    assert "'qxzvbw jjkq'" in str(caught.value)


def test_an_empty_kb_is_a_clear_error():
    kb = KBBuilder().build()
    ctx = context((kb, Indexes.for_kb(kb)))
    with pytest.raises(GroundingError) as caught:
        ground_names(parsed("QueryName(Relate(Find('Paris'), 'located in'))"), ctx)
    assert {d.code for d in caught.value.diagnostics} == {"empty-vocabulary"}
    assert "the KB has no entities" in str(caught.value)
    assert ground(parsed("Count(FindAll())"), ctx).program == parsed("Count(FindAll())")


@pytest.mark.model
def test_explain_lists_original_replacement_candidates_and_why(geo):
    grounded = ground(parsed("QueryName(Relate(Find('pariss'), 'location'))"), context(geo))
    table = explain(grounded.changes)
    header, rule, *rows = table.splitlines()
    assert [cell.strip() for cell in header.split(" | ")] == [
        "pass", "step", "field", "original", "replacement", "top candidates", "why"]
    assert set(rule) == {"-", "+"}
    assert any("pariss" in row and "Paris (" in row and "nearest entity" in row for row in rows)
