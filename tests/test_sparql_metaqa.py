"""Every tenth verified MetaQA dev gold program (Find, a Relate per hop, What), spread over the
files, gives the executor's answer through SPARQL on pyoxigraph, over the MetaQA KB in plain triples; a sample also runs in
the KQA Pro encoding."""

from __future__ import annotations

import pytest

from kb_fixtures import METAQA_KB, kb_for_fixture, metaqa_dev  # noqa: F401 - kb_for
from koplc.kopl.datasets.metaqa import gold_program, read_questions, score
from sparql_fixtures import native, oxigraph_for_fixture, same, through_sparql  # noqa: F401

pytestmark = pytest.mark.whole_kb
HOPS = (1, 2, 3)
STRIDE = 10  # 3,185 of the 31,835 whole-KB questions (tests/test_execute_metaqa.py runs all)


@pytest.fixture(scope="module")
def programs():
    questions = [q for hop in HOPS for q in read_questions(metaqa_dev(hop))[::STRIDE]]
    return [(q, gold_program(q.topic, q.qtype)) for q in questions]


def test_the_gold_programs_answer_the_same_on_pyoxigraph(programs, kb_for, oxigraph_for):
    kb, store = kb_for(METAQA_KB), oxigraph_for(METAQA_KB)
    assert len(programs) == 948 + 1488 + 749
    differ, right = [], 0
    for question, program in programs:
        got = through_sparql(program, store, "plain")
        if not same(native(program, kb), got):
            differ.append(question.text)
        right += score(got.value, question)
    assert not differ, differ[:5]
    assert right == len(programs)


def test_a_sample_answers_the_same_in_the_kqapro_encoding(programs, kb_for, oxigraph_for):
    kb, store = kb_for(METAQA_KB), oxigraph_for(METAQA_KB, "kqapro")
    for _, program in programs[::25]:
        assert same(native(program, kb), through_sparql(program, store, "kqapro"))
