"""A chain's answers reached without passing through its topic again rank first (the set is
kept), on a small hand-made KB of authors and papers (not MetaQA)."""

from __future__ import annotations

import pytest

from koplc import api
from koplc.kopl.answering.ranking import chain_of, topic_last

# Ada wrote P1 and P3 (alone); Bob wrote P1 and P2; Cy wrote P2. "Papers by Ada's coauthors"
# reaches P1 and P2 through Bob, and P3 only back through Ada herself.
TRIPLES = ["P1|written_by|Ada", "P3|written_by|Ada", "P1|written_by|Bob", "P2|written_by|Bob",
           "P2|written_by|Cy"]
COAUTHOR_PAPERS = ("Step 1: Find(Ada)\nStep 2: Relate(written_by, backward)\n"
                   "Step 3: Relate(written_by, forward)\nStep 4: Relate(written_by, backward)\n"
                   "Step 5: QueryName()\nDone")


@pytest.fixture(scope="module")
def authors(tmp_path_factory):
    path = tmp_path_factory.mktemp("authors") / "kb.txt"
    path.write_text("\n".join(TRIPLES) + "\n")
    return api.load_kb(path, cache=False)


def program(text: str):
    return api.parse(text).program


def test_the_answer_reached_only_through_the_topic_goes_last(authors):
    node = program(COAUTHOR_PAPERS)
    assert chain_of(node) == ("Ada", [("written_by", "backward"), ("written_by", "forward"),
                                      ("written_by", "backward")])
    assert topic_last(node, authors, ["P3", "P1", "P2"]) == ["P1", "P2", "P3"]
    assert topic_last(node, authors, ["P2", "P3", "P1"]) == ["P2", "P1", "P3"]


def test_one_hop_and_other_shapes_keep_the_executor_order(authors):
    one_hop = program("Step 1: Find(Ada)\nStep 2: Relate(written_by, backward)\n"
                      "Step 3: QueryName()\nDone")
    assert topic_last(one_hop, authors, ["P3", "P1"]) == ["P3", "P1"]
    count = program("Step 1: Find(Ada)\nStep 2: Relate(written_by, backward)\nStep 3: Count()\n"
                    "Done")
    assert chain_of(count) is None
    assert topic_last(None, authors, ["x", "y"]) == ["x", "y"]


def test_the_executed_set_is_unchanged(authors):
    answers = [str(a) for a in api.run(COAUTHOR_PAPERS, authors).items()]
    ranked = topic_last(program(COAUTHOR_PAPERS), authors, answers)
    assert sorted(ranked) == sorted(answers) and set(answers) == {"P1", "P2", "P3"}
    assert ranked[-1] == "P3"
