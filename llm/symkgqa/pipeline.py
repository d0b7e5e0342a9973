"""The SymKGQA front end: generate KoPL steps few-shot, parse, check, ground with QUACK (the LM
choosing among candidates), execute; when that fails or finds nothing, sample more programs and
pick among the executable ones by agreement, then inverse consistency. Every stage's output is
kept."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field, replace

from koplc.kopl.answering.linking import NoLink, link_question, linked_or_raise
from koplc.kopl.answering.repairs.context import RepairContext, SearchBest
from koplc.kopl.answering.repairs.driver import repair
from koplc.kopl.answering.repairs.pin_entities import moved
from koplc.kopl.answering.stages import StageFailure, checked, parse_program, run, timed
from koplc.kopl.errors import KoplcError
from koplc.kopl.execution.executor import CONVERTING
from koplc.kopl.kb.access import shown_schema
from koplc.kopl.syntax import steps as steps_syntax
from koplc.llm.lm.gbnf import grammar_for
from koplc.llm.lm.scoring import LMChooser, inverse_consistency
from koplc.llm.symkgqa.answer_type import asked_types, output_type, retyped, value_nouns
from koplc.llm.symkgqa.catalogue import ops_for_kb
from koplc.llm.symkgqa.demos import FIXED, DemoSelector, calls_of, steps_of, without_repeats
from koplc.llm.symkgqa.prompt import PromptBuilder
from koplc.llm.symkgqa.said_units import with_said_units

STOP = ("\nQuestion:", "\n\n")
# A greedy program that writes one line a third time has fallen into a loop: it ends there (no
# demonstrated program says a line three times; a looping one ran on for seconds).
REPEATS = 3
TYPED_TRIES = 5  # candidates of the asked type run, best-fitting first, before giving up


@dataclass(frozen=True)
class CompileOptions:
    """Switches of the pipeline (the evaluation's ablations turn them off one at a time)."""

    n_demos: int = 4
    # "dynamic": the pool's nearest; "searched": the BYOKG search's near-best programs after
    # them; "auto": searched unless the pool holds questions people wrote (on MetaQA's
    # curated pool, leaving each question's template out, dynamic got 84 of 90 and searched
    # 78; on the periodic table's explored pool, dynamic 22 of 77 and searched 67); "fixed"
    demos: str = "auto"
    grammar: str = "fallback"  # "always", "fallback" (only after a parse or type failure), "never"
    quack: bool = True
    rerank: bool = True
    execution_guidance: bool = True
    samples: int = 2
    temperature: float = 0.3
    top_k: int = 30
    exclude_template: str | None = None
    reuse: bool = True  # case reuse, and adapted demonstrations as fallback candidates
    repair: bool = True
    # With searched demonstrations: a chosen program that fits the question this much worse
    # than the search's best (or no answering program) gives way to that best ("search").
    fit_margin: float = 0.05


@dataclass
class Attempt:
    """One generated program through the stages; `failed` names the first stage that failed."""

    raw: str
    # reuse, greedy, grammar, sample, adapted, repair, answer-type, search or unfit
    source: str = "greedy"
    program: str | None = None
    parsed: object = None
    grounded: str | None = None
    changes: list[dict] = field(default_factory=list)
    answer: list[str] | None = None
    failed: str | None = None
    error: str | None = None
    score: float | None = None
    node: object = None

    def to_json(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in ("node", "parsed")}


@dataclass
class Trace:
    """The outcome for one question: every stage's output, the chosen attempt, timings."""

    question: str
    entities: list[str]
    concepts: list[str]
    demos: list[str]
    attempts: list[Attempt]
    chosen: int | None
    seconds: dict[str, float]

    @property
    def best(self) -> Attempt | None:
        return None if self.chosen is None else self.attempts[self.chosen]

    @property
    def answer(self) -> list[str]:
        return (self.best.answer or []) if self.best else []

    @property
    def failure(self) -> str | None:
        """The stage where the chosen (or greedy) attempt failed, or None."""
        attempt = self.best or self.attempts[0]
        return attempt.failed

    def to_json(self) -> dict:
        return {"question": self.question, "entities": self.entities,
                "concepts": self.concepts, "demos": self.demos, "chosen": self.chosen,
                "attempts": [a.to_json() for a in self.attempts],
                "seconds": {k: round(v, 4) for k, v in self.seconds.items()}}


class Compiler:
    """Everything that is fixed per KB and LM: prompt prefix, pool, grammar, indexes."""

    def __init__(self, kb, lm, *, indexes=None, kb_path=None, pool=None,
                 options: CompileOptions | None = None):
        from koplc.kopl.grounding.index.kb_indexes import Indexes

        self.kb, self.lm, self.options = kb, lm, options or CompileOptions()
        self.indexes = indexes or Indexes.for_kb(kb, kb_path, None)
        self.builder = PromptBuilder.for_kb(kb, lm)
        self.grammar = grammar_for(ops_for_kb(shown_schema(kb)))  # the prompt's ops
        self.selector = DemoSelector(pool) if pool else None
        self.chooser = LMChooser(lm)
        self._searcher = None
        self.curated = any(not d.explored for d in pool or ())
        self.value_nouns = value_nouns(kb.key_type, kb.concept_names())

    def compile(self, question: str, options: CompileOptions | None = None) -> Trace:
        """Compile one question; raises NoLink when nothing in it links to the KB."""
        opts = options or self.options
        seconds = {"link": 0.0, "generation": 0.0, "grounding": 0.0, "execution": 0.0}
        with timed(seconds, "link"):
            linked = self._linked(question, opts)
        clock = time.perf_counter()
        searched = self._search(linked, opts)
        seconds["search"] = time.perf_counter() - clock
        twin, reused = self._reuse(linked, opts, seconds)
        if reused is not None and reused.answer:
            attempts = [reused]
            chosen = self._repair_after_run(attempts, 0, linked, searched, "", opts, seconds)
            chosen = self._typed(attempts, chosen, linked, searched, opts, seconds)
            return Trace(linked.question, list(linked.entities), list(linked.concepts),
                         [twin.question], attempts, chosen, seconds)
        clock = time.perf_counter()
        demos = self._demos(linked, opts, searched)
        prompt = self.builder.build(linked, demos)
        seconds["prompt"] = time.perf_counter() - clock
        grammar = self.grammar if opts.grammar == "always" else None
        clock = time.perf_counter()
        if hasattr(self.lm, "keep_prefix"):  # llama.cpp: its KV state, kept across processes
            self.lm.keep_prefix(self.builder.prefix)
        raw = self.lm.generate(prompt, 1, 0.0, 1, STOP, grammar, hints=hints(linked, demos),
                               repeats=REPEATS)
        seconds["generation"] += time.perf_counter() - clock
        attempts = [self._run(raw[0], linked, opts, seconds)]
        # The LM's further tries (with the grammar, then samples) cost seconds each; where the
        # search has a program that fits the question, its adapted programs stand in for them.
        fitting = bool(searched) and self._searcher.fits(searched)
        if (opts.grammar == "fallback" and attempts[0].failed in ("parse", "type")
                and not fitting):
            # The grammar costs several times the free decoding, so it runs only when the
            # free program does not parse or type-check.
            grammar = self.grammar
            clock = time.perf_counter()
            raw = self.lm.generate(prompt, 1, 0.0, 1, STOP, grammar)
            seconds["generation"] += time.perf_counter() - clock
            attempts.append(replace(self._run(raw[0], linked, opts, seconds), source="grammar"))
        chosen = len(attempts) - 1 if attempts[-1].answer else None
        if chosen is None and opts.rerank and opts.samples:
            clock = time.perf_counter()
            more = () if fitting else self.lm.generate(
                prompt, opts.samples, opts.temperature, opts.top_k, STOP, grammar)
            seconds["generation"] += time.perf_counter() - clock
            attempts += [replace(self._run(text, linked, opts, seconds), source="sample")
                         for text in more]
            if opts.reuse:
                attempts += [replace(self._run(text, linked, opts, seconds), source="adapted")
                             for text in adapted(linked, demos)]
            chosen = self._pick(attempts, linked.question, seconds)
        chosen = self._repair_after_run(attempts, chosen, linked, searched, prompt, opts,
                                        seconds)
        chosen = self._typed(attempts, chosen, linked, searched, opts, seconds)
        chosen = self._unfit(attempts, chosen, linked, searched)
        if reused is not None:
            attempts.append(reused)  # kept for --explain, after the generated ones
        return Trace(linked.question, list(linked.entities), list(linked.concepts),
                     [d.question for d in demos], attempts, chosen, seconds)

    def _linked(self, question: str, opts: CompileOptions):
        """`linked_or_raise`, except that a question naming nothing of the KB but a value of
        it, a superlative or a kind of thing it holds goes on where the search runs, from
        where byokg starts it (`byokg.starts.starts_unnamed`)."""
        try:
            return linked_or_raise(question, self.kb)
        except NoLink:
            if self._mode(opts) != "searched":
                raise
            from koplc.llm.byokg.starts import starts_unnamed

            linked = link_question(question, self.kb)
            if not starts_unnamed(self.kb, linked):
                raise
            return linked

    def _mode(self, opts: CompileOptions) -> str:
        if opts.demos == "auto":
            return "dynamic" if self.curated else "searched"
        return opts.demos

    def _search(self, linked, opts: CompileOptions) -> list:
        """The BYOKG search's programs for the question, best first, when the demonstrations
        are searched (else none)."""
        if self._mode(opts) != "searched":
            return []
        if self._searcher is None:
            from koplc.llm.byokg.reasoner import ByokgOptions, Reasoner

            self._searcher = Reasoner(self.kb, None, [], ByokgOptions(demos="none"))
        from koplc.kopl.grounding.context import GroundingContext

        ctx = GroundingContext(self.kb, self.indexes, linked.question, self.chooser)
        return [self._in_kb_units(c, ctx) for c in self._searcher.search(linked, "")]

    def _in_kb_units(self, candidate, ctx):
        """A search program with its quantities restated in the KB's units for their keys
        (the grounding's units pass in the question's context `ctx`, which the LM's programs
        get too): the search writes a number with the unit the question says ("5000 years",
        "2.5 metres")."""
        from koplc.kopl.grounding.unit_conversion import convert_units

        node, changes = convert_units(candidate.node, ctx)
        if not changes:
            return candidate
        answer = run(node, self.kb, {}, CONVERTING).answers
        return replace(candidate, node=node, text=calls_of(steps_syntax.print_program(node)),
                       answer=tuple(answer))

    def _demos(self, linked, opts: CompileOptions, searched: list) -> list:
        """The prompt's demonstrations (CompileOptions.demos): the pool's nearest to the
        question (entities masked), or the fixed set without a pool; when searched, the
        search's near-best programs on the question's own entities come after (nearest the
        question), the pool's filling the rest."""
        mode = self._mode(opts)
        if self.selector is None:
            pool = list(FIXED[: opts.n_demos]) if mode != "searched" else []
        elif mode == "fixed":
            pool = FIXED[: opts.n_demos]
        else:
            pool = self.selector.nearest(linked.masked(), opts.n_demos, opts.exclude_template)
        if mode != "searched":
            return pool
        shown = self._searcher.demonstrations(linked, searched, opts.n_demos)
        rest = opts.n_demos - len(shown)
        return (pool[-rest:] if rest else []) + shown

    def _repair_after_run(self, attempts: list[Attempt], chosen: int | None, linked,
                          searched, prompt: str, opts: CompileOptions, seconds) -> int | None:
        """The repairs after a run (kopl/answering/repairs): when nothing answered, the
        neighbours of the unanswered programs (not of adapted demonstrations: those are other
        questions' programs); then answer-type counting of the chosen program; then the
        search's check. Each replacement that answers is a new attempt, chosen."""
        if not opts.repair:
            return chosen
        answered = chosen is not None
        empty = tuple(a.node for a in attempts if a.failed == "empty" and a.node is not None
                      and a.source != "adapted")
        base = attempts[chosen].node if answered else (empty[0] if empty else None)
        best = searched[0] if searched else None
        if base is None:
            if best is None:
                return chosen
            base = best.node  # nothing ran: the search's best is the one candidate
        asked = self._searcher.asked(linked) if best is not None else None
        ctx = RepairContext(
            linked, self.kb, answered=answered, unanswered=empty[1:] if not answered else (),
            score=lambda node: self._repair_score(node, linked.question, prompt),
            fit=(lambda node: self._searcher.fit_beside(node, best.node, asked)) if best else None,
            search=SearchBest(best.node, best.near) if best is not None else None,
            margin=opts.fit_margin)
        clock = time.perf_counter()
        done = repair(base, ctx, "ran", lambda node: run(node, self.kb, seconds, CONVERTING))
        seconds["repair"] = seconds.get("repair", 0.0) + time.perf_counter() - clock
        if done.by is None:
            return chosen
        text = steps_syntax.print_program(done.program)
        attempts.append(Attempt(calls_of(text), source=done.by, program=text,
                                parsed=done.program, grounded=text, changes=list(done.changes),
                                answer=list(done.run.answers), node=done.program))
        return len(attempts) - 1

    def _typed(self, attempts: list[Attempt], chosen: int | None, linked, searched: list,
               opts: CompileOptions, seconds) -> int | None:
        """The answer-type check (answer_type.py): when the chosen program gives another type
        than the question's form asks for, the candidate of the asked type that answers and
        fits the question best (the search's fit; without the search, the first): another
        attempt, a search program, or the chosen program with its last op retyped. With the
        search, a candidate must fit at least as well as the search's refusal threshold; when
        none does, nothing is found (an attempt that failed "unfit" is chosen)."""
        wanted = asked_types(linked.question, self.value_nouns)
        if not opts.repair or chosen is None or wanted is None:
            return chosen
        node = attempts[chosen].node
        if node is None or output_type(node) in wanted:
            return chosen
        nodes = [a.node for a in attempts if a.answer and a.node is not None]
        nodes += [c.node for c in searched] + [retyped(node, wanted)]
        typed = list(dict.fromkeys(n for n in nodes if n is not None
                                   and output_type(n) in wanted))
        fits: list = [None] * len(typed)
        if searched:
            # The search's own refusal threshold: a program of the asked type must fit the
            # question as well as the search asks of any answer.
            least = self._searcher.options.min_fit
            fits = self._searcher.nearness(typed, self._searcher.asked(linked)) if typed else []
            order = sorted((i for i in range(len(typed)) if fits[i] >= least),
                           key=lambda i: (-fits[i], i))
            typed, fits = [typed[i] for i in order], [fits[i] for i in order]
        clock = time.perf_counter()
        for candidate, fit in list(zip(typed, fits, strict=True))[:TYPED_TRIES]:
            result = run(candidate, self.kb, seconds, CONVERTING)
            if result.answers:
                text = steps_syntax.print_program(candidate)
                attempts.append(Attempt(calls_of(text), source="answer-type", program=text,
                                        parsed=candidate, grounded=text, score=fit,
                                        answer=list(result.answers), node=candidate))
                chosen = len(attempts) - 1
                break
        else:
            if searched:
                attempts.append(Attempt("", source="answer-type", failed="unfit", error=(
                    "nothing found: no program that gives what the question asks for fits "
                    "it; the KB may not hold what it asks")))
                chosen = len(attempts) - 1
        seconds["repair"] = seconds.get("repair", 0.0) + time.perf_counter() - clock
        return chosen

    def _unfit(self, attempts: list[Attempt], chosen: int | None, linked, searched) -> int | None:
        """The search's refusals, for a generated program too: nothing is found (an attempt
        that failed "unfit" is chosen), as `--frontend byokg` says for the same question, when
        no program fits (`Reasoner.refuses`) or one asking for a fact the entity lacks fits
        clearly better than any that answers, the generated one included (`Reasoner.lacking`)."""
        node = attempts[chosen].node if chosen is not None else None
        if not searched or node is None:
            return chosen
        error = self._searcher.unfit(linked, searched, node)
        if error is None:
            return chosen
        attempts.append(Attempt("", source="unfit", failed="unfit", error=error))
        return len(attempts) - 1

    def _reuse(self, linked, opts: CompileOptions, seconds):
        """Case reuse: when the pool holds a question phrased exactly like this one (entities
        masked), or one word away by a near synonym (DemoSelector.near_twin), its program with
        the question's entity is the first candidate, with no LM call. Returns (that pool
        question, its attempt) or (None, None)."""
        if not opts.reuse or self.selector is None or len(linked.entities) != 1:
            return None, None
        masked = linked.masked()
        twin = (self.selector.same_template(masked, opts.exclude_template)
                or self.selector.near_twin(masked, opts.exclude_template))
        if twin is None or len(twin.entities) != 1:
            return None, None
        attempt = self._run(twin.adapted(linked.entities[0]), linked, opts, seconds)
        return twin, replace(attempt, source="reuse")

    def _run(self, raw: str, linked, opts: CompileOptions, seconds) -> Attempt:
        """One generated program through the shared stages: parse and check, the repairs of a
        written program, grounding, the repairs of a grounded one, execution and judging."""
        attempt = Attempt(raw)
        try:
            node = parse_program(steps_of(without_repeats(raw)))
            attempt.program, attempt.parsed = steps_syntax.print_program(node), node
            checked(node)
        except StageFailure as err:
            return replace(attempt, failed=err.stage, error=err.message)
        if opts.quack:
            ctx = RepairContext(linked, self.kb)
            with timed(seconds, "grounding"):
                written = repair(node, ctx, "written")
                try:
                    grounded, changes = self._ground(written.program, linked.question, opts)
                    if moved(changes, linked) and opts.execution_guidance:
                        # Execution guidance traded the question's own entity for one that
                        # makes a wrong program return something; keep the entity, so that
                        # the program finds nothing and relation-path repair gets its turn.
                        grounded, changes = self._ground(
                            written.program, linked.question,
                            replace(opts, execution_guidance=False))
                except KoplcError as err:
                    return replace(attempt, failed="grounding", error=err.render())
            pinned = repair(grounded, replace(ctx, grounding=tuple(changes)), "grounded")
            kept = [c for c in changes if c not in moved(changes, linked)]
            node = pinned.program
            attempt.changes = [*written.changes, *kept, *pinned.changes]
            attempt.grounded = steps_syntax.print_program(node)
        attempt.node = node
        result = run(node, self.kb, seconds, CONVERTING)
        attempt.answer = list(result.answers) if result.failed != "execution" else None
        attempt.failed, attempt.error = result.failed, result.error
        return attempt

    def _repair_score(self, node, question: str, prompt: str) -> float:
        """How well a repaired program explains the question (inverse consistency) plus how
        likely the model finds it as its own program after the prompt, both per character."""
        text = steps_syntax.print_program(node)
        calls = calls_of(text) + "\n\n"
        own = self.lm.score(prompt, calls) / len(calls)
        return inverse_consistency(self.lm, text, question) + own

    def _ground(self, node, question: str, opts: CompileOptions):
        from koplc.kopl.grounding.context import GroundingContext, GroundingOptions
        from koplc.kopl.grounding.driver import ground
        from koplc.kopl.grounding.unit_conversion import convert_units, key_of

        options = GroundingOptions(execution_guidance=opts.execution_guidance)
        ctx = GroundingContext(self.kb, self.indexes, question, self.chooser, options)
        grounded = ground(node, ctx)
        if grounded.remaining:
            raise KoplcError(grounded.remaining, code="grounding")
        changes = [c.to_json() for c in grounded.changes]

        def unit(quantity_node) -> str | None:  # the KB's unit of the node's grounded key
            found = key_of(quantity_node)
            return ctx.profile.unit(*found) if found else None

        def span(quantity_node) -> tuple[float, float] | None:  # of bare-number values
            found = key_of(quantity_node)
            return ctx.profile.span(*found) if found else None

        program, said = with_said_units(grounded.program, question, unit, span)
        if not said:
            return grounded.program, changes
        program, converted = convert_units(program, ctx)
        return program, changes + [{"pass": "said-units", "edit": e} for e in said] + [
            c.to_json() for c in converted]

    def _pick(self, attempts: list[Attempt], question: str, seconds) -> int | None:
        """The answering candidate most candidates agree on (self-consistency: the same grounded
        program counts once for each sample or demonstration that gave it, and the nearest
        answering demonstration's program half once more: retrieval's vote); ties go to
        inverse consistency (the LM scores only the programs tied for the most votes)."""
        good = [i for i, a in enumerate(attempts) if a.answer]
        if not good:
            return None
        text = {i: attempts[i].grounded or attempts[i].program for i in good}
        votes = Counter(text.values())
        nearest = next((i for i in good if attempts[i].source == "adapted"), None)
        if nearest is not None:
            votes[text[nearest]] += 0.5
        most = max(votes[text[i]] for i in good)
        tied = [i for i in good if votes[text[i]] == most]
        if len({text[i] for i in tied}) == 1:
            return tied[0]
        clock = time.perf_counter()
        for i in tied:
            attempts[i].score = inverse_consistency(self.lm, text[i], question)
        seconds["rerank"] = time.perf_counter() - clock
        return max(tied, key=lambda i: attempts[i].score)


def adapted(linked, demos) -> list[str]:
    """Each one-entity demonstration's program pointed at the question's one entity, nearest
    demonstration first: candidates beside the samples when the greedy program answers nothing
    (the model may have seen the right program and still not written it)."""
    if len(linked.entities) != 1:
        return []
    return [d.adapted(linked.entities[0]) for d in reversed(demos) if len(d.entities) == 1]


def hints(linked, demos) -> list[str]:
    """Likely programs for speculative decoding: each demonstration's program pointed at the
    question's entity, nearest demonstration first (they only speed the model up)."""
    return [text + STOP[-1] for text in adapted(linked, demos)]
