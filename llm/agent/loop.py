"""The agent loop. Before the first turn the LM writes a plan (the KoPL steps after the Finds;
every step, Finds too, over several entities), checked on the KB; once the entity set exists,
the plan's next step is taken while it answers.
Otherwise each round the LM writes k candidate Thought/Action turns (sampled, or one greedy),
the actions are voted on, and the most frequent one that runs without an error and was not
taken from the same state before is taken. When none does, the actions the dialog's state
allows (the names a search found, the patterns listed, the queries) are offered to the LM as
one grammar-constrained choice, and its choice runs first. A step that gives an empty entity
set is a dead end, taken only when nothing else runs. A run stops at Done, when no action is
left, or after `max_rounds` rounds.

The prompt only grows by appending (demonstrations, the question, the plan, then each turn),
so with llama.cpp each round reads only its new turn; greedy decoding gets the allowed actions
as drafts, so a turn the model writes as one of them costs a forward pass or two.

A person may step in at any round (`AgentRun.replace`): the agent's action is logged as
rejected beside the person's, the dialog after that round is dropped, and the run resumes.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass, field

from koplc.kopl.answer import ENTITY_TYPES
from koplc.kopl.answering.linking import link_question
from koplc.kopl.registry import family_of, lookup
from koplc.kopl.syntax.steps import print_call
from koplc.llm.agent.dialog import (
    Action,
    Dialog,
    Turn,
    parse_action,
    plan_steps,
    run_action,
    thought_for,
)
from koplc.llm.agent.memory import DialogMemory
from koplc.llm.symkgqa.demos import steps_of

INSTRUCTIONS = (
    "Answer the question by talking to the knowledge base, one Thought and one Action a turn. "
    "Actions: SearchNodes(name), SearchGraphPatterns(what to look for), ExecuteSPARQL(query), "
    "a KoPL step (Find(name), Relate(relation, forward|backward), QueryAttr(key), "
    "FilterConcept(concept), QueryName(), Count()), or Done.\n\n")
STOP = ("\nObservation:", "\nQuestion:", "\n\n")
PLAN_NEAR = 5  # a plan's first hop must be among the question's 5 nearest patterns
FOLLOWED = 3  # after a pattern search, the LM's step must read one of its first patterns


@dataclass(frozen=True)
class AgentOptions:
    """k candidates a round at `temperature` (k = 1: greedy), demonstrations shown, rounds."""

    k: int = 6
    temperature: float = 0.7
    top_k: int = 40
    demos: int = 2
    max_rounds: int = 10
    max_tokens: int = 96


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
        if turn.action != "Done" and self.dialog.taken(turn.action):
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

    def __init__(self, tools, lm, memory: DialogMemory, options: AgentOptions | None = None,
                 searcher=None):
        self.tools, self.lm, self.memory = tools, lm, memory
        self.options = options or AgentOptions()
        self.searcher = searcher  # (linked, n) -> the search's demonstrations, best last

    def start(self, question: str) -> AgentRun:
        question = question.strip()
        linked = link_question(question, self.tools.kb)
        masked = linked.masked()
        n = self.options.demos
        demos = self.memory.nearest(masked, n)
        if self.searcher is not None:  # the search's programs nearest the question
            shown = self.memory.of_demos(self.searcher(linked, n))
            demos = (demos + shown)[-n:] if shown else demos
        run = AgentRun(self, question, Dialog(question), masked, tuple(linked.entities), demos)
        run.dialog.plan, run.dialog.plan_by = self.plan(run)
        return run

    def plan(self, run: AgentRun) -> tuple[str, str]:
        """The plan the LM writes after the question, before the first turn, and who wrote
        it: with k samples, the plan most of them wrote that passes `_answers` (a plan copied
        from a demonstration about something else mostly does not), else the nearest
        demonstration's plan that does, else none."""
        o = self.options
        prompt = self.prompt(run).removesuffix("Thought:") + "Plan:"
        hints = [f" {self.memory.dialog(e).plan}\n" for e in run.demos]
        texts = self.lm.generate(prompt, o.k, o.temperature if o.k > 1 else 0.0,
                                 o.top_k if o.k > 1 else 1, ("\n",), None, o.max_tokens,
                                 hints=hints)
        written = [p for p, _ in Counter(t.strip() for t in texts if t.strip()).most_common()]
        shown = [self.memory.dialog(e).plan for e in reversed(run.demos)]  # nearest first
        searched = {self.memory.dialog(e).plan for e in run.demos if e.source == "searched"}
        for plan in dict.fromkeys([*written, *shown]):
            if self._answers(run, plan, ranked=plan in searched):
                return plan, "model" if plan in written else "demonstration"
        return "", ""  # no plan: the turns alone decide

    def _answers(self, run: AgentRun, plan: str, ranked: bool = False) -> bool:
        """Whether `plan` run from the question's entity, or as it stands when it lists its
        Finds, answers something on the KB (a plan that needs other starts than one entity
        passes unchecked; one that starts from every entity fails when the question names
        one). A plan the search `ranked` for the question need not start with a hop the
        pattern search lists first."""
        items = [a.text for a in plan_steps(plan)]
        if not items:
            return False
        if items[0].startswith("FindAll("):
            if run.entities:
                return False
            steps = items
        elif any(item.startswith("Find(") for item in items):  # a plan over several entities
            if items[-1].startswith("Find("):
                return False  # cut short
            steps = items
        elif len(run.entities) == 1:
            steps = [f"Find({run.entities[0]})", *items]
            if not ranked and not self._near_question(run, steps[0], items[0]):
                return False
        else:
            return True
        seen = self.tools.call("ExecuteKoPL", steps_of("\n".join(steps)))
        return seen.ok and bool(seen.answers)

    def _near_question(self, run: AgentRun, find: str, first: str) -> bool:
        """Whether the plan's first hop from the entity is among the PLAN_NEAR patterns a
        pattern search for the question lists first (a plan copied from a demonstration
        about another relation is not)."""
        action = parse_action(first)
        if action is None or action.tool not in ("Relate", "QueryAttr"):
            return True
        seen = self.tools.call("SearchGraphPatterns", steps_of(find), run.masked)
        return not seen.ok or _norm(first) in map(_norm, _patterns(seen.text)[:PLAN_NEAR])

    def prompt(self, run: AgentRun) -> str:
        shown = "\n".join(self.memory.dialog(e).text() for e in run.demos)
        return f"{INSTRUCTIONS}{shown}\n{run.dialog.text()}Thought:"

    def next_turn(self, run: AgentRun) -> tuple[Turn, list[str]]:
        """The next turn: candidates voted, the most frequent new one that runs taken; else
        the likeliest allowed action that runs."""
        o = self.options
        guided = self._from_saved(run)
        if guided is not None:
            # A saved dialog asked like this question leads, with no LM call while it runs.
            observation = run_action(guided, run.steps, self.tools)
            if observation.ok:
                return Turn("Follow the saved dialog.", guided.text, observation.text), []
        planned = run.dialog.planned()
        if planned is not None and _new(run, planned.text):
            # The plan line leads while its steps answer.
            turn = self._try(planned, thought_for(planned), run.steps)
            # a join may meet nothing when the plan then asks whether any is left ("no")
            asks_any = planned.tool == "And" and any(a.tool == "Exists"
                                                     for a in plan_steps(run.dialog.plan))
            if turn.ok and (not _empty(turn) or asks_any):
                return turn, []
        prompt = self.prompt(run)
        allowed = allowed_actions(run)
        hints = [_continuation(a) for a in allowed]
        texts = self.lm.generate(prompt, o.k, o.temperature if o.k > 1 else 0.0,
                                 o.top_k if o.k > 1 else 1, STOP, None, o.max_tokens,
                                 hints=hints)
        parsed = [_split(t) for t in texts]
        votes = Counter(a.text for _, a in parsed if a is not None)
        thoughts: dict[str, Counter] = {}
        for thought, action in parsed:
            if action is not None:  # an action's thought: the one its candidates wrote most
                thoughts.setdefault(action.text, Counter())[thought] += 1
        steps, tried, first, failed = run.steps, set(), None, []
        for text, _ in sorted(votes.items(), key=lambda kv: (-kv[1], kv[0])):
            tried.add(text)
            if not _new(run, text) or not _follows(run, parse_action(text)):
                continue  # a repeated action, Done before any query, a pattern not listed
            turn = self._try(parse_action(text), thoughts[text].most_common(1)[0][0], steps)
            if turn.ok and not _empty(turn):
                return _with_tried(turn, failed), texts
            first = _better(first, turn)
            failed.append(turn)
        left = [a for a in allowed if a.text not in tried]
        # After a pattern search, its own ranking (MiniLM, by what the LM asked for) decides:
        # a small LM's likelihood there mostly follows the demonstrations' relations.
        for action in left if _after_search(run) else self._ranked(prompt, left):
            turn = self._try(action, thought_for(action), steps)
            if turn.ok and not _empty(turn):
                return _with_tried(turn, failed), texts
            first = _better(first, turn)
            failed.append(turn)
        if first is None:
            first = Turn(parsed[0][0] if parsed else "", "Done",
                         "Error: no candidate was a new action", False)
        return _with_tried(first, [t for t in failed if t is not first]), texts

    def _try(self, action: Action, thought: str, steps: list[str]) -> Turn:
        observation = run_action(action, steps, self.tools)
        return Turn(thought, action.text, observation.text, observation.ok)

    def _ranked(self, prompt: str, actions: list[Action]) -> list[Action]:
        """`actions` with the LM's choice first: one greedy generation constrained (GBNF) to
        the turns that take them, the rest in their order. (Scoring each turn would cost a
        server a full echo of the prompt with log-probabilities per action.)"""
        if len(actions) <= 1:
            return actions
        turns = {_continuation(a): a for a in actions}
        grammar = "root ::= " + " | ".join(_gbnf_literal(t) for t in turns)
        longest = max(len(t) for t in turns)
        chosen = self.lm.generate(prompt, 1, 0.0, 1, (), grammar, longest)[0]
        first = turns.get(chosen)
        return actions if first is None else [first, *(a for a in actions if a is not first)]

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
        action = parse_action(turns[done].action)
        if action is None or not action.is_step:
            return action
        swap = dict(zip(entry.entities, run.entities, strict=True))
        return action.with_args([swap.get(a, a) for a in action.args])


def _gbnf_literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _continuation(action: Action) -> str:
    """The turn that takes `action`, as the demonstrations write it, after "Thought:"."""
    return f" {thought_for(action)}\nAction: {action.text}\nObservation:"


def _with_tried(turn: Turn, failed: list[Turn]) -> Turn:
    """`turn`, noting the candidates that gave way to it and what their tools said."""
    turn.tried = [f"{t.action} -> {' | '.join(t.observation.splitlines())[:200]}"
                  for t in failed]
    return turn


def _better(kept: Turn | None, turn: Turn) -> Turn:
    """The turn to fall back on: the first that ran (an empty set), else the first error."""
    return turn if kept is None or (turn.ok and not kept.ok) else kept


def _empty(turn: Turn) -> bool:
    """Whether a step's observation is an empty entity set (taken only when nothing else
    answers: an empty set is a dead end, not an answer)."""
    return turn.observation.startswith("0 entities")


def _new(run: AgentRun, text: str) -> bool:
    """Whether `text` is an action worth running now: not one the dialog took (Done only once
    a step has asked for answers), and a Find only of an entity the question names (when it
    names any: a small LM copies the demonstrations' entities) and not found yet (or found
    fewer times than the plan lists it: "is Luke heavier than Vader" meets Luke with the
    heavier of the two), and no query right after a Find or FindAll (the named entity
    itself, or every entity)."""
    action = parse_action(text)
    if action is not None and action.tool == "Find" and run.entities and \
            action.args[:1] != [] and action.args[0] not in run.entities:
        return False
    if action is not None and action.tool == "Find" and run.steps.count(text) >= _listed(
            run, text):
        return False  # an entity's set is built once, or as often as the plan lists it
    if action is not None and action.tool in ("Count", "QueryName") and run.steps and \
            getattr(parse_action(run.steps[-1]), "tool", None) in ("FindAll", "Find"):
        return False  # the question's own entity, or every entity, is never the answer
    if text == "Done":
        last = parse_action(run.steps[-1]) if run.steps else None
        info = lookup(last.tool) if last is not None else None
        return info is not None and info.output not in ENTITY_TYPES
    return not run.dialog.taken(text)


def allowed_actions(run: AgentRun) -> list[Action]:
    """The actions the dialog's state allows: searches for the question's entities (before the
    first step), a Find of
    each of them and of each name the searches found, the patterns the last pattern search listed, the queries of
    the entity set, Done. (The LM may write others; these are what it is ranked among.)"""
    steps = run.steps
    texts = [] if steps else [f"SearchNodes({e})" for e in run.entities]
    texts += [f"Find({e})" for e in run.entities]  # linking found them, even if a search fails
    patterns: list[str] = []
    for turn in run.dialog.turns:
        action = parse_action(turn.action)
        if action is None or not turn.ok:
            continue
        if action.tool == "SearchNodes":
            texts += [f"Find({name})" for name in _names(turn.observation)[:3]]
        elif action.tool == "SearchGraphPatterns":
            patterns = _patterns(turn.observation)
    if _after_search(run) and patterns:
        texts = patterns  # a pattern search is followed by a step reading what it listed
    elif steps:
        texts += patterns
        texts += ["QueryName()", "Count()"]
        if not any(p.startswith("Relate") for p in patterns):
            texts.append(f"SearchGraphPatterns({run.masked})")
    texts.append("Done")
    actions = [parse_action(t) for t in dict.fromkeys(texts)]
    return [a for a in actions if a is not None and _new(run, a.text)]


def _after_search(run: AgentRun) -> bool:
    """Whether the last turn was a pattern search that worked."""
    last = run.dialog.turns[-1] if run.dialog.turns else None
    return last is not None and last.ok and last.action.startswith("SearchGraphPatterns")


def _follows(run: AgentRun, action: Action) -> bool:
    """Whether `action` may follow the last turn: after a pattern search that listed
    patterns, only a step reading one of the first FOLLOWED (or another search, or a
    qualifier step)."""
    if not _after_search(run):
        return True
    listed = _patterns(run.dialog.turns[-1].observation)[:FOLLOWED]
    if not listed or action.tool in ("SearchGraphPatterns", "SearchNodes"):
        return True
    if action.tool == "Relate":
        return action.text in listed
    family = family_of(action.tool) if lookup(action.tool) is not None else None
    if action.tool == "QueryAttr" or family == "filter":
        return bool(action.args) and print_call("QueryAttr", action.args[:1]) in listed
    return family in ("qfilter", "verify", "select", "exists") or action.tool in (
        "QueryAttrQualifier", "QueryRelationQualifier")


def _listed(run: AgentRun, find: str) -> int:
    """How often an entity's Find may be taken: as often as the plan lists it when the plan
    finds every entity the question names, else once (a plan that repeats one entity in
    place of another copied a demonstration)."""
    finds = [a.text for a in plan_steps(run.dialog.plan) if a.tool == "Find"]
    named = {f"Find({e})" for e in run.entities}
    return max(1, finds.count(find)) if named and named <= set(finds) else 1


def _names(observation: str) -> list[str]:
    """The names a SearchNodes observation lists."""
    return [m.group(1) for line in observation.splitlines()
            if (m := re.match(r"^(.*) \((?:entity|concept)\)$", line.strip()))]


def _patterns(observation: str) -> list[str]:
    """The steps that read the patterns a SearchGraphPatterns observation lists."""
    steps = []
    for line in observation.splitlines():
        label = line.split(" -> ")[0].split()
        if len(label) >= 3 and label[0] == "relation":
            direction = "forward" if label[-1] == "plain" else label[-1]
            steps.append(print_call("Relate", [" ".join(label[1:-1]), direction]))
        elif len(label) >= 2 and label[0] == "attribute":
            steps.append(print_call("QueryAttr", [" ".join(label[1:])]))
    return steps


def _split(text: str) -> tuple[str, Action | None]:
    """(thought, action) of a completion that follows "Thought:"."""
    thought, _, rest = text.partition("\nAction:")
    return thought.strip(), parse_action(rest) if rest.strip() else None


def _norm(step: str) -> str:
    return re.sub(r"\s+", "", step).lower()
