"""Checkpoints: written atomically, loaded with a clear error when missing or corrupt."""

from __future__ import annotations

import io
from pathlib import Path

import torch

from koplc.gnn.errors import GnnError
from koplc.gnn.model import Config, Ensemble, Reasoner
from koplc.kopl.atomic import write_atomically

NAME = "checkpoint.pt"


def save(folder: Path, reasoner: Reasoner, optimizer, epoch: int, history: list[dict],
         relations: list[str]) -> Path:
    """Write the model, optimiser, epoch and history to folder/checkpoint.pt atomically."""
    folder.mkdir(parents=True, exist_ok=True)
    state = {"config": reasoner.config.to_json(), "model": reasoner.state_dict(),
             "optimizer": optimizer.state_dict() if optimizer else None, "epoch": epoch,
             "history": history, "relations": relations}
    return _write(folder, state)


def save_ensemble(folder: Path, members: list[Path], relations: list[str]) -> Path:
    """Write the finished models in the `members` folders as one ensemble to
    folder/checkpoint.pt atomically (`load` reads it as an `Ensemble`)."""
    states = [load(member) for member in members]
    state = {"config": states[0]["config"], "members": [s["model"] for s in states],
             "optimizer": None, "epoch": states[0]["epoch"],
             "history": [s["history"] for s in states], "relations": relations}
    return _write(folder, state)


def _write(folder: Path, state: dict) -> Path:
    buffer = io.BytesIO()
    torch.save(state, buffer)
    path = folder / NAME
    write_atomically(path, buffer.getvalue())
    return path


def load(folder: str | Path) -> dict:
    """The saved state of the model in `folder`; GnnError if it is missing or unreadable."""
    path = Path(folder) / NAME
    if not path.is_file():
        raise GnnError(f"{path}: no GNN checkpoint here (train one with `koplc gnn train`)",
                       code="gnn-checkpoint-missing")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
        # older checkpoints: no name prior, chains may return to the topic
        config = Config(**{"name_prior": False, "no_return": False, **state["config"]})
        if "members" in state:
            reasoner = Ensemble([_loaded(config, model) for model in state["members"]])
        else:
            reasoner = _loaded(config, state["model"])
    except Exception as err:  # noqa: BLE001 - any unreadable file is the same user error
        raise GnnError(f"{path}: corrupt or incompatible GNN checkpoint ({type(err).__name__})",
                       code="gnn-checkpoint-corrupt") from err
    state["reasoner"] = reasoner
    return state


def _loaded(config: Config, model: dict) -> Reasoner:
    reasoner = Reasoner(config)
    reasoner.load_state_dict(model)
    return reasoner
