"""Clear errors, through the API and the CLI: missing or corrupt checkpoint, no topic."""

from __future__ import annotations

import pytest

from gnn_fixtures import KB, VERIFIED, tiny_model
from koplc import api
from koplc.cli import main
from koplc.gnn.errors import GnnError


@pytest.mark.whole_kb
def test_missing_checkpoint(tmp_path):
    with pytest.raises(GnnError, match="no GNN checkpoint"):
        api.gnn_eval(KB, tmp_path, [VERIFIED[2]])


def test_corrupt_checkpoint(tmp_path):
    (tmp_path / "checkpoint.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(GnnError, match="corrupt or incompatible"):
        api.compile("who directed [The Matrix]", frontend="gnn", kb_path=KB, model=tmp_path)


@pytest.mark.train
def test_question_without_linkable_topic():
    """A question the GNN cannot link fails at the link stage; the front end goes on."""
    folder, _ = tiny_model()
    frontend, kb = api.open_frontend("gnn", model=folder), api.load_kb(KB, schema="metaqa")
    for question, message in (("what is the airspeed velocity of an unladen swallow",
                               "no KB entity name"),
                              ("who directed [No Such Film 12345]", "not a KB name")):
        result = api.compile(question, kb, frontend)
        assert (result.failure, result.answers, result.program) == ("link", (), None)
        assert message in result.error


@pytest.mark.parametrize("case", ["missing", "corrupt",
                                  pytest.param("no-topic", marks=pytest.mark.train)])
def test_cli_errors_exit_non_zero_without_traceback(case, tmp_path, capsys):
    question = tmp_path / "question.txt"
    question.write_text("who directed [The Matrix]\n")
    model = tmp_path / "model"
    model.mkdir()
    if case == "corrupt":
        (model / "checkpoint.pt").write_bytes(b"\x00" * 64)
    if case == "no-topic":
        model, _ = tiny_model()
        question.write_text("what is the airspeed velocity of an unladen swallow\n")
    status = main(["compile", str(question), "--frontend", "gnn", "--kb", str(KB),
                   "--schema", "metaqa", "--model", str(model)])
    err = capsys.readouterr().err
    assert status == 1
    assert "Traceback" not in err
    assert {"missing": "no GNN checkpoint", "corrupt": "corrupt",
            "no-topic": "no KB entity name"}[case] in err
