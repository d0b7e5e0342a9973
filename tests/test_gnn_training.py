"""The tiny KBIGER configuration learns: loss falls in one epoch, Hits@1 beats the majority."""

from __future__ import annotations

from gnn_fixtures import KB, TINY, TRAIN, VERIFIED, eval_file, majority_hits, tiny_model
from koplc import api
from koplc.gnn import checkpoint


def test_loss_falls_within_one_epoch():
    _, result = tiny_model()
    [epoch] = result["history"]
    assert result["examples"] > 100
    assert epoch["last_loss"] < epoch["first_loss"]


def test_hits_at_1_beats_majority_baseline():
    folder, _ = tiny_model()
    metrics = api.gnn_eval(KB, folder, [eval_file()])
    baseline = majority_hits(TRAIN, eval_file())
    assert metrics["1-hop"]["n"] == 200
    assert metrics["1-hop"]["hits1"] > baseline + 10
    assert 0 <= metrics["1-hop"]["faithful"] <= 100


def test_checkpoint_and_plot_written_and_resume_is_a_no_op():
    folder, _ = tiny_model()
    assert (folder / "training.png").read_bytes()[:4] == b"\x89PNG"
    state = checkpoint.load(folder)
    assert state["epoch"] == 0 and len(state["history"]) == 1
    again = api.gnn_train(KB, TRAIN, folder, exclude=VERIFIED, progress=False, **TINY)
    assert again["history"] == state["history"]
