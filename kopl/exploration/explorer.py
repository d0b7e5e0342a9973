"""Exploring a KB: draw programs, run them, keep the informative ones, verbalise, write a pool.

`explore(kb, options)` yields pool entries: first the simplest question of each relation and
attribute key (`Sampler.basis`), then random draws. Each program (`sampler.Sampler`) runs on the
native executor and is kept only when its answer says something (`why_dropped`), when it is
not a repeat, and while its anonymised pattern has fewer than `per_pattern` programs (BYOKG
keeps up to 5 a pattern). The picks of later draws lean towards the ops, relations, keys and
concepts the kept programs use least. `explore_to_file` streams the entries into a pool file
that appears, complete, only when exploration ends.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from koplc.kopl import ir
from koplc.kopl.answer import Answer
from koplc.kopl.errors import KoplcError
from koplc.kopl.execution.judge import only_own
from koplc.kopl.exploration.patterns import pattern
from koplc.kopl.exploration.pool import (
    CANONICAL,
    EXPLORER,
    FORMAT,
    PoolEntry,
    PoolError,
    Question,
    content_hash,
    write_pool,
)
from koplc.kopl.exploration.readings import canonical_question
from koplc.kopl.exploration.sampler import Drawn, Sampler, Usage
from koplc.kopl.kb.model import KB
from koplc.kopl.registry import ops_of
from koplc.kopl.syntax.steps import print_program
from koplc.kopl.types import Type

# Questions that read the whole asked set: asking them of every entity of a concept is trivia.
_READS_WHOLE_SET = ops_of("name", "count", "attribute", "verify")


@dataclass(frozen=True)
class ExploreOptions:
    """What to explore: how many programs, from which seed, how deep, how many a pattern.

    `max_draws` bounds the work on a KB that has fewer programs to give (default: 20 draws a
    program asked for); exploration also ends once `stall` draws in a row keep fewer than
    `min_yield` of them (a small KB has little new left to give). An answer of more than
    `max_answers` items asks for a list no one reads. `extension_ops` lets programs use ArgMax,
    ArgMin and TimeConstraint (S-expression KBs).
    """

    programs: int = 1000
    seed: int = 0
    max_steps: int = 4
    per_pattern: int = 5
    extension_ops: bool = False
    max_draws: int | None = None
    stall: int = 2000
    min_yield: float = 0.05
    max_answers: int = 100


@dataclass
class ExploreReport:
    """What an exploration did: kept, drawn, why the rest were dropped, and the balance."""

    kept: int = 0
    draws: int = 0
    dropped: Counter = field(default_factory=Counter)
    patterns: int = 0
    seconds: float = 0.0
    usage: Usage = field(default_factory=Usage)
    hops: Counter = field(default_factory=Counter)
    path: Path | None = None

    def summary(self) -> dict:
        """Counts for the CLI and the benchmark."""
        counts = self.usage.counts
        return {"programs": self.kept, "draws": self.draws, "patterns": self.patterns,
                "seconds": round(self.seconds, 2), "dropped": dict(self.dropped.most_common()),
                "hops": dict(sorted(self.hops.items())),
                "ops": dict(counts["op"].most_common()),
                "relations": dict(counts["relation"].most_common()),
                "keys": dict(counts["key"].most_common()),
                "concepts": dict(counts["concept"].most_common())}


def check_explorable(kb: KB) -> None:
    """Raise PoolError when the KB offers nothing to ask about."""
    if len(kb.entity_nodes) == 0:
        raise PoolError(f"{kb.source or 'the KB'}: the KB has no entities; there is nothing "
                        "to explore", code="explore-empty-kb")
    if not kb.relation_names and not kb.attr_index:
        raise PoolError(f"{kb.source or 'the KB'}: the KB has {len(kb.entity_nodes)} entities "
                        "but no relations or attributes; no program over it can ask anything",
                        code="explore-no-facts")


def explore(kb: KB, options: ExploreOptions = ExploreOptions(), *, kb_name: str = "",
            kb_hash: str = "", report: ExploreReport | None = None) -> Iterator[PoolEntry]:
    """Pool entries explored from `kb`, at most `options.programs` of them."""
    check_explorable(kb)
    report = report if report is not None else ExploreReport()
    rng = random.Random(options.seed)
    sampler = Sampler(kb, rng, report.usage, options.extension_ops, options.max_answers)
    judge = _Judge(kb, options.max_answers)
    seen: set[str] = set()
    per_pattern: Counter = Counter()
    basis = sampler.basis()
    max_draws = options.max_draws or 20 * options.programs + 2000
    window_kept, started = 0, time.perf_counter()
    while report.kept < options.programs and report.draws < max_draws:
        if report.draws % options.stall == 0 and report.draws:
            if window_kept < options.min_yield * options.stall:
                break
            window_kept = 0
        report.draws += 1
        drawn = next(basis, None) or sampler.draw(rng.randint(1, options.max_steps))
        if drawn is None:
            report.dropped["no grounded program"] += 1
            continue
        text = drawn.program.model_dump_json()
        key = "" if text in seen else pattern(drawn.program)
        reason = ("repeat" if not key else
                  "pattern full" if per_pattern[key] >= options.per_pattern else None)
        answer = None
        if reason is None:
            try:
                answer = sampler.run(drawn.program)
            except KoplcError:
                reason = "execution error"
        if answer is not None:
            reason = judge.why_dropped(drawn, answer)
        if reason or answer is None:
            report.dropped[reason] += 1
            continue
        seen.add(text)
        per_pattern[key] += 1
        report.usage.add(drawn.program)
        entry = _entry(drawn, answer, key, report.kept, options.seed, report.draws, kb_name,
                       kb_hash)
        report.kept += 1
        report.hops[entry.hops] += 1
        report.patterns = len(per_pattern)
        report.seconds = time.perf_counter() - started
        window_kept += 1
        yield entry
    report.seconds = time.perf_counter() - started


def explore_to_file(kb: KB, out: str | Path, options: ExploreOptions = ExploreOptions(), *,
                    kb_path: str | Path | None = None,
                    progress: Callable[[int], None] | None = None) -> ExploreReport:
    """Explore and write the pool to `out` atomically; PoolError when nothing was kept (no file
    is written then). `progress(kept)` is called after each kept program."""
    report = ExploreReport(path=Path(out))
    check_explorable(kb)
    name = Path(kb_path).name if kb_path else Path(kb.source).name
    digest = content_hash(kb_path) if kb_path else ""

    def entries() -> Iterator[PoolEntry]:
        for entry in explore(kb, options, kb_name=name, kb_hash=digest, report=report):
            yield entry
            if progress is not None:
                progress(report.kept)
        if report.kept == 0:
            raise PoolError(f"{name or 'the KB'}: none of {report.draws} drawn programs had "
                            "an answer worth asking (every answer was empty, the topic itself "
                            "or a whole concept); no pool written", code="explore-nothing")
    write_pool(out, entries())
    return report


class _Judge:
    """Decides whether an answer says something (not empty, not the topic, not a concept)."""

    def __init__(self, kb: KB, max_answers: int):
        self.kb, self.max_answers = kb, max_answers
        self._entity_members: dict[int, frozenset[int]] = {}

    def members(self, concept: int) -> frozenset[int]:
        found = self._entity_members.get(concept)
        if found is None:
            first = self.kb.n_concepts
            found = self._entity_members[concept] = frozenset(
                n for n in self.kb.concept_members.get(concept, ()) if n >= first)
        return found

    def whole_concept(self, ids: set[int]) -> bool:
        """Whether the set is every entity, or every entity of a concept of its members."""
        entities = {n for n in ids if n >= self.kb.n_concepts}
        if len(entities) >= len(self.kb.entity_nodes):
            return True
        some = next(iter(entities), None)
        return some is not None and any(
            len(self.members(c)) == len(entities) and self.members(c) == entities
            for c in self.kb.ancestors(some))

    def why_dropped(self, drawn: Drawn, answer: Answer) -> str | None:
        root, items = drawn.program, answer.items()
        if not items or (answer.type is Type.COUNT and answer.value == "0"):
            return "empty answer"
        if answer.type is Type.BOOLEAN and answer.value not in ("yes", "no"):
            return "not sure"
        if len(set(items)) > self.max_answers:
            return "too many answers"
        asked, topic = set(drawn.asked.ids), drawn.asked.topic
        if isinstance(root, (ir.QueryName, ir.Count)) and only_own(root, asked, topic):
            return "only the topic"
        if isinstance(root, _READS_WHOLE_SET) and asked != topic \
                and self.whole_concept(asked):
            return "a whole concept"
        return None


def _answers(answer: Answer) -> list[str]:
    if answer.type is Type.NAMES and isinstance(answer.value, list):
        return list(dict.fromkeys(answer.value))
    return answer.items()


def _entry(drawn: Drawn, answer: Answer, key: str, number: int, seed: int, draw: int,
           kb_name: str, kb_hash: str) -> PoolEntry:
    program = drawn.program
    ops = list(dict.fromkeys(type(n).__name__ for _, n in program.walk()))
    return PoolEntry(
        id=f"x{number:05d}", program_data=program.model_dump(mode="json"),
        steps=print_program(program), answer_type=str(answer.type), answers=_answers(answer),
        pattern=key, hops=sum(isinstance(n, ir.Relate) for _, n in program.walk()), ops=ops,
        questions=(Question(canonical_question(program), CANONICAL),),
        provenance={"format": FORMAT, "explorer": EXPLORER, "kb": kb_name, "kb_hash": kb_hash,
                    "seed": seed, "draw": draw, "start": drawn.asked.start})
