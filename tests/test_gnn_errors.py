"""Clear errors, through the API and the CLI: missing or corrupt checkpoint, no topic."""

from __future__ import annotations

import pytest

from gnn_fixtures import KB, VERIFIED, tiny_model
from koplc import api
from koplc.cli import main
from koplc.gnn.errors import GnnError


def test_missing_checkpoint(tmp_path):
    with pytest.raises(GnnError, match="no GNN checkpoint"):
        api.gnn_eval(KB, tmp_path, [VERIFIED[2]])


def test_corrupt_checkpoint(tmp_path):
    (tmp_path / "checkpoint.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(GnnError, match="corrupt or incompatible"):
        api.gnn_compile("who directed [The Matrix]", KB, tmp_path)


def test_question_without_linkable_topic():
    folder, _ = tiny_model()
    with pytest.raises(GnnError, match="no KB entity name"):
        api.gnn_compile("what is the airspeed velocity of an unladen swallow", KB, folder)
    with pytest.raises(GnnError, match="not a KB name"):
        api.gnn_compile("who directed [No Such Film 12345]", KB, folder)


@pytest.mark.parametrize("case", ["missing", "corrupt", "no-topic"])
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
                   "--model", str(model)])
    err = capsys.readouterr().err
    assert status == 1
    assert "Traceback" not in err
    assert {"missing": "no GNN checkpoint", "corrupt": "corrupt",
            "no-topic": "no KB entity name"}[case] in err
