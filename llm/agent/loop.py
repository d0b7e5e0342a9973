"""The agent loop: each round the LM writes k candidate Thought/Action turns (sampled, or one
greedy), the actions are voted on, and the most frequent one that runs without an error is
taken. A run stops at Done, on an action it already took, or after `max_rounds` rounds.

A person may step in at any round (`AgentRun.replace`): the agent's action is logged as
rejected beside the person's, the dialog after that round is dropped, and the run resumes.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

from koplc.kopl.grounding.mentions import link
from koplc.llm.agent.dialog import Action, Dialog, Turn, parse_action, run_action
from koplc.llm.agent.memory import DialogMemory

INSTRUCTIONS = (
    "Answer the question by talking to the knowledge base, one Thought and one Action a turn. "
    "Actions: SearchNodes(name), SearchGraphPatterns(what to look for), ExecuteSPARQL(query), "
    "a KoPL step (Find(name), Relate(relation, forward|backward), QueryAttr(key), "
    "FilterConcept(concept), QueryName(), Count()), or Done.\n\n")
STOP = ("\nObservation:", "\nQuestion:", "\n\n")


@dataclass(frozen=True)
class AgentOptions:
    """k candidates a round at `temperature` (k = 1: greedy), demonstrations shown, rounds."""

    k: int = 6
    temperature: float = 0.7
    top_k: int = 40
    demos: int = 2
    max_rounds: int = 10
    max_tokens: int = 64


@dataclass
class AgentRun:
    """One question's dialog in progress."""

    agent: Agent
    question: str
    dialog: Dialog
    masked: str
    entities: tuple[str, ...]
    demos: list = field(default_factory=list)
    finished: str | None = None  # why it stopped: "done", "repeat", "rounds", "stopped"
    candidates: list[list[str]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def steps(self) -> list[str]:
        return self.dialog.steps()

    def advance(self) -> Turn | None:
        """Take one round; None once the run has finished."""
        if self.finished:
            return None
        if len(self.dialog.turns) >= self.agent.options.max_rounds:
            self.finished = "rounds"
            return None
        clock = time.perf_counter()
        turn, candidates = self.agent.next_turn(self)
        self.seconds += time.perf_counter() - clock
        self.candidates.append(candidates)
        if any(t.action == turn.action for t in self.dialog.turns) and turn.action != "Done":
            self.finished = "repeat"
            return None
        self.dialog.turns.append(turn)
        if turn.action == "Done":
            self.finished = "done"
        return turn

    def run(self) -> AgentRun:
        """Advance until the run finishes."""
        while self.advance() is not None:
            pass
        return self

    def replace(self, index: int, action_text: str, thought: str = "") -> Turn:
        """Put the person's action at round `index` (len(turns) appends one): the rounds
        after it are dropped, the replaced action is logged as rejected, the run resumes."""
        action = parse_action(action_text)
        if action is None:
            raise ValueError(f"not an action: {action_text!r}")
        rejected = []
        if index < len(self.dialog.turns):
            old = self.dialog.turns[index]
            rejected = [*old.rejected, old.action]
        del self.dialog.turns[index:]
        observation = run_action(action, self.steps, self.agent.tools)
        turn = Turn(thought or "(a person's correction)", action.text, observation.text,
                    observation.ok, rejected, "person")
        self.dialog.turns.append(turn)
        self.finished = "done" if action.tool == "Done" else None
        return turn

    def stop(self) -> None:
        self.finished = self.finished or "stopped"

    @property
    def corrected(self) -> bool:
        return any(t.by == "person" for t in self.dialog.turns)


class Agent:
    """The agent of one KB: its tools, its LM, its demonstrations."""

    def __init__(self, tools, lm, memory: DialogMemory, options: AgentOptions | None = None):
        self.tools, self.lm, self.memory = tools, lm, memory
        self.options = options or AgentOptions()

    def start(self, question: str) -> AgentRun:
        question = question.strip()
        linked = link(question, self.tools.kb)
        masked = linked.masked()
        demos = self.memory.nearest(masked, self.options.demos)
        return AgentRun(self, question, Dialog(question), masked, tuple(linked.entities), demos)

    def prompt(self, run: AgentRun) -> str:
        shown = "\n".join(self.memory.dialog(e).text() for e in run.demos)
        return f"{INSTRUCTIONS}{shown}\n{run.dialog.text()}Thought:"

    def next_turn(self, run: AgentRun) -> tuple[Turn, list[str]]:
        """The next turn: candidates voted, the most frequent that runs taken."""
        o = self.options
        guided = self._from_saved(run)
        if guided is not None:
            # A saved dialog asked like this question leads, with no LM call while it runs.
            observation = run_action(guided, run.steps, self.tools)
            if observation.ok:
                return Turn("Follow the saved dialog.", guided.text, observation.text), []
        texts = self.lm.generate(self.prompt(run), o.k, o.temperature if o.k > 1 else 0.0,
                                 o.top_k if o.k > 1 else 1, STOP, None, o.max_tokens)
        parsed = [_split(t) for t in texts]
        votes = Counter(a.text for _, a in parsed if a is not None)
        thoughts = {a.text: th for th, a in parsed if a is not None}
        steps = run.steps
        first = None
        for text, _ in sorted(votes.items(), key=lambda kv: (-kv[1], kv[0])):
            action = parse_action(text)
            observation = run_action(action, steps, self.tools)
            turn = Turn(thoughts.get(text, "Follow the saved dialog."), action.text,
                        observation.text, observation.ok)
            if observation.ok:
                return turn, texts
            first = first or turn
        if first is None:
            first = Turn(parsed[0][0] if parsed else "", "Done",
                         "Error: no candidate was an action", False)
        return first, texts

    def _from_saved(self, run: AgentRun) -> Action | None:
        """The next action of a saved dialog asked like this question, its entities swapped
        for this question's (a corrected dialog steers later questions of its template)."""
        entry = self.memory.same_template(run.masked)
        if entry is None or len(entry.entities) != len(run.entities):
            return None
        done = len(run.dialog.turns)
        turns = [t for t in entry.dialog.turns if t.ok]
        if done >= len(turns):
            return None
        text = turns[done].action
        for old, new in zip(entry.entities, run.entities, strict=True):
            text = text.replace(old, new)
        return parse_action(text)


def _split(text: str) -> tuple[str, Action | None]:
    """(thought, action) of a completion that follows "Thought:"."""
    thought, _, rest = text.partition("\nAction:")
    return thought.strip(), parse_action(rest) if rest.strip() else None
