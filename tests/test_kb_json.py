"""KoPL KB JSON: both spellings, the model's indexes, the JSON round trip, malformed files."""

from __future__ import annotations

import copy
import json

import pytest

from conftest import FIXTURES
from koplc.kopl.errors import KBError
from koplc.kopl.kb.kopl_json import kb_from_text, kb_to_data, kb_to_json, load_kopl_json
from koplc.kopl.values import Value

EXAMPLE = json.loads((FIXTURES / "kopl/example_kb.json").read_text())


def kqapro_spelling(data: dict) -> dict:
    """The example KB as KQA Pro's released kb.json writes it."""
    data = copy.deepcopy(data)
    for concept in data["concepts"].values():
        concept["instanceOf"] = concept.pop("subclassOf")
    for entity in data["entities"].values():
        for rel in entity["relations"]:
            rel["predicate"] = rel.pop("relation")
        for fact in [*entity["attributes"], *entity["relations"]]:
            values = [fact.get("value")] + [v for vs in fact["qualifiers"].values() for v in vs]
            for value in values:
                if value and value["type"] == "date":
                    value["value"] = value["value"].replace("-", "/")
    return data


def test_the_example_kb_loads_with_the_engines_node_order():
    kb = load_kopl_json(FIXTURES / "kopl/example_kb.json")
    assert kb.n_concepts == 4 and len(kb.ids) == 8
    assert kb.ids[:4] == list(EXAMPLE["concepts"]) and kb.ids[4:] == list(EXAMPLE["entities"])
    athlete = kb.name_to_nodes["athlete"][0]
    assert {kb.names[n] for n in kb.concept_members[athlete]} == {
        "basketball player", "LeBron James", "LeBron James Jr."}
    assert kb.key_type["point in time"] == "date" and kb.key_type["sport number"] == "quantity"
    lebron = kb.id_to_node["Q36159"]
    assert [kb.names[o] for o in kb.out_objects["child"][lebron]] == ["LeBron James Jr."]
    assert "drafted by" not in kb.in_objects  # the example KB stores no backward records
    assert kb.stats()["attribute facts"] == 9


def test_the_kqapro_spelling_gives_the_same_kb():
    ours = kb_to_data(kb_from_text(json.dumps(kqapro_spelling(EXAMPLE))))
    assert ours == kb_to_data(kb_from_text(json.dumps(EXAMPLE)))


def test_dates_are_read_in_both_spellings():
    kb = kb_from_text(json.dumps(kqapro_spelling(EXAMPLE)))
    lebron = kb.id_to_node["Q36159"]
    birth = [v for k, v, _ in kb.attributes[lebron] if k == "date of birth"]
    assert str(birth[0]) == "1984-12-30"


def test_the_json_round_trip_is_exact():
    for path in ("kopl/example_kb.json", "kopl/example_kb_ext.json"):
        data = json.loads((FIXTURES / path).read_text())
        assert json.loads(kb_to_json(kb_from_text(json.dumps(data)))) == data


def test_a_relation_to_a_concept_is_mirrored_on_the_concept_once():
    kb = load_kopl_json(FIXTURES / "kopl/example_kb_ext.json")
    player = kb.name_to_nodes["basketball player"][0]
    assert [kb.names[o] for o in kb.in_objects["occupation"][player]] == ["Yao Ming"]
    assert "occupation" not in json.dumps(kb_to_data(kb)["concepts"])


def test_a_year_valued_date_and_unitless_quantities():
    kb = kb_from_text(json.dumps({"entities": {"e": {"name": "x", "instanceOf": [], "relations": [],
        "attributes": [{"key": "k", "value": {"type": "date", "value": 1990}, "qualifiers": {}},
                       {"key": "n", "value": {"type": "quantity", "value": "12.5", "unit": "1"},
                        "qualifiers": {}}]}}}))
    values = [v for _, v, _ in kb.attributes[0]]
    assert values == [Value("year", 1990), Value("quantity", 12.5, "1")]
    assert [str(v) for v in values] == ["1990", "12.5"]


def _entity(**fields) -> dict:
    base = {"name": "x", "instanceOf": [], "attributes": [], "relations": []}
    return {"concepts": {"C": {"name": "c", "subclassOf": []}}, "entities": {"E": {**base, **fields}}}


def _attr(value: object, qualifiers: object = None) -> dict:
    return _entity(attributes=[{"key": "k", "value": value, "qualifiers": qualifiers or {}}])


MALFORMED = [
    ("not json", '{"entities": {', "not valid JSON"),
    ("top level is a list", "[]", 'top level: expected an object with an "entities" object'),
    ("concept without name", {"concepts": {"C": {"subclassOf": []}}, "entities": {}},
     "concepts['C'].name: expected a string"),
    ("instanceOf not a list", _entity(instanceOf="C"), "entities['E'].instanceOf: expected a list"),
    ("name not a string", _entity(name=7), "entities['E'].name: expected a string, got int 7"),
    ("unknown value type", _attr({"type": "money", "value": 3}),
     "entities['E'].attributes[0].value: unknown value type 'money'"),
    ("quantity not a number", _attr({"type": "quantity", "value": "tall", "unit": "1"}),
     "attributes[0].value.value: expected a number"),
    ("quantity without unit", _attr({"type": "quantity", "value": 3}),
     "attributes[0].value.unit: expected a string, got nothing"),
    ("impossible date", _attr({"type": "date", "value": "2001-02-30"}),
     "attributes[0].value.value: not a year or date"),
    ("qualifiers not an object", _attr({"type": "string", "value": "a"}, ["x"]),
     "attributes[0].qualifiers: expected an object"),
    ("qualifier values not a list", _attr({"type": "string", "value": "a"}, {"q": "x"}),
     "attributes[0].qualifiers['q']: expected a list"),
    ("bad direction", _entity(relations=[{"relation": "r", "direction": "up", "object": "C",
                                          "qualifiers": {}}]),
     "relations[0].direction: expected forward or backward, got 'up'"),
    ("dangling object", _entity(relations=[{"relation": "r", "direction": "forward",
                                            "object": "Q404", "qualifiers": {}}]),
     "relations[0].object: 'Q404' is not a concept or entity id"),
    ("dangling concept", _entity(instanceOf=["Q404"]),
     "entities['E']: parent concept 'Q404' is not a concept or entity id"),
    ("duplicate id", {"concepts": {"E": {"name": "c", "subclassOf": []}},
                      "entities": {"E": {"name": "x", "instanceOf": []}}},
     "entities['E']: duplicate id 'E'"),
    ("infinite quantity", _attr({"type": "quantity", "value": "inf", "unit": "1"}),
     "expected a finite number"),
]


@pytest.mark.parametrize("text, expected", [(m[1], m[2]) for m in MALFORMED],
                         ids=[m[0] for m in MALFORMED])
def test_a_malformed_kb_names_the_file_and_the_record(tmp_path, text, expected):
    path = tmp_path / "broken_kb.json"
    path.write_text(text if isinstance(text, str) else json.dumps(text))
    with pytest.raises(KBError) as caught:
        load_kopl_json(path)
    message = str(caught.value)
    assert str(path) in message
    assert expected in message


def test_bad_json_says_where(tmp_path):
    path = tmp_path / "kb.json"
    path.write_text('{"entities":\n  {"E": [}}')
    with pytest.raises(KBError, match=r"line 2, column \d+: not valid JSON"):
        load_kopl_json(path)
