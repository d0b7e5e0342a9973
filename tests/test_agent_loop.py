"""The agent's loop as a whole: a tool that times out mid-run is an observation the run
continues past, the state's allowed actions stand in for a repeated action, and the loop runs
on the OpenAI-compatible path against the real llama.cpp server (started here, stopped by its
PID)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from koplc.kopl.kb.cache import load_kb
from koplc.llm.agent.dialog import Dialog, Turn, replay
from koplc.llm.agent.loop import Agent, AgentOptions, AgentRun, allowed_actions
from koplc.llm.agent.memory import DialogMemory
from koplc.llm.agent.tools import Tools
from koplc.llm.lm.embedded import LlamaCppLM
from koplc.llm.lm.openai_lm import OpenAICompatibleLM
from koplc.llm.lm.server import local_server
from koplc.llm.symkgqa.kb_pool import read_demos

FIXTURES = Path(__file__).parent / "fixtures"
DEMOS = read_demos(FIXTURES / "agent" / "example_demos.jsonl")


@pytest.fixture(scope="module")
def kb():
    return load_kb(FIXTURES / "kopl" / "example_kb.json")


class StallingTools(Tools):
    """Fault injection: once `stall` is set, SearchNodes takes longer than the timeout."""

    stall = False

    def search_nodes(self, name):
        if self.stall:
            time.sleep(self.timeout * 4)
        return super().search_nodes(name)


def _agent(kb, lm, tools=None) -> Agent:
    tools = tools or Tools(kb)
    return Agent(tools, lm, DialogMemory.from_demos(tools, DEMOS), AgentOptions(k=1))


@pytest.mark.model
def test_a_tool_timing_out_mid_run_is_an_observation(kb):
    tools = StallingTools(kb, timeout=0.5)
    agent = _agent(kb, LlamaCppLM(), tools)
    run = agent.start("How tall is LeBron James?")
    for entry in run.demos:
        agent.memory.dialog(entry)  # the demonstrations replay before the fault
    tools.stall = True
    # A person's search (the model itself goes straight to Find) times out: an observation.
    turn = run.replace(0, "SearchNodes(LeBron James)")
    assert not turn.ok and turn.observation == "Error: SearchNodes timed out after 0.5 s"
    run.run()
    assert run.finished == "done" and run.steps[0] == "Find(LeBron James)"


def test_allowed_actions_follow_the_dialog(kb):
    run = AgentRun(None, "How tall is LeBron James?", Dialog("How tall is LeBron James?"),
                   "How tall is X?", ("LeBron James",))
    assert [a.text for a in allowed_actions(run)] == ["SearchNodes(LeBron James)",
                                                      "Find(LeBron James)"]
    run.dialog.turns += [
        Turn("", "SearchNodes(LeBron James)", "LeBron James (entity)\nAkron (entity)"),
        Turn("", "Find(LeBron James)", "1 entities:\nLeBron James"),
        Turn("", "SearchGraphPatterns(height)",
             "attribute height -> 206 centimetre\nrelation place of birth forward -> Akron")]
    # After a pattern search: a step reading a listed pattern (Find(Akron) is no entity of the
    # question, the search is done).
    assert [a.text for a in allowed_actions(run)] == [
        "QueryAttr(height)", "Relate(place of birth, forward)"]
    run.dialog.turns.append(Turn("", "QueryAttr(height)", "206 centimetre"))
    assert "Done" in [a.text for a in allowed_actions(run)]


class Repeating:
    """Fault injection: an LM that writes the same search every round, but chooses among the
    allowed actions (a grammar-constrained generation) for real."""

    name = "repeating"

    def __init__(self, lm):
        self.lm = lm

    def generate(self, *args, **kwargs):
        if len(args) > 5 and args[5]:
            return self.lm.generate(*args, **kwargs)
        return [" Look up LeBron James.\nAction: SearchNodes(LeBron James)"]


@pytest.mark.model
def test_a_repeated_action_gives_way_to_the_likeliest_new_one(kb):
    run = _agent(kb, Repeating(LlamaCppLM())).start("How tall is LeBron James?")
    run.advance()
    turn = run.advance()
    assert turn.action == "Find(LeBron James)" and run.finished is None


@pytest.mark.model
@pytest.mark.server
def test_the_loop_runs_on_the_llama_cpp_server(kb):
    with local_server(threads=2, n_ctx=2048) as url:
        agent = _agent(kb, OpenAICompatibleLM(url, timeout=300))
        run = agent.start("How tall is LeBron James?").run()
    assert run.finished == "done"
    assert agent.tools.call("ExecuteKoPL", "\n".join(run.steps)).text == "206 centimetre"



@pytest.mark.model
def test_the_demonstrations_come_from_the_explored_pool(tmp_path, monkeypatch):
    """Without demonstrations given, an agent on a KB that `koplc explore` explored replays
    the pool's programs (first question each)."""
    import shutil

    from koplc.kopl.exploration import ExploreOptions, explore_to_file, pool_path
    from koplc.llm.agent.frontend import AgentFrontEnd

    monkeypatch.setenv("KOPLC_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "example_kb.json"
    shutil.copy(FIXTURES / "kopl" / "example_kb.json", path)
    kb = load_kb(path)
    explore_to_file(kb, pool_path(path), ExploreOptions(programs=12), kb_path=path)
    memory = AgentFrontEnd(lm=None).agent(kb).memory
    assert memory.entries and all(e.program for e in memory.entries)
    entry = memory.nearest("How tall is LeBron James?", 1)[0]
    assert memory.dialog(entry).turns[-1].action == "Done"


@pytest.mark.model
def test_a_replayed_dialog_states_its_plan_and_the_plan_leads(kb):
    """The plan line lists the steps after the Finds; its next step counts the steps taken."""
    tools = Tools(kb)
    program = "Find(LeBron James)\nRelate(place of birth, forward)\nQueryAttr(population)"
    dialog = replay("What is the population of the place where LeBron James was born?",
                    program, tools)
    assert dialog.plan == "Relate(place of birth, forward), QueryAttr(population)"
    assert Dialog.from_json(dialog.to_json()).plan == dialog.plan
    assert dialog.text().splitlines()[1] == f"Plan: {dialog.plan}"
    partial = Dialog(dialog.question, [t for t in dialog.turns if t.action.startswith(
        ("SearchNodes", "Find"))], dialog.plan)
    assert partial.planned().text == "Relate(place of birth, forward)"
    assert Dialog(dialog.question, [], dialog.plan).planned() is None  # no entity set yet


def test_a_step_repeats_only_from_the_same_state():
    """An actor's films' actors take starred_actors forward twice: not a repetition."""
    dialog = Dialog("q", [Turn("", "Find(A)", "1 entities:\nA"),
                          Turn("", "Relate(starred_actors, backward)", "1 entities:\nF"),
                          Turn("", "Relate(starred_actors, forward)", "1 entities:\nB")])
    assert not dialog.taken("Relate(starred_actors, backward)")
    dialog.turns.pop()
    assert dialog.taken("Relate(starred_actors, backward)") is False
    dialog.turns.pop()
    assert dialog.taken("Find(A)") is False and dialog.taken("SearchNodes(A)") is False
    dialog.turns.append(Turn("", "SearchNodes(A)", "A (entity)"))
    assert dialog.taken("SearchNodes(A)")  # a name search gives the same in any state


@pytest.mark.model
def test_a_plan_that_finds_nothing_gives_way_to_the_nearest_demonstrations(kb):
    """The real LM plans; a plan whose first hop finds nothing on the KB is not kept."""
    agent = _agent(kb, LlamaCppLM())
    run = agent.start("Who is the child of LeBron James?")
    assert agent._answers(run, run.dialog.plan)
    assert not agent._answers(run, "Relate(member of sports team, backward), QueryName()")
    assert agent._answers(run, "Relate(child, forward), QueryName()")


@pytest.mark.model
def test_a_plan_over_two_entities_lists_its_finds_and_leads_from_the_first(kb):
    """A plan over two entities lists its Finds and leads from the first step, while the
    dialog keeps to it; the steps of the second entity's set run on their own."""
    tools = Tools(kb)
    program = "Find(LeBron James)\nFind(LeBron James Jr.)\nSelectBetween(height, greater)"
    dialog = replay("Who is taller, LeBron James or LeBron James Jr.?", program, tools)
    assert dialog.plan == ("Find(LeBron James), Find(LeBron James Jr.), "
                           "SelectBetween(height, greater)")
    assert Dialog(dialog.question, [], dialog.plan).planned().text == "Find(LeBron James)"
    finds = [t for t in dialog.turns if t.action.startswith("Find")]
    assert [t.ok for t in finds] == [True, True]
    assert Dialog(dialog.question, finds[:1], dialog.plan).planned().text == \
        "Find(LeBron James Jr.)"
    assert Dialog(dialog.question, finds[1:], dialog.plan).planned() is None  # its own way
