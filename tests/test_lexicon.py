"""The one lexicon: its counting rule, its comparatives and superlatives as every reader reads
them, its verb forms, MetaQA's words applying to MetaQA's KB only, and names linked as
people shorten them."""

from __future__ import annotations

import json

import pytest

from conftest import FIXTURES
from kb_fixtures import METAQA_KB, kb_for_fixture  # noqa: F401 - the kb_for fixture
from koplc.kopl import lexicon
from koplc.kopl.answering.linking import link_question
from koplc.kopl.datasets import metaqa
from koplc.kopl.exploration.readings import relation_phrase
from koplc.kopl.grounding.mentions import link
from koplc.kopl.grounding.operators import read_operator
from koplc.kopl.kb.cache import load_kb
from koplc.kopl.kb.kopl_json import kb_from_text
from koplc.kopl.lexicon import (
    BY_ATTRIBUTE,
    COMPARATIVES,
    COMPARATOR_PHRASES,
    SUPERLATIVES,
    asks_how_many,
)
from koplc.kopl.types import AmongOp, ArgKind, Comparator
from koplc.llm.byokg import fit
from koplc.llm.byokg.ops import cues
from koplc.llm.symkgqa.answer_type import asked_types, retyped

EXAMPLE = FIXTURES / "kopl" / "example_kb.json"


@pytest.mark.parametrize("question", [
    "How many rivers flow through Paris?",
    "Tell me how many elements are noble gases",
    "what is the number of noble gases",
    "What number of people live in Paris?",
    "Count the halogens",
    "  count all metals",
])
def test_asks_how_many_is_the_union_of_the_old_rules(question):
    assert asks_how_many(question)


@pytest.mark.parametrize("question", [
    "Which rivers flow through Paris?",
    "What is the atomic number of Gold?",
    "Count of Monte Cristo: who wrote it?",
    "Who is the accountant of the discount store?",
])
def test_asks_how_many_says_no_to_other_questions(question):
    assert not asks_how_many(question)


def test_every_counting_reader_uses_the_one_rule():
    from koplc.kopl.grounding import repair

    assert repair.asks_how_many is fit.asks_how_many is asks_how_many
    from koplc.kopl.ir import Find, QueryName

    listing = QueryName(input=Find(name="Paris"))
    assert retyped(listing, asked_types("the number of rivers of Paris")).op == "Count"
    assert retyped(listing, asked_types("which rivers flow through Paris")) is None


def test_no_phrase_says_two_comparators():
    said: dict[str, Comparator] = {}
    for comparator, phrases in COMPARATOR_PHRASES.items():
        for phrase in phrases:
            assert said.setdefault(phrase, comparator) == comparator, phrase


@pytest.mark.parametrize("comparator", [Comparator.GT, Comparator.LT])
def test_comparatives_read_alike_in_programs_and_in_questions(comparator):
    for word in COMPARATIVES[comparator]:
        assert read_operator(ArgKind.COMPARATOR, word) == comparator, word
        cue = cues(f"Is it {word} 5?")
        assert (cue.more, cue.less) == (comparator == Comparator.GT, comparator == Comparator.LT)


@pytest.mark.parametrize("extreme", [AmongOp.LARGEST, AmongOp.SMALLEST])
def test_superlatives_read_alike_in_programs_and_in_questions(extreme):
    for word in SUPERLATIVES[extreme]:
        cue = cues(f"Which is the {word} one?")
        assert (cue.most, cue.least) == (extreme == AmongOp.LARGEST, extreme == AmongOp.SMALLEST)
        expected = None if word in BY_ATTRIBUTE else extreme
        assert read_operator(ArgKind.AMONG, word) == expected, word


def test_a_word_whose_comparator_depends_on_the_attribute_is_left_alone_in_programs():
    assert read_operator(ArgKind.AMONG, "oldest") is None
    assert read_operator(ArgKind.COMPARATOR, "older") is None
    oldest = cues("Which is the oldest element?")
    assert oldest.earlier and oldest.extremes == ("largest",)  # the earliest time, most age
    assert cues("Who is younger than 30?").amount_comparators == ("<",)


def test_verb_forms():
    assert lexicon.base_form("written") == lexicon.base_form("wrote") == "write"
    assert lexicon.base_form("discovered") == "discover"
    assert lexicon.base_form("read") is None and lexicon.base_form("river") is None
    assert [lexicon.simple_past(w) for w in ("written", "found", "named", "born")] == [
        "wrote", "found", "named", "bore"]
    # English morphology from lemminflect, not a list of the verbs a dev KB used
    assert [lexicon.base_form(w) for w in ("forgotten", "bred", "hundred", "Directed")] == [
        "forget", "breed", None, None]
    assert relation_phrase("written_by", "forward", "Typee") == "the entities that wrote Typee"
    assert fit.senses("built") == ["built", "build", "builder"]


@pytest.mark.whole_kb
def test_metaqa_words_are_metaqas_only(kb_for):
    movies, example = kb_for(METAQA_KB), load_kb(EXAMPLE)
    assert metaqa.lexicon_for(movies) is metaqa.WORDS
    assert metaqa.lexicon_for(example) is lexicon.NO_EXTRA
    assert not metaqa.WORDS.not_names & lexicon.NOT_NAMES  # the lexicon holds none of them
    # "film" is a tag of MetaQA's KB: a word that names nothing in MetaQA's questions
    question = "who directed the film heat"
    assert "film" in link(question, movies).entities
    assert "film" not in link(question, movies, metaqa.WORDS).entities
    assert "film" not in link_question(question, movies).entities


def test_metaqa_near_synonyms_come_in_only_when_passed():
    assert "kind" not in fit.senses("genre")
    assert "kind" in fit.senses("genre", metaqa.WORDS)
    assert "cast" in fit.senses("starred", metaqa.WORDS)


def _decays_kb():
    """Two nuclides, each decaying by one of two modes whose names differ in one inner word,
    and a mode named by two of their words."""
    mode = {"instanceOf": [], "attributes": [], "relations": []}

    def decays(by):
        return [{"predicate": "decays by", "direction": "forward", "object": by,
                 "qualifiers": {}}]
    return kb_from_text(json.dumps({"concepts": {}, "entities": {
        "m": {**mode, "name": "beta-minus delayed alpha emission"},
        "p": {**mode, "name": "beta-plus delayed alpha emission"},
        "a": {**mode, "name": "alpha emission"},
        "x": {**mode, "name": "beryllium-11", "relations": decays("m")},
        "y": {**mode, "name": "boron-8", "relations": decays("p")}}}))


def test_a_name_written_with_an_inner_word_left_out_links_the_one_the_question_fits():
    kb = _decays_kb()
    said = "Does beryllium-11 decay by beta-delayed alpha emission?"
    assert link(said, kb).entities == ("beryllium-11", "beta-minus delayed alpha emission")
    said = "Does boron-8 decay by beta-delayed alpha emission?"
    assert link(said, kb).entities == ("boron-8", "beta-plus delayed alpha emission")
    # with nothing to choose by, neither; and a shorter name inside is still linked in full
    assert link("What is beta-delayed alpha emission?", kb).entities == ("alpha emission",)


def test_relatedness_and_sameness_words():
    from koplc.kopl.relatives import says_relatedness

    assert says_relatedness("What ties the house mouse to its status?")
    assert says_relatedness("What's the connection between Jason White and series two?")
    assert not says_relatedness("Which planets do the women come from?")
    assert lexicon.says_sameness("Who shared a homeworld with Yoda?")
    assert lexicon.says_sameness("Which films have the same director as Alien?")
    assert not lexicon.says_sameness("Who directed Alien?")
