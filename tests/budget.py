"""How many examples a Hypothesis test draws: its full count in `make test`, a tenth (at least
10) in `make test-fast`, which sets KOPLC_TEST_BUDGET=fast. The fast lane keeps every property;
the full lane keeps the confidence."""

from __future__ import annotations

import os

FAST = os.environ.get("KOPLC_TEST_BUDGET") == "fast"


def examples(count: int) -> int:
    """The number of examples to draw for a test whose full count is `count`."""
    return max(10, count // 10) if FAST else count
