"""`--frontend agent`: the Interactive-KBQA agent behind the FrontEnd protocol. Its final
artefact is the IR program its KoPL steps (or lifted SPARQL) wrote, type-checked, grounded and
run like any other front end's."""

from __future__ import annotations

from dataclasses import dataclass, replace

from koplc.kopl.answering.linking import link_question, nothing_linked
from koplc.kopl.answering.per_kb import PerKB
from koplc.kopl.answering.repairs.context import RepairContext, SearchBest
from koplc.kopl.answering.repairs.driver import repair
from koplc.kopl.answering.stages import StageFailure, checked, parse_program, run, timed
from koplc.kopl.errors import KoplcError
from koplc.kopl.execution.executor import CONVERTING
from koplc.kopl.execution.judge import says_nothing
from koplc.kopl.frontend import Compiled, Provenance, Settings
from koplc.llm.agent.loop import Agent, AgentOptions, AgentRun
from koplc.llm.agent.memory import DialogMemory
from koplc.llm.agent.replays import endpoint_replays
from koplc.llm.agent.tools import Tools
from koplc.llm.symkgqa.demos import Demo, steps_of


@dataclass(frozen=True)
class AgentSettings:
    """The agent's own options: the loop's, the backend its tools run on, the demonstration
    pairs (None: the pool the few-shot front end uses on the KB, `pool_file` when given), and
    the file corrected dialogs are saved in."""

    loop: AgentOptions = AgentOptions()
    backend: str = "native"
    demos: tuple[Demo, ...] | None = None
    saved: str | None = None
    pool_file: str | None = None


class AgentFrontEnd:
    """The agent front end; one Agent per KB, kept for the last KB asked about."""

    name = "agent"
    ranking = "the answers of the program the dialog wrote, sorted by name"
    execution = CONVERTING  # what its answers mean: quantities compare in any unit

    def __init__(self, lm, settings: AgentSettings | None = None):
        self.lm, self.settings = lm, settings or AgentSettings()
        self.held = PerKB(self._build)

    def _build(self, kb) -> Agent:
        tools = Tools(kb, backend=self.settings.backend, options=self.execution)
        demos = self.settings.demos if self.settings.demos is not None else self._pool(kb)
        memory = DialogMemory.from_demos(tools, demos, self.settings.saved,
                                         endpoint_replays(kb, self.execution))
        # Without questions people wrote, the BYOKG search's near-best programs on the
        # question's own entities are the nearest demonstrations (as the llm front end's
        # demos="auto"): an explored pool's nearest question mostly asks something else.
        curated = any(not d.explored for d in demos)
        return Agent(tools, self.lm, memory, self.settings.loop,
                     searcher=None if curated else Searcher(kb))

    def agent(self, kb) -> Agent:
        """The Agent of `kb`, kept for the last KB asked about."""
        return self.held.get(kb)

    def _pool(self, kb) -> list:
        """The few-shot front end's demonstrations on `kb`; the shipped MetaQA pool for a KB
        with no file to explore (and so no pool of its own)."""
        from koplc.llm.lm.defaults import default_pool
        from koplc.llm.symkgqa.kb_pool import demos_for_kb

        return demos_for_kb(kb, pool_file=self.settings.pool_file) or default_pool()

    def compile(self, question: str, kb) -> Compiled:
        """Run the agent on one question about `kb`; a question that names nothing of the KB
        fails at linking, as with every front end."""
        seconds = self.held.setup_seconds(kb)
        agent = self.agent(kb)
        with timed(seconds, "link"):
            linked = link_question(question, kb)
        failed = nothing_linked(linked, self.name, seconds, kb)
        if failed is not None:
            return failed
        compiled = compiled_of(agent.start(question).run())
        if isinstance(agent.searcher, Searcher):
            compiled = agent.searcher.repaired(compiled, linked, kb)
            error = agent.searcher.unfit(linked, compiled.final) if compiled.answers else None
            if error is not None:  # as `--frontend byokg` says nothing is found
                compiled = replace(compiled, answers=(), failure="unfit", error=error)
        return replace(compiled, seconds={**seconds, **compiled.seconds})


class Searcher:
    """The BYOKG search on one KB, for the agent: called with a linked question and n, at most
    n of its programs that fit the question best, as demonstrations on its own entities (the
    best last); `repaired`, the back half's repairs of the dialog's program after it ran;
    `unfit`, the search's refusals of it. The last question's programs are kept: all three
    ask for the same question."""

    def __init__(self, kb):
        from koplc.llm.byokg.reasoner import ByokgOptions, Reasoner

        self.reasoner = Reasoner(kb, None, [], ByokgOptions(demos="none"))
        self._last: tuple = (None, [])

    def found(self, linked) -> list:
        """The search's programs for `linked`, best first."""
        if self._last[0] != linked.question:
            self._last = (linked.question, self.reasoner.search(linked, ""))
        return self._last[1]

    def __call__(self, linked, n: int) -> list[Demo]:
        found = self.found(linked)
        return self.reasoner.demonstrations(linked, found, n) if found else []

    def repaired(self, compiled: Compiled, linked, kb) -> Compiled:
        """The back half's repairs after a run (`koplc.kopl.answering.repairs`, as the llm
        front end's program meets them): a "how many" question's names counted, and the
        search's best program in place of the dialog's when that answers nothing or fits the
        question more than the repairs' margin worse. `compiled` itself when none applies."""
        found = self.found(linked)
        best = found[0] if found else None
        base = compiled.final if compiled.final is not None else (best.node if best else None)
        if base is None:
            return compiled
        asked = self.reasoner.asked(linked) if best is not None else None
        ctx = RepairContext(
            linked, kb, answered=bool(compiled.answers),
            fit=(lambda node: self.reasoner.fit_beside(node, best.node, asked)) if best else None,
            search=SearchBest(best.node, best.near) if best is not None else None)
        seconds = dict(compiled.seconds)
        with timed(seconds, "repair"):
            done = repair(base, ctx, "ran", lambda node: run(node, kb, seconds, CONVERTING))
        if done.by is None:
            return compiled
        provenance = replace(compiled.provenance, stage=done.by, notes={
            **compiled.provenance.notes, "repairs": list(done.changes)})
        return replace(compiled, grounded=done.program, answers=done.run.answers,
                       failure=None, error=None, seconds=seconds, provenance=provenance)

    def unfit(self, linked, node) -> str | None:
        """Why nothing is found for `node`, the dialog's program (`Reasoner.unfit`); None when
        nothing says so."""
        return self.reasoner.unfit(linked, self.found(linked), node)


def compiled_of(run: AgentRun) -> Compiled:
    """The Compiled of a finished (or stopped) run: its program checked, grounded and run."""
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
        program = parse_program(steps_of("\n".join(steps)))
    except StageFailure as err:
        return Compiled(**base, failure=err.stage, error=err.message)
    try:
        checked(program)
    except StageFailure as err:
        return Compiled(**base, program=program, failure=err.stage, error=err.message)
    with timed(seconds, "grounding"):
        grounded, why = _ground(run, program)
    if why is not None:  # the tools checked its names as the dialog went; it runs as written
        notes["ungrounded"] = why
    with timed(seconds, "execution"):
        seen = run.agent.tools.execute_kopl(grounded)
    answers = tuple(seen.answers)
    error = says_nothing(grounded, answers) if answers else None
    return Compiled(**base, program=program, grounded=grounded,
                    answers=() if error else answers, error=error,
                    failure="empty" if error or not answers else None)


def _ground(run: AgentRun, program) -> tuple:
    """The program grounded on the KB, and None; or, when grounding fails, the program as
    written and why grounding failed."""
    from koplc.kopl.grounding.choosers import SimilarityChooser
    from koplc.kopl.grounding.context import GroundingContext
    from koplc.kopl.grounding.driver import ground

    tools = run.agent.tools
    try:
        grounded = ground(program, GroundingContext(tools.kb, tools.indexes, run.question,
                                                    SimilarityChooser()))
    except KoplcError as err:
        return program, err.render()
    if grounded.remaining:
        return program, "; ".join(d.message for d in grounded.remaining)
    return grounded.program, None


def open_frontend(settings: Settings) -> AgentFrontEnd:
    """The agent front end with the LM of `settings.lm`; `settings.options` may be an
    AgentSettings."""
    from koplc.llm.lm.defaults import open_lm

    lm = settings.lm
    if isinstance(lm, str):
        lm = open_lm(lm, settings.response_cache)
    options = settings.options if isinstance(settings.options, AgentSettings) else \
        AgentSettings()
    if options.pool_file is None and settings.pool:  # --pool, or an endpoint's explored pool
        options = replace(options, pool_file=settings.pool)
    return AgentFrontEnd(lm, options)
