"""BYOKG's bottom-up reasoner as a front end: from the question's linked entities, grow
programs one op at a time, keeping only expansions the KB answers (non-empty, as in Pangu);
score each by the LM's log-probability of the program after the prompt (instructions,
catalogue, retrieved pool demonstrations, the question), keep the best k per step, and rerank
the finished programs by α · that score + (1 − α) · inverse consistency."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace

from koplc.kopl.errors import KoplcError
from koplc.kopl.execution.executor import DEFAULT, execute
from koplc.kopl.frontend import Compiled, Provenance, Settings
from koplc.kopl.grounding.mentions import Linked, link
from koplc.kopl.ir import Count, FilterConcept, Find, Node, QueryAttr, QueryName, Relate
from koplc.kopl.syntax import steps as steps_syntax
from koplc.llm.demos import DemoSelector, calls_of
from koplc.llm.prompt import PromptBuilder
from koplc.llm.scoring import inverse_consistency


@dataclass(frozen=True)
class ByokgOptions:
    """The search's knobs; `demos` is "retrieved", "random" or "none" (zero-shot), the
    ablations of the paper with `rerank` off."""

    beam: int = 10
    max_steps: int = 4
    alpha: float = 0.5
    rerank: bool = True
    demos: str = "retrieved"
    n_demos: int = 4
    seed: int = 0


@dataclass(frozen=True)
class Candidate:
    """A program of the search: its calls, what it answers, log P(calls | prompt)."""

    node: Node
    text: str
    answer: tuple[str, ...]
    finished: bool
    lm: float = 0.0
    score: float = 0.0


def expansions(node: Node, kb, concepts: tuple[str, ...]) -> Iterator[Node]:
    """Every one-op extension of an entity-set program: a relation either way, a concept the
    question names, or a finishing op (names, count, an attribute)."""
    for relation in sorted(kb.relation_names):
        for direction in ("forward", "backward"):
            yield Relate(input=node, relation=relation, direction=direction)
    for concept in concepts:
        yield FilterConcept(input=node, concept=concept)
    yield QueryName(input=node)
    yield Count(input=node)
    for key in sorted(kb.attr_index):
        yield QueryAttr(input=node, key=key)


def admissible(node: Node, kb, topics: set[str]) -> tuple[str, ...] | None:
    """The answers of `node` when it runs to something beyond the question's own entities
    (None otherwise)."""
    try:
        answer = tuple(str(v) for v in execute(node, kb, DEFAULT).items())
    except KoplcError:
        return None
    if not answer or set(answer) <= topics or (node.op == "Count" and answer == ("0",)):
        return None
    return answer


class Reasoner:
    """The per-KB part: prompt prefix and demonstration selector."""

    def __init__(self, kb, lm, demos, options: ByokgOptions):
        self.kb, self.lm, self.options = kb, lm, options
        self.builder = PromptBuilder.for_kb(kb)
        self.pool = demos
        self.selector = DemoSelector(demos) if demos and options.demos == "retrieved" else None

    def demos_for(self, linked: Linked) -> list:
        if self.options.demos == "none" or not self.pool:
            return []
        if self.options.demos == "random":
            rng = random.Random(f"{self.options.seed}:{linked.question}")
            return rng.sample(self.pool, min(self.options.n_demos, len(self.pool)))
        return self.selector.nearest(linked.masked(), self.options.n_demos)

    def search(self, linked: Linked, prompt: str) -> list[Candidate]:
        """The finished programs, best LM score first (at most k)."""
        opts, topics = self.options, set(linked.entities)
        beam = [Candidate(Find(name=e), f"Find({e})", (e,), False) for e in linked.entities]
        finished: list[Candidate] = []
        for step in range(opts.max_steps):
            grown = []
            for parent in beam:
                for child in expansions(parent.node, self.kb, linked.concepts):
                    last = step == opts.max_steps - 1
                    done = child.op in ("QueryName", "Count", "QueryAttr")
                    if last and not done:
                        continue
                    answer = admissible(child, self.kb, topics)
                    if answer is None:
                        continue
                    text = parent.text + "\n" + calls_of(steps_syntax.print_program(child)
                                                         ).splitlines()[-1]
                    end = "\n\n" if done else "\n"
                    grown.append(Candidate(child, text, answer, done,
                                           self.lm.score(prompt, text + end)))
            finished += [c for c in grown if c.finished]
            beam = sorted((c for c in grown if not c.finished), key=lambda c: -c.lm)[:opts.beam]
            if not beam:
                break
        return sorted(finished, key=lambda c: -c.lm)[:opts.beam]

    def rerank(self, candidates: list[Candidate], question: str) -> list[Candidate]:
        """α · log P(program | prompt) + (1 − α) · log P(question | program), both per
        character of the question, best first. Sums, not per-token means, for the program:
        a mean favours a longer program whose extra hop is easy to predict."""
        alpha, size = self.options.alpha, max(len(question), 1)
        scored = [replace(c, score=alpha * c.lm / size + (1 - alpha) * inverse_consistency(
            self.lm, steps_syntax.print_program(c.node), question)) for c in candidates]
        return sorted(scored, key=lambda c: -c.score)


class ByokgFrontEnd:
    """`--frontend byokg`: bottom-up search over KB-admissible programs, scored by the LM."""

    name = "byokg"
    ranking = ("the best-scored program's answer set, in the executor's order; its first "
               "member is the top answer")

    def __init__(self, lm, *, options: ByokgOptions | None = None, pool=None,
                 pool_file: str | None = None):
        self.lm, self.pool, self.pool_file = lm, pool, pool_file
        self.options = options or ByokgOptions()
        self._held = None

    def reasoner(self, kb) -> Reasoner:
        if self._held is None or self._held[0] is not kb:
            pool = self.pool
            if pool is None and self.options.demos != "none":
                from koplc.llm.kb_pool import demos_for_kb

                pool = demos_for_kb(kb, pool_file=self.pool_file)
            self._held = (kb, Reasoner(kb, self.lm, pool or [], self.options))
        return self._held[1]

    def compile(self, question: str, kb) -> Compiled:
        """Search, rerank and answer one question on `kb`."""
        clock = time.perf_counter()
        reasoner = self.reasoner(kb)
        seconds = {"setup": time.perf_counter() - clock}
        clock = time.perf_counter()
        linked = link(question, kb)
        seconds["link"] = time.perf_counter() - clock
        if not linked.entities:
            return Compiled(linked.question, self.name, failure="link", seconds=seconds,
                            error="nothing found: the question names no entity of the KB")
        clock = time.perf_counter()
        demos = reasoner.demos_for(linked)
        prompt = reasoner.builder.build(linked, demos)
        if hasattr(self.lm, "keep_prefix"):
            self.lm.keep_prefix(reasoner.builder.prefix)
        seconds["prompt"] = time.perf_counter() - clock
        clock = time.perf_counter()
        found = reasoner.search(linked, prompt)
        seconds["search"] = time.perf_counter() - clock
        if not found:
            return Compiled(linked.question, self.name, failure="empty", seconds=seconds,
                            error="nothing found: no program from the question's entities "
                            "answers anything in the KB")
        if self.options.rerank:
            clock = time.perf_counter()
            found = reasoner.rerank(found, linked.question)
            seconds["rerank"] = time.perf_counter() - clock
        best = found[0]
        return Compiled(linked.question, self.name, "kopl-steps", program=best.node,
                        grounded=best.node, raw=best.text, answers=best.answer,
                        seconds=seconds, provenance=Provenance(
                            "byokg", tuple(d.question for d in demos), None,
                            {"entities": list(linked.entities),
                             "candidates": [{"program": c.text, "lm": round(c.lm, 3),
                                             "score": round(c.score, 4)} for c in found]}))


def open_frontend(settings: Settings) -> ByokgFrontEnd:
    """The BYOKG front end: the LM of `settings.lm`, the pool of `settings.pool` or the KB's."""
    from koplc.llm.defaults import open_lm

    lm = settings.lm
    if isinstance(lm, str):
        lm = open_lm(lm, settings.response_cache)
    options = settings.options if isinstance(settings.options, ByokgOptions) else None
    return ByokgFrontEnd(lm, options=options, pool_file=settings.pool)
