"""Dialogs: Thought / Action / Observation turns, and their replay from a program.

An action is one of `SearchNodes(name)`, `SearchGraphPatterns(what)` (around the entity set
the program so far gives), `ExecuteSPARQL(query)`, a KoPL step such as
`Relate(written_by, forward)` (ExecuteKoPL of the program so far plus that step), or `Done`.
`replay` turns a (question, program) pair into a dialog by running the program's steps
through the real tools, so demonstrations need no hand annotation.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from koplc.kopl.errors import KoplcError
from koplc.kopl.registry import family_of, lookup
from koplc.kopl.syntax import steps as steps_syntax
from koplc.llm.symkgqa.demos import calls_of, steps_of

TOOL_ACTIONS = ("SearchNodes", "SearchGraphPatterns", "ExecuteSPARQL")
_PLAN_STEP = re.compile(r"[A-Za-z]+\([^()]*\)")
_CALL = re.compile(r"^\s*([A-Za-z]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)
PROMPT_OBSERVATION = 160  # characters of an observation a prompt shows


@dataclass(frozen=True)
class Action:
    """A parsed action: the tool (a KoPL op name means ExecuteKoPL) and its argument text."""

    tool: str
    argument: str = ""

    @property
    def text(self) -> str:
        if self.tool == "Done":
            return "Done"
        return f"{self.tool}({self.argument})"

    @property
    def is_step(self) -> bool:
        return self.tool not in (*TOOL_ACTIONS, "Done")

    @property
    def args(self) -> list[str]:
        """A KoPL step's arguments as the steps parser reads them (none for a tool action)."""
        return steps_syntax.parse_step(self.text).args if self.is_step else []

    def with_args(self, args: list[str]) -> Action:
        """The same step with other arguments."""
        return Action(self.tool, steps_syntax.print_call("", args)[1:-1])


def parse_action(text: str) -> Action | None:
    """The action a line names, or None when it names none.

    >>> parse_action(" Relate(written_by, forward)")
    Action(tool='Relate', argument='written_by, forward')
    >>> parse_action("Done.").text
    'Done'
    """
    line = text.strip().splitlines()[0].strip() if text.strip() else ""
    if line.rstrip(".").lower() == "done":
        return Action("Done")
    match = _CALL.match(line)
    if not match:
        return None
    name, argument = match.group(1), (match.group(2) or "").strip()
    if name in TOOL_ACTIONS:
        return Action(name, argument.strip().strip('"').strip("'") if name != "ExecuteSPARQL"
                      else argument)
    info = lookup(name)
    if info is None:
        return None
    try:  # a KoPL step reads as the steps parser reads it, in canonical form
        step = steps_syntax.parse_step(f"{info.name}({argument})")
    except KoplcError:
        return None
    return Action(info.name, steps_syntax.print_call("", step.args)[1:-1])


@dataclass
class Turn:
    """One round: what the agent thought, the action taken, the tool's output, and the actions
    a person rejected at this round (kept beside the dialog, as the paper logs them)."""

    thought: str
    action: str
    observation: str = ""
    ok: bool = True
    rejected: list[str] = field(default_factory=list)
    by: str = "agent"  # "agent", "person" or "replay"
    tried: list[str] = field(default_factory=list)  # "action -> observation" that gave way

    def text(self, observation_chars: int = PROMPT_OBSERVATION) -> str:
        seen = " | ".join(self.observation.splitlines())
        if len(seen) > observation_chars:
            seen = seen[:observation_chars] + " ..."
        return f"Thought: {self.thought}\nAction: {self.action}\nObservation: {seen}\n"


@dataclass
class Dialog:
    """A question and its turns."""

    question: str
    turns: list[Turn] = field(default_factory=list)
    plan: str = ""  # the steps after the Finds (all, over several entities), as the LM planned
    plan_by: str = ""  # "model", or "demonstration" when the model's plan failed its check

    def text(self) -> str:
        plan = f"Plan: {self.plan}\n" if self.plan else ""
        return f"Question: {self.question}\n{plan}" + "".join(t.text() for t in self.turns)

    def steps(self) -> list[str]:
        """The KoPL steps the dialog's accepted actions wrote, in order."""
        return self.states()[-1]

    def states(self) -> list[list[str]]:
        """The KoPL steps written before each turn, and after the last (one more than turns)."""
        steps: list[str] = []
        states = [steps]
        for turn in self.turns:
            action = parse_action(turn.action)
            if action is not None and action.is_step and turn.ok:
                steps = [*steps, action.text]
            elif action is not None and action.tool == "ExecuteSPARQL" and turn.ok:
                steps = lifted_steps(action.argument) or steps
            states.append(steps)
        return states

    def taken(self, action_text: str) -> bool:
        """Whether `action_text` was taken before from the present state (the same step after
        other steps, as in an author's books' authors, is a new action)."""
        states = self.states()
        stateless = action_text.startswith("SearchNodes(")
        return any(t.action == action_text and (stateless or states[i] == states[-1])
                   for i, t in enumerate(self.turns))

    def to_json(self) -> dict:
        return {"question": self.question, "plan": self.plan, "plan_by": self.plan_by,
                "turns": [asdict(t) for t in self.turns]}

    @classmethod
    def from_json(cls, data: dict) -> Dialog:
        return cls(str(data["question"]), [Turn(**t) for t in data.get("turns", [])],
                   str(data.get("plan") or ""), str(data.get("plan_by") or ""))

    def planned(self) -> Action | None:
        """The plan's next step: counting the steps after the Finds (None before the first
        Find); or, in a plan that lists its starts (the Finds over several entities, or a
        FindAll), its next step from the first, while the steps taken are the plan's own so
        far. None when no step is left."""
        steps, items = self.steps(), plan_steps(self.plan)
        if any(a.tool in ("Find", "FindAll") for a in items):
            if [_undirected(a.text) for a in items[:len(steps)]] != [_undirected(s)
                                                                     for s in steps]:
                return None  # the dialog went its own way (a relation turned round is not)
            return items[len(steps)] if len(steps) < len(items) else None
        done = [s for s in steps if not s.startswith("Find(")]
        return items[len(done)] if steps and len(done) < len(items) else None


def _undirected(step: str) -> str:
    """A step with a relation's direction left out: a plan that followed a relation the wrong
    way round is kept to once the dialog takes the right one."""
    return re.sub(r"^(Relate\([^,]*),\s*(?:forward|backward)\)$", r"\1)", step)


def lifted_steps(query: str) -> list[str]:
    """The KoPL steps of a SPARQL query the lowering could have written ([] if not liftable)."""
    from koplc.kopl.errors import KoplcError
    from koplc.sparql_backend.lift import lift

    try:
        return calls_of(steps_syntax.print_program(lift(query))).splitlines()
    except KoplcError:
        return []


def thought_for(action: Action) -> str:
    """The thought a replayed dialog gives an action (short: the model writes them too). A
    step that reads a pattern names it as SearchGraphPatterns lists it ("Take relation
    written_by forward."), so the model learns to copy a listed pattern into its step."""
    argument = action.argument.rstrip(".")
    words = {"SearchNodes": f"Look up {argument}.",
             "SearchGraphPatterns": "Which relations does it have?",
             "Find": f"Start from {argument}.",
             "FindAll": "Start from every entity.",
             "FilterConcept": f"Keep the {argument} ones.",
             "Relate": f"Take relation {' '.join(argument.split(', '))}.",
             "QueryAttr": f"Take attribute {argument}.",
             "QueryName": "Ask for the names.", "Count": "Count them.",
             "Exists": "Check whether any is left.",
             "Done": "That answers the question."}
    family = family_of(action.tool) if lookup(action.tool) is not None else None
    if family == "filter":
        key, *test = action.args
        return f"Take attribute {key}, keep {' '.join(reversed(test))}."
    if family == "verify":
        return f"Check that it is {argument.replace(',', '')}."
    return words.get(action.tool, f"Use {action.tool}.")


def replay(question: str, program: str, tools) -> Dialog:
    """The dialog that writes `program` (kopl-steps or one call a line) for `question`: each
    Find after a SearchNodes of its name, the first Relate (or attribute query) after a
    SearchGraphPatterns, each step run through ExecuteKoPL, and Done."""
    dialog, steps, searched = Dialog(question), [], False
    actions = [a for a in map(parse_action, calls_of(program).splitlines()) if a is not None]
    for action in actions:
        if action.tool == "Find":
            _play(dialog, tools, steps, Action("SearchNodes", action.argument.strip('"')))
        elif not searched and action.tool in ("Relate", "QueryAttr", "FilterStr", "FilterNum"):
            searched = True
            what = action.argument.split(",")[0].strip().strip('"').replace("_", " ")
            _play(dialog, tools, steps, Action("SearchGraphPatterns", what))
        _play(dialog, tools, steps, action)
    _play(dialog, tools, steps, Action("Done"))
    for turn in dialog.turns:
        turn.by = "replay"
    dialog.plan = plan_of(actions)
    return dialog


def plan_steps(plan: str) -> list[Action]:
    """The steps a plan line lists."""
    return [a for a in map(parse_action, _PLAN_STEP.findall(plan)) if a is not None]


def plan_of(actions: list[Action]) -> str:
    """The plan of a dialog: its steps after the Finds, in order (a small LM keeps to the hops
    a question needs by following its own plan, written before the first turn); over several
    entities, every step, the Finds too (the steps need the second entity where they say).

    >>> plan_of([parse_action("Find(Typee)"), parse_action("Relate(written_by, forward)"),
    ...          parse_action("QueryName()")])
    'Relate(written_by, forward), QueryName()'
    >>> plan_of([parse_action("Find(Yoda)"), parse_action("Find(Darth Vader)"),
    ...          parse_action("SelectBetween(height, greater)")])
    'Find(Yoda), Find(Darth Vader), SelectBetween(height, greater)'
    """
    if sum(a.tool == "Find" for a in actions) > 1:
        return ", ".join(a.text for a in actions)
    return ", ".join(a.text for a in actions if a.tool != "Find")


def _play(dialog: Dialog, tools, steps: list[str], action: Action) -> None:
    observation = run_action(action, steps, tools)
    dialog.turns.append(Turn(thought_for(action), action.text, observation.text, observation.ok))
    if observation.ok and action.is_step:
        steps.append(action.text)


def run_action(action: Action, steps: list[str], tools):
    """Run one action given the steps so far; the Observation (never an exception)."""
    from koplc.llm.agent.tools import Observation

    if action.tool == "Done":
        return Observation("(finished)")
    if action.tool == "SearchNodes":
        return tools.call("SearchNodes", action.argument)
    if action.tool == "SearchGraphPatterns":
        if not steps:
            return Observation("Error: no entity set yet; start with a Find step", ok=False)
        return tools.call("SearchGraphPatterns", steps_of("\n".join(steps)), action.argument)
    if action.tool == "ExecuteSPARQL":
        return tools.call("ExecuteSPARQL", action.argument)
    return tools.call("ExecuteKoPL", steps_of("\n".join(last_set([*steps, action.text]))))


def last_set(steps: list[str]) -> list[str]:
    """The steps that build the last set of `steps`: all of them, or, while a second entity's
    steps are under way (their sets not yet joined), that entity's own from its Find.

    >>> last_set(["Find(Yoda)", "Find(Darth Vader)"])
    ['Find(Darth Vader)']
    >>> last_set(["Find(Yoda)", "Find(Darth Vader)", "SelectBetween(height, greater)"])
    ['Find(Yoda)', 'Find(Darth Vader)', 'SelectBetween(height, greater)']
    """
    starts: list[int] = []  # the first step of each set on the stack
    for i, step in enumerate(steps):
        action = parse_action(step)
        info = lookup(action.tool) if action is not None else None
        if info is None:
            return steps  # the tool says what is wrong with it
        taken = [starts.pop() for _ in range(min(info.arity, len(starts)))]
        starts.append(min(taken, default=i))
    return steps[starts[-1]:] if len(starts) > 1 else steps
