"""Relation-path repair on the shipped MetaQA KB: the chains one edit away that the KB answers,
and the LLM pipeline using them when every generated program finds nothing."""

from __future__ import annotations

import pytest

from koplc import api
from koplc.kopl.execution.executor import DEFAULT, execute
from koplc.kopl.grounding.path_edits import chain_of, edits, neighbours
from koplc.kopl.syntax import steps as steps_syntax
from koplc.kopl.types import Direction
from koplc.llm.symkgqa.pipeline import CompileOptions

F, B = Direction.FORWARD, Direction.BACKWARD


@pytest.fixture(scope="module")
def kb():
    return api.load_kb()  # the shipped MetaQA KB, under MetaQA's schema


def program(*calls: str):
    text = "\n".join(f"Step {i}: {c}" for i, c in enumerate(calls, 1)) + "\nDone"
    return steps_syntax.parse(text).program


def test_edits_cover_insert_delete_replace_swap_and_turn():
    hops = [("written_by", B), ("starred_actors", F)]
    found = dict(edits(hops, ["starred_actors", "written_by"]))
    assert found["insert written_by backward at 1"] == [("written_by", B)] + hops
    assert found["delete written_by backward"] == [("starred_actors", F)]
    assert found["replace starred_actors forward by written_by forward"] == [
        ("written_by", B), ("written_by", F)]
    assert found["swap written_by backward and starred_actors forward"] == hops[::-1]
    assert found["turn written_by backward and starred_actors forward around"] == [
        ("starred_actors", B), ("written_by", F)]
    assert found["delete written_by backward, replace starred_actors forward by written_by "
                 "forward"] == [("written_by", F)]
    assert found["insert written_by forward at 2, flip starred_actors forward"] == [
        ("written_by", B), ("written_by", F), ("starred_actors", B)]
    assert len(found) == 3 * 4 + 4 + 2 * (1 + 3) + 2 * 3 + 2


def test_a_dropped_middle_hop_is_put_back_with_the_next_hop_turned(kb):
    """"the movies directed by the director of Ratcatcher starred who": the model went from
    the director straight to starred_actors, backward as if it stood at a person."""
    wrong = program("Find(Ratcatcher)", "Relate(directed_by, forward)",
                    "Relate(starred_actors, backward)", "QueryName()")
    assert list(execute(wrong, kb, DEFAULT).items()) == []
    found = {n.edit: n for n in neighbours(wrong, kb)}
    fixed = found["insert directed_by backward at 2, flip starred_actors backward"]
    assert chain_of(fixed.program)[1] == [("directed_by", F), ("directed_by", B),
                                          ("starred_actors", F)]
    assert {"Samantha Morton", "Tilda Swinton"} <= set(fixed.answer)


def test_a_dropped_hop_is_put_back(kb):
    wrong = program("Find(The Parent Trap)", "Relate(directed_by, forward)",
                    "Relate(in_language, forward)", "QueryName()")
    assert list(execute(wrong, kb, DEFAULT).items()) == []
    found = {n.edit: n for n in neighbours(wrong, kb)}
    fixed = found["insert directed_by backward at 2"]
    assert chain_of(fixed.program)[1] == [("directed_by", F), ("directed_by", B),
                                          ("in_language", F)]
    assert fixed.answer == tuple(str(v) for v in execute(fixed.program, kb, DEFAULT).items())
    assert fixed.answer
    assert all(set(n.answer) - {"The Parent Trap"} for n in found.values())


def test_only_chains_are_edited(kb):
    assert neighbours(program("Find(Heat)", "Find(Tom Hanks)", "And()", "QueryName()"), kb) == []
    assert chain_of(program("Find(Heat)", "Relate(directed_by, forward)", "QueryName()"))


class Scripted:
    """Fault injection: an LM that always writes the same (wrong) program."""

    name = "scripted"

    def __init__(self, program: str):
        self.program = program

    def generate(self, prompt, n=1, *args, **kwargs):
        return [self.program] * n

    def score(self, prompt, continuation):
        return -float(len(continuation))


@pytest.mark.model
def test_pipeline_repairs_a_program_that_finds_nothing():
    compiler = api.compiler(lm=Scripted("Find(Jussi Vatanen)\nRelate(directed_by, backward)\n"
                                        "Relate(in_language, forward)\nQueryName()"))
    question = "what language are the films with Jussi Vatanen in"
    # no reuse: the nearest demonstrations' programs would answer before repair's turn
    result = compiler.compile(question, CompileOptions(reuse=False))
    best = result.best
    assert best.source == "repair" and best.answer and best.failed is None
    assert best.changes[-1]["pass"] == "path-repair"
    # The repair picks among the written program's answering neighbours by the scorer (here
    # the scripted LM's: fewer characters is likelier); the right one is among them.
    found = neighbours(result.attempts[0].node, compiler.kb)
    right = [n for n in found
             if n.edit == "replace directed_by backward by starred_actors backward"]
    assert [n.answer for n in right] == [("Finnish",)]
    assert len(best.program) == min(len(steps_syntax.print_program(n.program)) for n in found)
    assert compiler.compile(question, CompileOptions(repair=False, reuse=False)).answer == []


@pytest.mark.model
def test_grounding_keeps_the_question_entity_so_repair_gets_its_turn():
    """Execution guidance would trade "Submerged" for "Submarine", which makes this wrong
    program answer something (Submarine's years 1928 and 2010 are also the titles of films with
    tags; Submerged's 2005 is not); the question's entity is kept and the program finds
    nothing."""
    compiler = api.compiler(lm=Scripted("Find(Submarine)\nRelate(release_year, forward)\n"
                                        "Relate(has_tags, forward)\nQueryName()"))
    options = CompileOptions(reuse=False, rerank=False, repair=False)
    result = compiler.compile("the film [Submerged] starred which actors", options)
    [attempt] = result.attempts
    assert attempt.failed == "empty" and attempt.node is not None
    assert "Find(Submerged)" in attempt.grounded
    assert not any(c.get("replacement") == "Submarine" for c in attempt.changes)


def test_ands_of_a_repeated_find_give_way_to_the_chain_they_wrap(kb):
    # What the grammar makes of a model that repeats its Find line: extra Finds, then the
    # Ands that use them up, around the chain the question means.
    repeated = program("Find(The Good Heart)", "Find(The Good Heart)", "Find(The Good Heart)",
                       "Relate(directed_by, forward)", "Relate(directed_by, backward)",
                       "Relate(has_genre, forward)", "And()", "And()")
    assert not list(execute(repeated, kb, DEFAULT).items())
    meant = program("Find(The Good Heart)", "Relate(directed_by, forward)",
                    "Relate(directed_by, backward)", "Relate(has_genre, forward)", "QueryName()")
    found = neighbours(repeated, kb)
    assert found[0].program == meant and found[0].edit == "drop the joins of a bare Find"
    assert set(found[0].answer) == {str(v) for v in execute(meant, kb, DEFAULT).items()}
    # Joins of two real branches are kept: that program is no chain, so nothing is offered.
    both = program("Find(Tom Hanks)", "Relate(starred_actors, backward)", "Find(Meg Ryan)",
                   "Relate(starred_actors, backward)", "And()", "QueryName()")
    assert neighbours(both, kb) == []
