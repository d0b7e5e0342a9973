"""The GNN trained from a KB's explored pool (no labelled question), on the Star Wars development
KB: training questions from the pool's chains, the model cached per KB, the front end through the
registry (counts by the back half, other shapes handed on), and clear errors for bad input."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES
from koplc import api
from koplc.cli import main
from koplc.gnn import checkpoint
from koplc.gnn.errors import GnnError
from koplc.gnn.pool_data import path_questions
from koplc.gnn.pool_training import (
    RECORD,
    explored_entries,
    model_folder,
    read_record,
    ready_model,
    train_from_pool,
)
from koplc.gnn.subgraph import graph_of
from koplc.kopl.exploration import write_pool
from koplc.kopl.grounding.path_edits import chain_of

STARWARS = FIXTURES / "devkbs" / "starwars" / "kb.nt"
TINY = ["--epochs", "1", "--dim", "32", "--size", "64", "--steps", "2", "--members", "1",
        "--quiet"]
TINY_OPTIONS = {"epochs": 1, "dim": 32, "size": 64, "steps": 2, "members": 1}


@pytest.fixture
def kb_file(tmp_path, monkeypatch) -> Path:
    """A copy of the Star Wars KB, with koplc's cache folder under tmp_path."""
    monkeypatch.setenv("KOPLC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    path = tmp_path / "kb.nt"
    shutil.copy(STARWARS, path)
    return path


def compile_cli(kb_file: Path, questions: list[str], *flags: str) -> tuple[int, str, str]:
    file = kb_file.parent / "questions.txt"
    file.write_text("\n".join(questions) + "\n", encoding="utf-8")
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["compile", str(file), "--frontend", "gnn", "--kb", str(kb_file), *flags])
    return status, out.getvalue(), err.getvalue()


def test_training_questions_follow_the_pools_relation_chains(kb_file):
    kb = api.load_kb(kb_file)
    entries, _ = explored_entries(kb, kb_file, progress=False)
    relations = graph_of(kb).relations
    questions = path_questions(entries, kb, relations, steps=3)
    chains = [chain_of(e.program) for e in entries]
    assert any(c is not None and len(c[1]) > 1 for c in chains)
    assert len(questions) > 50 and {q.hops for q in questions} >= {1, 2}
    loop = 2 * len(relations)
    for q in questions:
        assert q.answers and q.topic not in q.answers
        assert len(q.path) == 3 and all(t != loop for t in q.path[:q.hops])
        assert all(t == loop for t in q.path[q.hops:])
    # the pool's own questions, and readings that name the sets by the KB's concepts
    texts = {q.text for q in questions}
    assert {e.question for e in entries if chain_of(e.program)} & texts
    assert any("characters" in t or "planets" in t for t in texts)
    # and the other general-English readings of a chain: what two things share, read outward
    assert any(" that share homeworld with " in t for t in texts)
    assert any(": their " in t for t in texts)


def test_no_model_says_which_command_trains_it(kb_file):
    status, out, err = compile_cli(kb_file, ["What is Luke Skywalker's home planet?"])
    assert status == 1 and "Traceback" not in err
    assert f"koplc gnn train --kb {kb_file}" in err and "--train-if-missing" in err


@pytest.mark.train
def test_trained_from_the_pool_the_front_end_answers_paths_and_counts(kb_file):
    assert main(["gnn", "train", "--kb", str(kb_file), *TINY]) == 0
    folder = ready_model(kb_file)
    assert folder == model_folder(kb_file) and read_record(folder)["complete"]
    kb, frontend = api.load_kb(kb_file), api.open_frontend("gnn")
    path = api.compile("What is Luke Skywalker's home planet?", kb, frontend)
    assert path.program.op == "QueryName" and path.provenance.notes["topic"] == "Luke Skywalker"
    count = api.compile("How many films did Luke Skywalker appear in?", kb, frontend)
    assert count.program.op == "Count" and count.provenance.stage == "answer-type"
    assert count.answers and count.answers[0].isdigit()
    for question, why in (("Is Luke Skywalker taller than Leia Organa?", "yes or no"),
                          ("What is the height of Luke Skywalker?", "attribute 'height'"),
                          ("Which characters from Tatooine are taller than 180 cm?", "180")):
        handed = api.compile(question, kb, frontend)
        assert handed.failure == "unfit" and handed.answers == ()
        assert handed.error.startswith("nothing found") and why in handed.error


@pytest.mark.train
def test_train_if_missing_trains_on_first_use(kb_file):
    status, out, err = compile_cli(kb_file, ["What is Luke Skywalker's home planet?"],
                                   "--train-if-missing", "--emit", "kopl")
    assert status == 0, err
    assert "Luke Skywalker" in out and (model_folder(kb_file) / checkpoint.NAME).is_file()


@pytest.mark.train
def test_an_interrupted_training_says_so_and_resumes(kb_file):
    kb = api.load_kb(kb_file)

    def stop(row):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train_from_pool(kb, kb_file, progress=False, log=stop, **{**TINY_OPTIONS, "epochs": 2})
    folder = model_folder(kb_file)
    first = checkpoint.load(folder / "member-0")  # written atomically: whole, after epoch 1
    assert first["epoch"] == 0 and read_record(folder)["epochs_done"] == 1
    assert not (folder / checkpoint.NAME).exists()  # no model until every member is done
    with pytest.raises(GnnError, match=r"stopped after epoch 1 of 2; resume it with "
                                       r"`koplc gnn train --kb"):
        ready_model(kb_file)
    status, _, err = compile_cli(kb_file, ["What is Luke Skywalker's home planet?"])
    assert status == 1 and "resume it" in err and "Traceback" not in err
    record = train_from_pool(kb, kb_file, progress=False, **{**TINY_OPTIONS, "epochs": 2})
    assert record["complete"] and record["history"][0] == {"member": 1, **first["history"][0]}
    assert [h["epoch"] for h in record["history"]] == [1, 2]
    with pytest.raises(GnnError, match="other options"):
        train_from_pool(kb, kb_file, progress=False, **{**TINY_OPTIONS, "epochs": 3})


@pytest.mark.train
def test_an_ensemble_answers_with_its_members_reasoning_averaged(kb_file):
    import numpy as np

    from koplc.gnn.frontend import setup_for
    from koplc.gnn.model import Ensemble
    from koplc.gnn.train import run_model

    kb = api.load_kb(kb_file)
    stops = []

    def stop_in_the_second_member(row):
        if row["member"] == 2:
            stops.append(row)
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train_from_pool(kb, kb_file, progress=False, log=stop_in_the_second_member,
                        **{**TINY_OPTIONS, "members": 2})
    with pytest.raises(GnnError, match=r"stopped after epoch 2 of 2"):
        ready_model(kb_file)
    record = train_from_pool(kb, kb_file, progress=False, **{**TINY_OPTIONS, "members": 2})
    assert record["complete"] and [h["member"] for h in record["history"]] == [1, 2]
    folder = ready_model(kb_file)
    state = checkpoint.load(folder)
    assert isinstance(state["reasoner"], Ensemble) and len(state["reasoner"].members) == 2
    members = [checkpoint.load(folder / f"member-{k}") for k in range(2)]
    parts = setup_for(kb, state, folder)
    from koplc.gnn.data import build_examples
    from koplc.kopl.datasets.metaqa import Question

    examples = build_examples([Question(None, "Who comes from [Tatooine]?", "", frozenset(),
                                        "question")], parts.retriever, parts.tokenizer,
                              keep_unreachable=True)
    [(_, steps, weights)] = run_model(state["reasoner"], examples)
    alone = [list(run_model(m["reasoner"], examples))[0] for m in members]
    assert not np.allclose(alone[0][1][-1], alone[1][1][-1])  # two seeds, two networks
    assert np.allclose(steps[-1], (alone[0][1][-1] + alone[1][1][-1]) / 2, atol=1e-6)
    assert np.allclose(weights[0], (alone[0][2][0] + alone[1][2][0]) / 2, atol=1e-6)
    answer = api.compile("Who comes from Tatooine?", kb, api.open_frontend("gnn"))
    assert answer.ok and answer.answers


def test_a_kb_too_small_to_train_on(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("KOPLC_CACHE_DIR", str(tmp_path / "cache"))
    kb_file = tmp_path / "tiny.txt"
    kb_file.write_text("Ada|knows|Bob\nBob|knows|Cy\n", encoding="utf-8")
    status = main(["gnn", "train", "--kb", str(kb_file), *TINY])
    err = capsys.readouterr().err
    assert status == 1 and "too small to train on" in err and "Traceback" not in err
    assert not (model_folder(kb_file) / checkpoint.NAME).exists()


def test_a_pool_with_no_relation_path(kb_file, capsys):
    kb = api.load_kb(kb_file)
    entries, _ = explored_entries(kb, kb_file, progress=False)
    pool = kb_file.parent / "no-paths.jsonl"
    write_pool(pool, [e for e in entries if chain_of(e.program) is None])
    out = kb_file.parent / "model"
    status = main(["gnn", "train", "--kb", str(kb_file), "--pool", str(pool), "--out", str(out),
                   *TINY])
    err = capsys.readouterr().err
    assert status == 1 and "no relation-path question" in err and "Traceback" not in err
    assert not (out / checkpoint.NAME).exists() and not read_record(out)["complete"]
    assert (out / RECORD).is_file()


@pytest.mark.parametrize(("question", "topic", "why"), [
    ("Is Luke Skywalker taller than Leia Organa?", "Luke Skywalker", "yes or no"),
    ("What colour are Yoda's eyes?", "Yoda", "attribute 'eye_color'"),
    ("What is the height of Luke Skywalker?", "Luke Skywalker", "attribute 'height'"),
    ("Which characters from Tatooine are taller than 180 cm?", "Tatooine", "number 180"),
    ("What is Luke Skywalker's home planet?", "Luke Skywalker", None),
    ("Can you name the characters from Tatooine?", "Tatooine", None),
    ("How many characters come from Tatooine?", "Tatooine", None),
])
def test_the_shapes_a_relation_path_does_not_answer_are_handed_on(question, topic, why):
    from koplc.gnn.shapes import handed_on

    said = handed_on(question, api.load_kb(STARWARS), topic)
    assert (said is None) if why is None else (why in said)


def test_a_known_path_teaches_each_step_its_edge_type():
    import torch

    from koplc.gnn.model import path_loss

    paths = torch.tensor([[0, 2], [1, -1]])
    right = [torch.tensor([[0.9, 0.05, 0.05], [0.05, 0.9, 0.05]]),
             torch.tensor([[0.05, 0.05, 0.9], [0.3, 0.3, 0.4]])]
    wrong = [w.flip(1) for w in right]
    assert path_loss(right, paths) < path_loss(wrong, paths)
    # a question's unknown step adds nothing
    assert torch.isclose(path_loss(right, paths), -(torch.tensor([0.9 * 0.9, 0.9])).log().mean(),
                         atol=1e-4)


def test_a_chain_is_also_read_in_the_active_voice_and_with_when():
    from koplc.gnn.chain_readings import chain_readings

    directed = chain_readings("Heat", [("directed_by", "backward")], ["movies"])
    assert {"What movies did Heat direct?", "What are the movies that Heat directed?"} \
        <= set(directed)
    written = chain_readings("Heat", [("written_by", "backward"), ("release_year", "forward")],
                             ["movies", None])
    assert "What are the release year of the movies that Heat wrote?" in written
    assert "When were the movies written by Heat released?" in written
    assert "When was N14228 built?" in chain_readings("N14228", [("year_built", "forward")],
                                                        [None])
    # no active voice for a relation not named "<participle> by", no "when" without a time word
    starred = chain_readings("Heat", [("starred_actors", "backward")], ["movies"])
    genre = chain_readings("Heat", [("has_genre", "forward")], [None])
    assert not any(t.startswith(("What movies did", "When")) for t in starred + genre)
