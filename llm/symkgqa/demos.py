"""Demonstrations for few-shot prompts: a pool of MetaQA dev questions with gold programs built
from their question types (one per template, covering every function and type the dataset
uses), the n nearest to a question by MiniLM similarity with entities masked, or a fixed set."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from koplc.kopl.datasets.metaqa import FIXED_DEMOS, gold_program, read_questions
from koplc.kopl.grounding.mentions import plain
from koplc.kopl.registry import info_of, lookup
from koplc.kopl.syntax import steps as steps_syntax
from koplc.llm.lm.model_cache import cache_root


@dataclass(frozen=True)
class Demo:
    """One demonstration: question, its entities, its program in steps, and its template;
    `explored` when the question was made for an explored program (not written by a person)."""

    question: str
    entities: tuple[str, ...]
    program: str
    template: str = ""
    explored: bool = False

    def text(self) -> str:
        """The demonstration as the prompt shows it: the program one call a line, without the
        "Step N:" labels and the "Done" line (a third fewer tokens to read and to write)."""
        return (f"Question: {self.question}\nEntities: {', '.join(self.entities)}\n"
                f"{calls_of(self.program)}")

    def adapted(self, entity: str) -> str:
        """The program, one call a line, with its Find pointed at `entity` instead."""
        from koplc.kopl.transform import rebuild

        def visit(node, expected):
            if node.op == "Find" and node.name in self.entities:
                return node.model_copy(update={"name": entity}), []
            return node, []

        node, _ = rebuild(steps_syntax.parse(self.program).program, visit)
        return calls_of(steps_syntax.print_program(node))


_LABEL = re.compile(r"^\s*Step\s+\d+\s*:\s*", re.IGNORECASE)


def calls_of(steps: str) -> str:
    """A kopl-steps program as the prompt writes it, one call a line.

    >>> calls_of("Step 1: Find(Typee)\\nStep 2: Relate(written_by, forward)\\nDone")
    'Find(Typee)\\nRelate(written_by, forward)'
    """
    lines = [_LABEL.sub("", line).strip() for line in steps.splitlines()]
    return "\n".join(line for line in lines if line and line.rstrip(".").lower() != "done")


def steps_of(calls: str) -> str:
    """A generated program (one call a line, labelled or not) as kopl-steps text.

    >>> print(steps_of("Find(Heat)\\nQueryName()"))
    Step 1: Find(Heat)
    Step 2: QueryName()
    Done
    """
    lines = calls_of(calls).splitlines()
    return "\n".join([f"Step {i}: {line}" for i, line in enumerate(lines, 1)] + ["Done"])


# Ops that give a subset of their input by a test of each member: applying one twice in a row
# changes nothing.
_IDEMPOTENT = frozenset({"concept", "filter", "qfilter"})
_OP_NAME = re.compile(r"^\s*(\w+)\s*\(")


def _idempotent(line: str) -> bool:
    found = _OP_NAME.match(line)
    info = lookup(found.group(1)) if found else None
    return info is not None and info.family in _IDEMPOTENT


def without_repeats(calls: str) -> str:
    """A generated program's calls, with every immediate repeat of a run of filter lines left
    out (a small model loops on what it just wrote, and a filter applied twice is the filter
    once) and lines that are no call left out (an "Entities:" line copied from the prompt).

    >>> print(without_repeats("FindAll()\\nFilterConcept(a)\\nFilterNum(h, 2, >)\\n"
    ...                       "FilterConcept(a)\\nFilterNum(h, 2, >)\\nQueryName()"))
    FindAll()
    FilterConcept(a)
    FilterNum(h, 2, >)
    QueryName()
    """
    lines = [line for line in calls_of(calls).splitlines() if _OP_NAME.match(line)]
    i = 0
    while i < len(lines):
        for size in range(1, (len(lines) - i) // 2 + 1):
            block = lines[i:i + size]
            if block == lines[i + size:i + 2 * size] and all(map(_idempotent, block)):
                del lines[i + size:i + 2 * size]
                break
        else:
            i += 1
    return "\n".join(lines)


def template_key(masked: str) -> str:
    """A masked question as a lookup key: lower case, single spaces, no end punctuation."""
    return " ".join(masked.lower().split()).rstrip(" ?.!")


def template_of(question: str) -> str:
    """A MetaQA question with its [topic] replaced by ENT: questions that differ only in the
    topic share a template."""
    return re.sub(r"\[[^\]]+\]", "ENT", question).strip()


def metaqa_pool(folder: str | Path, hops=(1, 2, 3), per_function: int = 1000,
                pattern: str = "qa_{hop}hop_*.tsv") -> list[Demo]:
    """One demonstration per template of the dev questions in `folder` (dev_all tsvs),
    at most `per_function` per (op, qtype) pair so no function dominates the pool."""
    pool, seen, per_key = [], set(), {}
    paths = [p for hop in hops for p in sorted(Path(folder).glob(pattern.format(hop=hop)))]
    for path in dict.fromkeys(paths):
        for q in read_questions(path):
            if q.hops in hops:
                template = template_of(q.text)
                if template in seen:
                    continue
                program = gold_program(q.topic, q.qtype)
                keys = {(info_of(n).name, q.qtype) for _, n in program.walk()}
                if all(per_key.get(k, 0) >= per_function for k in keys):
                    continue
                seen.add(template)
                for k in keys:
                    per_key[k] = per_key.get(k, 0) + 1
                pool.append(Demo(plain(q.text), (q.topic,), steps_syntax.print_program(program),
                                 template))
    return pool


NEAR_TWIN = 0.7
"""The word similarity a near twin's one swapped word needs. On MetaQA dev (leave-template-out,
300 a hop) every swap at or above it kept the program (screenwriter/writer 0.74,
author/writer 0.70); the closest swap that changed it was director/screenwriter, 0.66."""


def one_word_swap(a: list[str], b: list[str]) -> tuple[str, str] | None:
    """The two words where `a` and `b` differ, when they differ in exactly one position.

    >>> one_word_swap("who wrote ENT books".split(), "who wrote ENT novels".split())
    ('books', 'novels')
    >>> one_word_swap("who wrote ENT".split(), "who illustrated ENT books".split()) is None
    True
    """
    if len(a) != len(b):
        return None
    diff = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    return diff[0] if len(diff) == 1 and "ent" not in diff[0] else None


class DemoSelector:
    """The n pool demonstrations nearest to a masked question (MiniLM cosine similarity)."""

    def __init__(self, pool: list[Demo], embedder=None):
        from koplc.kopl.grounding.index.embedder import DEFAULT_EMBEDDER

        self.pool = pool
        self.embedder = embedder or DEFAULT_EMBEDDER
        self.vectors = self._pool_vectors()
        self.by_template = {template_key(d.template): d for d in pool}

    def _pool_vectors(self) -> np.ndarray:
        texts = [d.template for d in self.pool]
        digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
        path = cache_root() / "demos" / f"pool-{digest}.npy"
        if path.exists():
            return np.load(path)
        unique = list(dict.fromkeys(texts))  # an explored pool repeats templates
        row = {text: i for i, text in enumerate(unique)}
        vectors = np.asarray(self.embedder.encode(unique), dtype=np.float32)[
            [row[t] for t in texts]]
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npy")
        np.save(tmp, vectors)
        tmp.replace(path)
        return vectors

    def same_template(self, masked_question: str,
                      exclude_template: str | None = None) -> Demo | None:
        """The demonstration whose template is the question's, entities masked (None when the
        pool has none, or it is the excluded one)."""
        demo = self.by_template.get(template_key(masked_question))
        if demo is None or demo.template == exclude_template:
            return None
        return demo

    def near_twin(self, masked_question: str, exclude_template: str | None = None,
                  min_similarity: float = NEAR_TWIN) -> Demo | None:
        """The nearest demonstration when its question is the masked question with one word
        swapped for a near synonym ("novels" for "books", "writer" for "screenwriter": MiniLM
        cosine of the two words at least `min_similarity`); else None. Words that change the
        meaning ("directed" for "written", cosine 0.45) fall below the bar."""
        nearest = self.nearest(masked_question, 1, exclude_template)
        if not nearest:
            return None
        swapped = one_word_swap(template_key(masked_question).split(),
                                template_key(nearest[0].template).split())
        if swapped is None or self._word_similarity(*swapped) < min_similarity:
            return None
        return nearest[0]

    def _word_similarity(self, a: str, b: str) -> float:
        va, vb = np.asarray(self.embedder.encode([a, b]), dtype=np.float32)
        return float(va @ vb / (np.linalg.norm(va) * np.linalg.norm(vb) or 1.0))

    def nearest(self, masked_question: str, n: int = 8,
                exclude_template: str | None = None) -> list[Demo]:
        """The n nearest demonstrations, nearest last (closest to the question in the prompt);
        `exclude_template` leaves out every demonstration of that template."""
        query = np.asarray(self.embedder.encode([masked_question]), dtype=np.float32)[0]
        order = [i for i in nearest_first(self.vectors @ query)
                 if exclude_template is None or self.pool[i].template != exclude_template]
        return [self.pool[i] for i in order[:n]][::-1]


def nearest_first(similarities: np.ndarray) -> list[int]:
    """Indices by similarity, highest first; similarities equal to 5 decimals keep pool order
    (the one tie rule of every demonstration retrieval)."""
    sims = np.round(np.asarray(similarities, dtype=np.float64), 5)
    return [int(i) for i in np.lexsort((np.arange(len(sims)), -sims))]


FIXED = [Demo(question, entities, program) for question, entities, program in FIXED_DEMOS]
"""A manual fixed set of demonstrations: MetaQA's (`koplc.kopl.datasets.metaqa.FIXED_DEMOS`)."""
