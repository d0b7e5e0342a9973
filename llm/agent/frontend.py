"""`--frontend agent`: the Interactive-KBQA agent behind the FrontEnd protocol. Its final
artefact is the IR program its KoPL steps (or lifted SPARQL) wrote, type-checked, grounded and
run like any other front end's."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from koplc.kopl.errors import KoplcError
from koplc.kopl.frontend import Compiled, Provenance, Settings
from koplc.llm.agent.loop import Agent, AgentOptions, AgentRun
from koplc.llm.agent.memory import DialogMemory
from koplc.llm.agent.tools import Tools
from koplc.llm.symkgqa.demos import steps_of


@dataclass(frozen=True)
class AgentSettings:
    """The agent's own options: the loop's, the backend its tools run on, the demonstration
    pairs (None: the pool the few-shot front end uses on the KB, `pool_file` when given), and
    the file corrected dialogs are saved in."""

    loop: AgentOptions = AgentOptions()
    backend: str = "native"
    demos: tuple | None = None
    saved: str | None = None
    pool_file: str | None = None


class AgentFrontEnd:
    """The agent front end; one Agent per KB, kept for the last KB asked about."""

    name = "agent"
    ranking = "the answers of the program the dialog wrote, sorted by name"

    def __init__(self, lm, settings: AgentSettings | None = None):
        self.lm, self.settings = lm, settings or AgentSettings()
        self._held = None

    def agent(self, kb) -> Agent:
        if self._held is None or self._held[0] is not kb:
            tools = Tools(kb, backend=self.settings.backend)
            if self.settings.demos is not None:
                memory = DialogMemory(tools, self.settings.demos, self.settings.saved)
            else:
                memory = DialogMemory.from_demos(tools, self._pool(kb), self.settings.saved)
            self._held = (kb, Agent(tools, self.lm, memory, self.settings.loop))
        return self._held[1]

    def _pool(self, kb) -> list:
        """The few-shot front end's demonstrations on `kb`; the shipped MetaQA pool for a KB
        with no file to explore (and so no pool of its own)."""
        from koplc.llm.lm.defaults import default_pool
        from koplc.llm.symkgqa.kb_pool import demos_for_kb

        return demos_for_kb(kb, pool_file=self.settings.pool_file) or default_pool()

    def compile(self, question: str, kb) -> Compiled:
        run = self.agent(kb).start(question).run()
        return compiled_of(run)


def compiled_of(run: AgentRun) -> Compiled:
    """The Compiled of a finished (or stopped) run: its program checked, grounded and run."""
    from koplc.kopl.check import check
    from koplc.kopl.syntax import steps as steps_syntax

    seconds = {"agent": run.seconds}
    notes = {"rounds": len(run.dialog.turns), "stopped": run.finished,
             "dialog": run.dialog.to_json(), "corrected": run.corrected}
    provenance = Provenance("agent", tuple(e.question for e in run.demos), None, notes)
    base = dict(question=run.question, frontend="agent", seconds=seconds, provenance=provenance,
                raw=run.dialog.text(), trace=None)
    steps = run.steps
    if not steps:
        return Compiled(**base, failure="parse", error="the dialog wrote no KoPL step")
    try:
        program = steps_syntax.parse(steps_of("\n".join(steps))).program
    except KoplcError as err:
        return Compiled(**base, failure="parse", error=err.render())
    errors = [d for d in check(program) if d.is_error]
    if errors:
        return Compiled(**base, program=program, failure="type",
                        error="; ".join(d.message for d in errors))
    clock = time.perf_counter()
    grounded = _ground(run, program)
    seconds["grounding"] = time.perf_counter() - clock
    clock = time.perf_counter()
    seen = run.agent.tools.execute_kopl(grounded)
    seconds["execution"] = time.perf_counter() - clock
    answers = tuple(a for a in seen.answers)
    failure = None if answers else "empty"
    return Compiled(**base, program=program, grounded=grounded, answers=answers, failure=failure)


def _ground(run: AgentRun, program):
    """The program grounded on the KB (names the tools already checked stay as they are)."""
    from koplc.kopl.grounding.choosers import SimilarityChooser
    from koplc.kopl.grounding.context import GroundingContext
    from koplc.kopl.grounding.driver import ground

    tools = run.agent.tools
    try:
        grounded = ground(program, GroundingContext(tools.kb, tools.indexes, run.question,
                                                    SimilarityChooser()))
    except KoplcError:
        return program
    return program if grounded.remaining else grounded.program


def open_frontend(settings: Settings) -> AgentFrontEnd:
    """The agent front end with the LM of `settings.lm`; `settings.options` may be an
    AgentSettings."""
    from koplc.llm.lm.defaults import open_lm

    lm = settings.lm
    if isinstance(lm, str):
        lm = open_lm(lm, settings.response_cache)
    options = settings.options if isinstance(settings.options, AgentSettings) else \
        AgentSettings(pool_file=settings.pool)
    return AgentFrontEnd(lm, options)


def read_demos(path: str | Path) -> tuple:
    """Demonstration pairs from a JSONL file of {"question", "program"} records (program in
    kopl-steps or one call a line); entities come from linking each question."""
    import json

    records = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()
               if line.strip()]
    return tuple((r["question"], tuple(r.get("entities", ())), r["program"],
                  r.get("masked", r["question"])) for r in records)
