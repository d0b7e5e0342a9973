"""The schema a prompt shows: the whole of a small KB's in the fixed prefix, byte for byte as
before (tests/fixtures/prompts); per question, the slice of a large KB's that fits the model's
context, with the relations of the question's entities and those its words name."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest

from koplc import api
from koplc.kopl.frontend import FAILURES, Compiled
from koplc.kopl.grounding.mentions import Linked, link
from koplc.kopl.kb.cache import load_kb
from koplc.kopl.kb.triple_schema import read_schema
from koplc.llm.symkgqa.demos import FIXED, Demo
from koplc.llm.symkgqa.pipeline import CompileOptions
from koplc.llm.symkgqa.prompt import PromptBuilder
from koplc.llm.symkgqa.schema_slice import (
    ANSWER_ROOM,
    name_words,
    schema_budget,
    token_estimate,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures"

# The prompts of these KBs (tests/fixtures/prompts), written by the builder before it sliced
# schemas, with the FIXED demonstrations.
SMALL = {
    "metaqa": (None, "who directed the films starring [Tom Hanks]"),
    "example_kb": ("kopl/example_kb.json", "How tall is LeBron James?"),
    "example_kb_ext": ("kopl/example_kb_ext.json", "Who is the father of LeBron James Jr.?"),
    "periodic": ("periodic/periodic_kb.json", "What is the atomic number of Iron?"),
}
DEVKBS = ("flights/kb.txt", "isotopes/kb.json", "starwars/kb.nt")

# A large generated KB: relation names of three styles from these words (snake_case,
# camelCase, dotted paths), concepts from the nouns, attribute keys from nouns and measures.
NOUNS = ("river harbour mountain glacier island valley forest desert canyon volcano author "
         "painter composer sculptor architect novel symphony portrait cathedral bridge company "
         "factory brand product patent engine vessel aircraft railway station species enzyme "
         "protein mineral element planet comet telescope satellite orbit").split()
LINKS = ("discovered_by named_after located_in part_of member_of owned_by founded_by "
         "designed_by built_by written_by painted_by composed_by made_from flows_into borders "
         "orbits manufactured_by operated_by successor_of predecessor_of influenced_by "
         "replaced_by powered_by connected_to supplies").split()
MEASURES = ("length height depth mass width area population founding_date opening_year "
            "speed").split()
PLACES = ("Velmora Ostrand Marlow Dunmore Kestrel Brannock Selwyn Tarrow Elsmere Corvin "
          "Halden Quillan Rosmer Vantry Wexley Ardane Byland Calder Fenwick Garrow").split()
GLACIER = "Marlow Glacier"


def relation_name(noun: str, link_: str) -> str:
    """The name of the relation of `noun` and `link_`, in one of three styles."""
    i = NOUNS.index(noun) * len(LINKS) + LINKS.index(link_)
    if i % 3 == 1:
        return noun + "".join(w.title() for w in link_.split("_"))  # riverFlowsInto
    if i % 3 == 2:
        return f"geo.{noun}.{link_}"
    return f"{noun}_{link_}"


FLOWS = relation_name("glacier", "flows_into")


def write_large_kb(folder: Path, n_relations: int = 1000, n_entities: int = 400) -> Path:
    """A KoPL KB JSON file with `n_relations` relations of varied words; GLACIER flows into
    one river and has a length."""
    rng = random.Random(17)
    relations = [relation_name(*pair) for pair in itertools.product(NOUNS, LINKS)]
    relations = relations[:n_relations]
    concepts = {f"C{i}": {"name": noun, "subclassOf": []} for i, noun in enumerate(NOUNS)}
    names = [GLACIER] + [f"{place} {noun.title()}" for place, noun in
                         itertools.product(PLACES, NOUNS)]
    names = names[:n_entities]
    entities = {}
    for i, name in enumerate(names):
        noun = name.split()[-1].lower()
        keys = rng.sample(MEASURES, 2)
        entities[f"E{i}"] = {
            "name": name, "instanceOf": [f"C{NOUNS.index(noun)}"],
            "attributes": [{"key": f"{noun}_{key}", "value": {"type": "quantity",
                                                              "value": rng.randint(1, 900),
                                                              "unit": "1"},
                            "qualifiers": {}} for key in keys],
            "relations": [{"relation": rng.choice(relations), "direction": "forward",
                           "object": f"E{rng.randrange(len(names))}", "qualifiers": {}}
                          for _ in range(3)]}
    entities["E0"]["relations"].append({"relation": FLOWS, "direction": "forward",
                                        "object": "E1", "qualifiers": {}})
    # Every relation is used at least once.
    for i, relation in enumerate(relations):
        entities[f"E{1 + i % (len(names) - 1)}"]["relations"].append(
            {"relation": relation, "direction": "forward",
             "object": f"E{rng.randrange(len(names))}", "qualifiers": {}})
    path = folder / "large_kb.json"
    path.write_text(json.dumps({"concepts": concepts, "entities": entities}), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def large_kb(tmp_path_factory):
    path = write_large_kb(tmp_path_factory.mktemp("large"))
    return load_kb(path, cache=False)


def small_kb(name: str):
    path, _ = SMALL[name]
    if path is None:
        return api.load_kb()  # the shipped MetaQA KB, under MetaQA's schema
    return api.load_kb(FIXTURES / path)


@pytest.mark.parametrize("name", sorted(SMALL))
def test_a_small_schema_gives_the_same_prompt_as_before(name):
    kb = small_kb(name)
    builder = PromptBuilder.for_kb(kb)
    prompt = builder.build(link(SMALL[name][1], kb), list(FIXED[:4]))
    assert builder.slicer is None
    assert prompt == (FIXTURES / "prompts" / f"{name}.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("path", DEVKBS)
def test_the_development_kbs_show_their_whole_schema_in_the_prefix(path):
    folder = FIXTURES / "devkbs" / Path(path).parent
    schema = read_schema(folder / "schema.json") if (folder / "schema.json").exists() else None
    kb = load_kb(folder / Path(path).name, cache=False, schema=schema)
    builder = PromptBuilder.for_kb(kb)
    assert builder.slicer is None
    assert builder.prefix.endswith("\n\n") and "\nRelations: " in builder.prefix
    assert builder.build(link("anything", kb), []).startswith(builder.prefix)


def test_names_split_into_words():
    assert name_words("glacierFlowsInto") == ("glacier", "flows", "into")
    assert name_words("geo.glacier.flows_into") == ("geo", "glacier", "flows", "into")
    assert name_words("ns:music.album/released_by#label") == (
        "ns", "music", "album", "released", "label")


def test_a_large_schema_is_sliced_per_question_after_a_fixed_prefix(large_kb):
    assert len(large_kb.relation_names) == 1000
    builder = PromptBuilder.for_kb(large_kb)
    assert builder.slicer is not None
    assert FLOWS not in builder.prefix and "Relations:" not in builder.prefix
    assert "listed just before it" in builder.prefix
    linked = link(f"What does {GLACIER} flow into?", large_kb)
    assert linked.entities == (GLACIER,)
    prompt = builder.build(linked, list(FIXED[:4]))
    assert prompt.startswith(builder.prefix)
    assert token_estimate(prompt) + ANSWER_ROOM <= builder.context
    schema = builder.schema(linked, list(FIXED[:4]))
    assert token_estimate(schema) <= schema_budget(builder.context)
    assert prompt.endswith(f"QueryName()\n\n{schema}\nQuestion: {linked.question}\n"
                           f"Entities: {GLACIER}\nConcepts: glacier\n")
    shown = relations_shown(schema)
    assert 10 < len(shown) < 1000
    node = large_kb.name_to_nodes[GLACIER][0]
    own = {fact[1] for fact in large_kb.relations[node]}
    assert own <= shown, own - shown
    keys = {fact[0] for fact in large_kb.attributes[node]}
    assert all(key in schema for key in keys) and "Concepts: " in schema
    other = builder.build(link("Who designed Velmora Bridge?", large_kb), list(FIXED[:4]))
    assert other.startswith(builder.prefix) and other != prompt


def relations_shown(schema: str) -> set[str]:
    line = next(line for line in schema.splitlines() if line.startswith("Relations: "))
    return set(line.removeprefix("Relations: ").split(", "))


def test_the_slice_ranks_by_the_questions_words_and_the_demonstrations(large_kb):
    builder = PromptBuilder.for_kb(large_kb)
    asked = Linked("Which comet orbits nothing?", (), (), ())
    shown = relations_shown(builder.schema(asked, []))
    assert relation_name("comet", "orbits") in shown  # every word of it is the question's
    built = relation_name("vessel", "built_by")
    assert built not in shown
    demo = Demo("Who built it?", ("X",), f"Step 1: Find(X)\nStep 2: Relate({built}, "
                "forward)\nStep 3: QueryName()\nDone")
    assert built in relations_shown(builder.schema(asked, [demo]))


def test_a_smaller_context_gets_a_smaller_slice(large_kb):
    class SmallLM:
        n_ctx = 2048

    small = PromptBuilder.for_kb(large_kb, SmallLM())
    large = PromptBuilder.for_kb(large_kb)
    linked = link(f"What does {GLACIER} flow into?", large_kb)
    assert small.context == 2048 and large.context == 4096 and small.prefix == large.prefix
    prompt = small.build(linked, list(FIXED[:4]))
    assert token_estimate(prompt) + ANSWER_ROOM <= 2048
    assert len(relations_shown(small.schema(linked, []))) < len(
        relations_shown(large.schema(linked, [])))


@pytest.mark.model
@pytest.mark.usefixtures("private_caches")
def test_the_model_compiles_a_question_over_1000_relations(tmp_path):
    """The embedded model writes a program for a question over the large KB, whose whole
    schema is six thousand tokens (the model's context is 4,096): a Compiled comes back, with
    answers or a failure at a stage, never an error. No samples: they read the same prompt as
    the greedy program does."""
    path = write_large_kb(tmp_path)
    compiled = api.compile(f"What does {GLACIER} flow into?", kb_path=path, frontend="llm",
                           response_cache="off", options=CompileOptions(reuse=False, samples=0))
    assert isinstance(compiled, Compiled)
    assert compiled.raw, compiled.to_json()  # the model wrote something
    assert compiled.answers or compiled.failure in FAILURES, compiled.to_json()
