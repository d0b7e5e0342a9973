"""The LLM front end's parts that need no model: catalogue, grammar, linking, caches, errors."""

from __future__ import annotations

import os
import re

import pytest

from koplc import api, cli
from koplc.kopl.errors import KoplcError
from koplc.kopl.grounding.mentions import link
from koplc.kopl.registry import OPS
from koplc.kopl.syntax import steps as steps_syntax
from koplc.llm.lm.gbnf import grammar_for
from koplc.llm.lm.response_cache import ResponseCache, cached
from koplc.llm.symkgqa.catalogue import catalogue, ops_for_kb
from koplc.llm.symkgqa.demos import FIXED, Demo, metaqa_pool, steps_of, template_key, template_of


@pytest.fixture(scope="module")
def kb():
    return api.load_kb()  # the shipped MetaQA KB, under MetaQA's schema


def test_catalogue_comes_from_the_registry(kb):
    ops = ops_for_kb(kb)
    names = [op.name for op in ops]
    assert {"Find", "Relate", "QueryName", "Count"} <= set(names)
    assert "FilterNum" not in names  # the MetaQA KB has no attribute keys
    text = catalogue(ops)
    assert OPS["Relate"].signature() in text
    assert len(catalogue(ops_for_kb())) > len(text)


def _gbnf_as_lark(text: str):
    """The generated GBNF read by Lark (it uses only rules, literals, groups, ?, * and one
    character class), to check which programs it accepts."""
    import lark

    lines = [re.sub(r"\b(s\d+)-(\d+)", r"\1_\2", line).replace(" ::= ", ": ")
             .replace("[^,()\\n]+", "/[^,()\\n]+/")
             for line in text.splitlines()]
    return lark.Lark("\n".join(lines), start="root", parser="earley")


def test_grammar_compiles_and_accepts_only_well_formed_steps(kb):
    import lark
    from llama_cpp import LlamaGrammar

    text = grammar_for(ops_for_kb(kb))
    LlamaGrammar.from_string(text, verbose=False)
    LlamaGrammar.from_string(grammar_for(ops_for_kb()), verbose=False)
    grammar = _gbnf_as_lark(text)
    good = ["Find(Heat)\nRelate(directed_by, forward)\nQueryName()\n",
            "Find(Heat)\nRelate(directed_by)\n",
            "Find(A)\nRelate(r, forward)\nFind(B)\nRelate(s, backward)\nAnd()\nCount()\n",
            "Find(A)\nFind(B)\nQueryRelation()\n",
            "Find(A)\nFind(B)\nFind(C)\nOr()\nAnd()\nQueryName()\n"]
    bad = ["Find(A)\nFind(A)\nQueryName()\n",  # a branch never joined
           "Find(A)\nFind(A)\nFind(A)\nFind(A)\nAnd()\nAnd()\nAnd()\nQueryName()\n",
           "Find(A)\nQueryName()\nCount()\n",  # QueryName's output feeds nothing
           "Relate(r, forward)\nQueryName()\n",  # the first step needs no input
           "Find(A)\nAnd()\nQueryName()\n",  # And needs two branches
           "Find(A)\nRelate(r, sideways)\nQueryName()\n",
           "Find(A)\n" + "Relate(r, forward)\n" * 7 + "QueryName()\n"]  # over MAX_STEPS
    for program in good:
        grammar.parse(program)
        assert steps_syntax.parse(steps_of(program)).program is not None
    for program in bad:
        with pytest.raises(lark.exceptions.LarkError):
            grammar.parse(program)
    # With no op that joins branches, no rule may open a second one (it could never end).
    chains = grammar_for([op for op in ops_for_kb(kb) if op.arity < 2])
    assert "And" not in chains and 'source "\\n" s' not in chains.split("\n", 1)[1]
    _gbnf_as_lark(chains).parse(good[0])


def test_linking_finds_entities_without_brackets(kb):
    linked = link("who directed the movies that Tom Hanks acted in?", kb)
    assert linked.entities == ("Tom Hanks",)
    assert linked.masked() == "who directed the movies that ENT acted in?"
    assert link("what does [Tom Cullen] act in", kb).entities == ("Tom Cullen",)
    assert link("how do i reset my password", kb).entities == ()
    # one normal form, two entities: the spelling the question uses picks the tag or the person
    assert link("what films are about [kevin costner]", kb).entities == ("kevin costner",)
    assert link("what films did Kevin Costner star in", kb).entities == ("Kevin Costner",)
    # "the cast" is an article and one lower-case word: not a name in a mixed-case question
    assert link("which movies had Eric McCormack in the cast", kb).entities == ("Eric McCormack",)
    # a possessive is not part of the name
    linked = link("who directed Laura Harris's films", kb)
    assert linked.entities == ("Laura Harris",)
    assert linked.masked() == "who directed ENT's films"
    assert link("who directed Laura Harris’s films", kb).entities == ("Laura Harris",)


def test_pool_has_one_demo_per_template():
    pool = metaqa_pool(api.default_kb_path().parent.parent, pattern="none")
    assert pool == []
    from koplc.llm.lm.defaults import default_pool

    pool = default_pool()
    assert len(pool) == len({d.template for d in pool}) > 400
    assert template_of("what does [Tom Cullen] act in") == "what does ENT act in"
    for demo in pool[:50] + FIXED:
        assert api.check(demo.program).ok


def test_a_demo_adapts_to_another_entity():
    demo = Demo("who directed the films written by Heat", ("Heat",),
                "Step 1: Find(Heat)\nStep 2: Relate(written_by, backward)\n"
                "Step 3: Relate(directed_by, forward)\nStep 4: QueryName()\nDone", "t")
    assert demo.adapted('Say "Cheese", Pal') == (
        'Find("Say \\"Cheese\\", Pal")\nRelate(written_by, backward)\n'
        "Relate(directed_by, forward)\nQueryName()")
    assert template_key("What does ENT  act in ?") == template_key("what does ENT act in")


def test_hints_are_the_demos_programs_for_the_question_nearest_first(kb):
    from koplc.llm.symkgqa.pipeline import hints

    far, near = FIXED[0], FIXED[1]
    linked = link("what genre is Heat", kb)
    assert hints(linked, [far, near]) == [near.adapted("Heat") + "\n\n",
                                         far.adapted("Heat") + "\n\n"]
    assert hints(link("did Tom Hanks act with Meg Ryan", kb), [far, near]) == []


class NoGeneration:
    """Fault injection: an LM whose generation must not be reached (scoring is allowed)."""

    name = "no-generation"

    def generate(self, *args, **kwargs):
        raise AssertionError("the LM was asked to generate")

    def score(self, prompt, continuation):
        return -float(len(continuation))


@pytest.mark.model
def test_case_reuse_needs_no_generation(kb):
    from koplc.llm.symkgqa.pipeline import CompileOptions

    compiler = api.compiler(lm=NoGeneration())
    result = compiler.compile("What movies did Tom Hanks act in?")
    assert result.best.source == "reuse" and result.seconds["generation"] == 0
    assert "Relate(starred_actors, backward)" in result.best.grounded
    assert {"Forrest Gump", "Splash"} <= set(result.answer)
    assert result.demos == ["what movies did Temuera Morrison act in"]
    excluded = CompileOptions(exclude_template="what movies did ENT act in")
    near = compiler.compile("what movies did [Tom Hanks] act in", excluded)
    assert near.best.source == "reuse" and near.seconds["generation"] == 0
    assert near.demos != result.demos and {"Forrest Gump", "Splash"} <= set(near.answer)
    with pytest.raises(AssertionError, match="asked to generate"):
        compiler.compile("what movies did [Tom Hanks] act in", CompileOptions(reuse=False))


def test_response_cache_round_trips(tmp_path):
    cache = ResponseCache(tmp_path / "r.sqlite")
    calls = []

    def compute():
        calls.append(1)
        return ["x"]

    request = {"model": "m", "prompt": "p", "temperature": 0.0}
    assert cached(cache, request, compute) == ["x"]
    assert cached(ResponseCache(tmp_path / "r.sqlite"), request, compute) == ["x"]
    assert cached(cache, {**request, "temperature": 0.3}, compute) == ["x"]
    assert len(calls) == 2


def test_corrupt_model_cache_is_reported(tmp_path, monkeypatch, capsys):
    from koplc.llm.lm.model_cache import embedded_model_path

    monkeypatch.setenv("KOPLC_CACHE_DIR", str(tmp_path))
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "gemma-3-270m-q4_k_m.gguf").write_bytes(b"not a model")
    with pytest.raises(KoplcError, match="corrupt"):
        embedded_model_path()
    question = tmp_path / "q.txt"
    question.write_text("who directed Blade Runner\n")
    assert cli.main(["compile", str(question)]) == cli.EXIT_USER_ERROR
    assert "corrupt" in capsys.readouterr().err


def test_empty_and_unreadable_question_files(tmp_path, capsys):
    empty = tmp_path / "empty.txt"
    empty.write_text("\n  \n")
    assert cli.main(["compile", str(empty)]) == cli.EXIT_USER_ERROR
    assert "empty" in capsys.readouterr().err
    missing = tmp_path / "missing.txt"
    assert cli.main(["compile", str(missing)]) == cli.EXIT_USER_ERROR
    assert "cannot read" in capsys.readouterr().err
    if os.geteuid() != 0:  # root reads anything
        locked = tmp_path / "locked.txt"
        locked.write_text("who directed Heat")
        locked.chmod(0)
        assert cli.main(["compile", str(locked)]) == cli.EXIT_USER_ERROR


def test_unknown_lm_spec(tmp_path, capsys):
    question = tmp_path / "q.txt"
    question.write_text("who directed Blade Runner\n")
    assert cli.main(["compile", str(question), "--lm", "no-such-thing"]) == cli.EXIT_USER_ERROR
    assert "--lm" in capsys.readouterr().err


class PrefersLonger:
    """Fault injection: an LM that always finds the longer name more likely."""

    name = "prefers-longer"

    def score(self, prompt, continuation):
        return float(len(continuation))


def test_a_name_the_question_says_word_for_word_leads_without_the_lm():
    from koplc.kopl.grounding.choosers import Candidate
    from koplc.kopl.types import ArgKind
    from koplc.llm.lm.scoring import LMChooser

    chooser = LMChooser(PrefersLonger())
    candidates = [Candidate("Phantom of the Opera", 1.0), Candidate("The Phantom of the Opera", 0.97)]
    said = chooser.rank(ArgKind.ENTITY, "Phantom of the Opera", candidates,
                        "which movies share a writer with [Phantom of the Opera]")
    assert said[0].name == "Phantom of the Opera"
    # The others fall as far as the LM could have put them, so execution guidance does not
    # trade the named entity for a near namesake that makes a wrong program answer.
    assert said[1].score == pytest.approx(0.97 * (1 - chooser.weight))
    # The question says the longer name: it leads, though the program wrote the shorter.
    longer = chooser.rank(ArgKind.ENTITY, "Phantom of the Opera", candidates,
                          "who wrote The Phantom of the Opera")
    assert longer[0].name == "The Phantom of the Opera"
    # Neither said: the LM decides (here, for the longer).
    unsaid = chooser.rank(ArgKind.ENTITY, "Phantom of the Opera", candidates, "who wrote it")
    assert unsaid[0].name == "The Phantom of the Opera"


@pytest.mark.model
def test_a_near_twin_swaps_one_word_for_a_synonym_only():
    from koplc.llm.symkgqa.demos import Demo, DemoSelector

    pool = [Demo("what films did Heat direct", ("Heat",), "Step 1: Find(Heat)\nDone",
                 "what films did ENT direct")]
    selector = DemoSelector(pool)
    assert selector.near_twin("what movies did ENT direct") is pool[0]
    assert selector.near_twin("what films did ENT write") is None  # another relation
    assert selector.near_twin("what films did ENT direct or write") is None  # not one swap
    assert selector.near_twin("what movies did ENT direct",
                              exclude_template="what films did ENT direct") is None
