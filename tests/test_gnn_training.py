"""The tiny KBIGER configuration learns: loss falls in one epoch, Hits@1 beats the majority."""

from __future__ import annotations

import pytest

from gnn_fixtures import KB, TINY, TRAIN, VERIFIED, eval_file, majority_hits, tiny_model
from koplc import api
from koplc.gnn import checkpoint
from koplc.kopl.datasets.metaqa import read_questions


@pytest.mark.train
def test_loss_falls_within_one_epoch():
    _, result = tiny_model()
    [epoch] = result["history"]
    assert result["examples"] > 100
    assert epoch["last_loss"] < epoch["first_loss"]


@pytest.mark.train
def test_hits_at_1_beats_majority_baseline():
    folder, _ = tiny_model()
    metrics = api.gnn_eval(KB, folder, [eval_file()])
    baseline = majority_hits(TRAIN, eval_file())
    assert metrics["1-hop"]["n"] == 200
    assert metrics["1-hop"]["hits1"] > baseline + 10
    assert 0 <= metrics["1-hop"]["faithful"] <= 100


@pytest.mark.train
def test_checkpoint_and_plot_written_and_resume_is_a_no_op():
    folder, _ = tiny_model()
    assert (folder / "training.png").read_bytes()[:4] == b"\x89PNG"
    state = checkpoint.load(folder)
    assert state["epoch"] == 0 and len(state["history"]) == 1
    again = api.gnn_train(KB, TRAIN, folder, exclude=VERIFIED, progress=False, **TINY)
    assert again["history"] == state["history"]


@pytest.mark.train
def test_name_prior_relates_question_words_to_relation_names():
    import torch

    from koplc.gnn.data import Tokenizer
    from koplc.gnn.frontend import load_model

    folder, _ = tiny_model()
    state, parts = load_model(api.load_kb(KB, schema="metaqa"), folder)
    student, relations = state["reasoner"].student, state["relations"]
    assert student.config.name_prior
    ids = [Tokenizer().encode(q, "X") for q in ("the screenplay was written by whom",
                                                "who directed the film")]
    tokens = torch.zeros(2, max(map(len, ids)), dtype=torch.long)
    for row, pieces in enumerate(ids):
        tokens[row, :len(pieces)] = torch.tensor(pieces)
    attention = (tokens != 0).float() / (tokens != 0).sum(1, keepdim=True)
    with torch.no_grad():
        prior = student.name_prior(attention, tokens) / student.prior_scale
    written, directed = relations.index("written_by"), relations.index("directed_by")
    assert prior[0, written] > prior[0, directed] and prior[1, directed] > prior[1, written]
    assert torch.equal(prior[:, -1], torch.zeros(2))  # the self-loop has no name
    n_rel = len(relations)
    assert torch.allclose(prior[:, :n_rel], prior[:, n_rel:2 * n_rel])  # both directions


@pytest.mark.whole_kb
def test_type_filter_drops_questions_whose_type_reaches_none_of_their_answers():
    from koplc.gnn.data import type_consistent
    from koplc.kopl.datasets.metaqa import Question

    kb = api.load_kb(KB, schema="metaqa")
    verified = [q for f in VERIFIED for q in read_questions(f)]
    assert type_consistent(verified, kb) == verified
    film = "Fast Times at Ridgemont High"
    director = next(q for q in verified if q.qtype == "movie_to_director" and q.topic == film)
    writer = next(q for q in verified if q.qtype == "movie_to_writer" and q.topic == film)
    assert not writer.answers & director.answers
    # the writer question answered with someone who only directed (as 548 of the unverified
    # 1-hop questions are) is mislabelled for this KB
    as_writer = Question(None, writer.text, writer.topic, director.answers, writer.qtype)
    untyped = Question(None, director.text, director.topic, director.answers, "question")
    kept = type_consistent([as_writer, untyped, director], kb)
    assert kept == [untyped, director]
