"""Derived state of a KB (pools, indexes, a search's tables) built once and kept: the one
per-KB cache of every front end."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class PerKB(Generic[T]):
    """The state `build(kb)` of the last KB asked about, built on first use; `held` hands it
    one already built for `kb`."""

    def __init__(self, build: Callable[..., T], kb=None, held: T | None = None):
        self.build = build
        self._kb = kb if held is not None else None
        self._state: T | None = held
        self.seconds = 0.0  # how long the last build took

    def fresh(self, kb) -> bool:
        """Whether `kb`'s state is not built yet."""
        # A KB is immutable once built, so the object itself identifies its derived state.
        return self._kb is not kb

    def get(self, kb) -> T:
        """The state of `kb`, built when it is not held."""
        if self.fresh(kb):
            clock = time.perf_counter()
            self._kb, self._state = kb, self.build(kb)
            self.seconds = time.perf_counter() - clock
        return self._state  # type: ignore[return-value]

    def setup_seconds(self, kb) -> dict[str, float]:
        """{"setup": seconds} when asking for `kb` builds its state now, else {}; builds it."""
        if not self.fresh(kb):
            return {}
        self.get(kb)
        return {"setup": self.seconds}
