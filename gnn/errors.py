"""The GNN front end's error: a missing or corrupt model, or a question it cannot link."""

from __future__ import annotations

from koplc.kopl.errors import KoplcError


class GnnError(KoplcError):
    """A GNN front-end failure (bad checkpoint, unlinkable topic, unusable data)."""

    default_code = "gnn"
