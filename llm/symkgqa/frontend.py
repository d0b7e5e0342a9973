"""The few-shot LLM front end (llm/symkgqa/pipeline.py) behind the FrontEnd protocol."""

from __future__ import annotations

from dataclasses import replace

from koplc.kopl.answering.linking import NoLink
from koplc.kopl.answering.per_kb import PerKB
from koplc.kopl.answering.unheld import Unheld
from koplc.kopl.execution.executor import CONVERTING
from koplc.kopl.frontend import Compiled, Provenance, Settings
from koplc.llm.symkgqa.demos import template_of
from koplc.llm.symkgqa.pipeline import Attempt, CompileOptions, Compiler, Trace


class LlmFrontEnd:
    """Few-shot KoPL generation, QUACK grounding with the LM, execution, reranking and repair.

    The Compiler of a KB (prompt prefix, demonstration pool, indexes) is built on the first
    question about it and kept (its seconds are the "setup" stage of that question);
    `compiler` hands it one already built. `pool` is a list of demonstrations; without it
    the KB's own pool is used (`pool_file`, else the KB's explored pool, see kb_pool)."""

    name = "llm"
    ranking = ("a program's answer is a set, sorted, except that a chain's answers reached "
               "without passing through its topic again come first "
               "(kopl/answering/ranking.py); its first member is the top answer")
    # What its answers mean: quantities compare in any unit, as byokg's do. A KB may state one
    # key in several units (half-lives in years, days and seconds): the engine's semantics
    # compare only those in the literal's unit.
    execution = CONVERTING

    def __init__(self, lm, *, options: CompileOptions | None = None,
                 leave_template_out: bool = False, pool=None, pool_file: str | None = None,
                 compiler: Compiler | None = None):
        self.lm, self.pool, self.pool_file = lm, pool, pool_file
        self.options = options or CompileOptions()
        self.leave_template_out = leave_template_out
        self.held = PerKB(self._build, *((compiler.kb, compiler) if compiler else ()))

    def _build(self, kb) -> Compiler:
        pool = self.pool
        if pool is None:
            from koplc.llm.symkgqa.kb_pool import demos_for_kb

            pool = demos_for_kb(kb, pool_file=self.pool_file)
        return Compiler(kb, self.lm, kb_path=kb.source or None, pool=pool, options=self.options)

    def compiler(self, kb) -> Compiler:
        """The Compiler for `kb`, kept for the last KB asked about (its grounding indexes are
        kept by the KB's file)."""
        return self.held.get(kb)

    def compile(self, question: str, kb) -> Compiled:
        """Compile and answer one question on `kb`."""
        options = self.options
        if self.leave_template_out:
            options = replace(options, exclude_template=template_of(question))
        setup = self.held.setup_seconds(kb)
        compiler = self.compiler(kb)
        try:
            compiled = compiled_of(compiler.compile(question, options))
        except NoLink as err:
            return Compiled(question.strip(), self.name, failure="link", error=err.render(),
                            seconds=setup)
        except Unheld as err:  # as the search says it: "nothing found: ..."
            return Compiled(question.strip(), self.name, failure="unfit",
                            error=err.diagnostics[0].message,
                            seconds=setup)
        return replace(compiled, seconds={**setup, **compiled.seconds})


def compiled_of(trace: Trace) -> Compiled:
    """A pipeline Trace as a Compiled: the chosen attempt, else the greedy one."""
    best = trace.best or trace.attempts[0]
    return Compiled(
        trace.question, LlmFrontEnd.name, "kopl-steps", program=best.parsed,
        grounded=best.node, raw=best.raw, answers=tuple(trace.answer), failure=trace.failure,
        error=best.error, seconds=dict(trace.seconds),
        provenance=Provenance(best.source if trace.answer else None, tuple(trace.demos),
                              _repair_edit(best),
                              {"entities": trace.entities, "concepts": trace.concepts}),
        trace=trace)


def _repair_edit(attempt: Attempt) -> str | None:
    edits = [c["edit"] for c in attempt.changes if c.get("pass") == "path-repair"]
    return edits[0] if edits else None


def open_frontend(settings: Settings) -> LlmFrontEnd:
    """The LLM front end: the LM of `settings.lm`; the pool of `settings.pool`, else each KB's
    own pool."""
    from koplc.llm.lm.defaults import open_lm

    lm = settings.lm
    if isinstance(lm, str):
        lm = open_lm(lm, settings.response_cache)
    options = settings.options or CompileOptions(reuse=settings.reuse)
    return LlmFrontEnd(lm, options=options, leave_template_out=settings.leave_template_out,
                       pool_file=settings.pool)
