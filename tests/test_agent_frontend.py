"""The agent front end on the example KB with the embedded model (greedy), through the
front-end registry: its final artefact is a checked, grounded IR program with SPARQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from koplc.frontends import open_frontend
from koplc.kopl.frontend import Settings
from koplc.kopl.kb_cache import load_kb
from koplc.llm.agent.frontend import AgentSettings, read_demos
from koplc.llm.agent.loop import AgentOptions

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def agent():
    settings = AgentSettings(AgentOptions(k=1),
                             demos=read_demos(FIXTURES / "agent" / "example_demos.jsonl"))
    return open_frontend("agent", Settings(options=settings))


@pytest.mark.parametrize("question, answer", [
    ("How tall is LeBron James?", "206 centimetre"),
    ("Where was LeBron James born?", "Akron"),
    ("How many athletes are there?", "2"),
])
def test_the_agent_answers_on_the_example_kb(agent, question, answer):
    kb = load_kb(FIXTURES / "kopl" / "example_kb.json")
    compiled = agent.compile(question, kb)
    assert compiled.answers[:1] == (answer,)
    assert compiled.grounded is not None and compiled.sparql
    assert 1 <= compiled.provenance.notes["rounds"] <= 10
