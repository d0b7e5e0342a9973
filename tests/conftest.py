"""Shared fixtures: where ../shared lives, and its corpora loaded as records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


@pytest.fixture(scope="session")
def shared() -> Path:
    if not SHARED.is_dir():
        pytest.fail(f"../shared is missing (expected at {SHARED}); CI keeps it beside the checkout")
    return SHARED
