"""The few-shot front end on the official KoPL example KB (not MetaQA), with the embedded
model, the KB's own explored pool and no response cache: "How tall is LeBron James?" once
compiled to Find -> Relate(child) and answered "LeBron James Jr."."""

from __future__ import annotations

from pathlib import Path

import pytest

from koplc import api

EXAMPLE = Path(__file__).resolve().parent / "fixtures" / "kopl" / "example_kb.json"

pytestmark = pytest.mark.usefixtures("private_caches")


def test_how_tall_answers_the_height():
    frontend = api.open_frontend("llm", response_cache="off")
    compiled = frontend.compile("How tall is LeBron James?", api.load_kb(EXAMPLE))
    assert compiled.answers == ("206 centimetre",), compiled.to_json()
    steps = api.transpile(compiled.final.model_dump_json(), "ir-json", "kopl-steps")
    assert "QueryAttr(height)" in steps, steps
