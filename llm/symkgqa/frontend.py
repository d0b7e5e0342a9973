"""The few-shot LLM front end (llm/symkgqa/pipeline.py) behind the FrontEnd protocol."""

from __future__ import annotations

import time
from dataclasses import replace

from koplc.kopl.frontend import Compiled, Provenance, Settings
from koplc.llm.symkgqa.demos import template_of
from koplc.llm.symkgqa.pipeline import Attempt, CompileOptions, Compiler, NoLink, Trace


class LlmFrontEnd:
    """Few-shot KoPL generation, QUACK grounding with the LM, execution, reranking and repair.

    The Compiler of a KB (prompt prefix, demonstration pool, indexes) is built on the first
    question about it and kept (its seconds are the "setup" stage of that question);
    `compiler` hands it one already built. `pool` is a list of demonstrations; without it
    the KB's own pool is used (`pool_file`, else the KB's explored pool, see kb_pool)."""

    name = "llm"
    ranking = ("a program's answer is a set in the executor's order (the KB's), except that a "
               "chain's answers reached without passing through its topic again come first "
               "(kopl/ranking.py); its first member is the top answer")

    def __init__(self, lm, *, options: CompileOptions | None = None,
                 leave_template_out: bool = False, pool=None, pool_file: str | None = None,
                 compiler: Compiler | None = None):
        self.lm, self.pool, self.pool_file = lm, pool, pool_file
        self.options = options or CompileOptions()
        self.leave_template_out = leave_template_out
        self._held = None if compiler is None else (compiler.kb, compiler)

    def compiler(self, kb) -> Compiler:
        """The Compiler for `kb`, kept for the last KB asked about (its grounding indexes are
        kept by the KB's file)."""
        if self._held is None or self._held[0] is not kb:
            pool = self.pool
            if pool is None:
                from koplc.llm.symkgqa.kb_pool import demos_for_kb

                pool = demos_for_kb(kb, pool_file=self.pool_file)
            self._held = (kb, Compiler(kb, self.lm, kb_path=kb.source or None, pool=pool,
                                       options=self.options))
        return self._held[1]

    def compile(self, question: str, kb) -> Compiled:
        """Compile and answer one question on `kb`."""
        options = self.options
        if self.leave_template_out:
            options = replace(options, exclude_template=template_of(question))
        clock, fresh = time.perf_counter(), self._held is None or self._held[0] is not kb
        compiler = self.compiler(kb)
        setup = {"setup": time.perf_counter() - clock} if fresh else {}
        try:
            compiled = compiled_of(compiler.compile(question, options))
        except NoLink as err:
            return Compiled(question.strip(), self.name, failure="link", error=err.render(),
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
