"""Every verified MetaQA dev question: Find(topic), a Relate per hop, What — exactly the gold
answers once the topic is removed from the final set (MetaQA's convention)."""

from __future__ import annotations

from collections import Counter

import pytest

from kb_fixtures import METAQA_KB, kb_for_fixture, kb_path, metaqa_dev  # noqa: F401 - kb_for
from koplc.kopl.datasets.metaqa import KB_SCHEMA, gold_program, hops_of, read_questions, score
from koplc.kopl.execution.executor import execute
from koplc.kopl.kb.triples import load_pipe_triples

HOPS = {1: 9477, 2: 14872, 3: 7486}  # verified dev questions per hop (kopl/datasets/data/README.md)


@pytest.fixture(scope="module")
def questions():
    return {hop: read_questions(metaqa_dev(hop)) for hop in HOPS}


def answered(kb, questions) -> Counter:
    right = Counter()
    for hop, batch in questions.items():
        right[hop] = sum(score(execute(gold_program(q.topic, q.qtype), kb).value, q)
                         for q in batch)
    return right


@pytest.mark.whole_kb
def test_every_gold_program_answers_its_question(kb_for, questions):
    assert {hop: len(batch) for hop, batch in questions.items()} == HOPS
    right = answered(kb_for(METAQA_KB), questions)
    print("MetaQA dev gold programs answered per hop:",
          {hop: f"{right[hop]}/{HOPS[hop]}" for hop in HOPS})
    assert right == Counter(HOPS)


@pytest.mark.whole_kb
def test_the_kb_built_from_the_triples_answers_them_too(questions):
    kb = load_pipe_triples(kb_path(METAQA_KB), KB_SCHEMA)
    sample = {hop: batch[::7] for hop, batch in questions.items()}
    assert answered(kb, sample) == Counter({hop: len(b) for hop, b in sample.items()})


@pytest.mark.whole_kb
def test_the_program_itself_keeps_the_topic(kb_for, questions):
    kb = kb_for(METAQA_KB)
    q = next(q for q in questions[2] if q.qtype == "movie_to_director_to_movie")
    names = execute(gold_program(q.topic, q.qtype), kb).value
    assert q.topic in names and score(names, q)


def test_question_types_map_to_hops():
    assert [(r, str(d)) for r, d in hops_of("movie_to_writer_to_movie_to_imdbvotes")] == [
        ("written_by", "forward"), ("written_by", "backward"), ("has_imdb_votes", "forward")]
    with pytest.raises(ValueError, match="no MetaQA relation"):
        hops_of("actor_to_director")
