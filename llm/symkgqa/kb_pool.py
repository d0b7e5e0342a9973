"""The demonstration pool of a KB: a pool file asked for, else the KB's explored pool (explored
on first use and cached), joined on the shipped MetaQA KB by its curated pool."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from koplc.kopl.execution.judge import find_names
from koplc.kopl.exploration import PoolEntry, explore_to_file, pool_for, pool_path, read_pool
from koplc.llm.symkgqa.demos import Demo, steps_of


def entry_demos(entries: list[PoolEntry]) -> list[Demo]:
    """One demonstration per question of each explored program; its template is the question
    with the program's Find names masked (what case reuse matches a linked question against)."""
    demos = []
    for entry in entries:
        names = find_names(entry.program)
        for question in entry.questions:
            demos.append(Demo(question.text, names, entry.steps,
                              masked_template(question.text, names), explored=True))
    return demos


def masked_template(question: str, names: tuple[str, ...]) -> str:
    """`question` with each of `names` (longest first, whole words) replaced by ENT.

    >>> masked_template("Who directed Heat and Heat 2?", ("Heat", "Heat 2"))
    'Who directed ENT and ENT?'
    """
    for name in sorted(names, key=len, reverse=True):
        question = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", "ENT", question)
    return question


def read_demos(path: str | Path) -> list[Demo]:
    """The demonstrations of a pool file: a pool JSONL (`koplc explore`), a JSONL of
    {"question", "program"} records people wrote (program in kopl-steps or one call a line;
    optional "entities" and "masked"), or a MetaQA-style TSV of questions with their type (the
    curated pool's format)."""
    path = Path(path)
    if path.suffix == ".tsv":
        from koplc.llm.symkgqa.demos import metaqa_pool

        return metaqa_pool(path.parent, pattern=path.name)
    records = _written_records(path)
    if records is not None:
        return [Demo(r["question"], tuple(r.get("entities", ())), steps_of(r["program"]),
                     r.get("masked", r["question"])) for r in records]
    return entry_demos(read_pool(path))


def _written_records(path: Path) -> list[dict] | None:
    """The records of a JSONL file of {"question", "program"} demonstrations, or None when the
    file is a pool of another shape."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    try:
        records = [json.loads(line) for line in lines]
    except json.JSONDecodeError:
        return None
    if records and all(isinstance(r, dict) and {"question", "program"} <= r.keys()
                       and isinstance(r["program"], str) for r in records):
        return records
    return None


def explored_pool(kb, kb_path: str | Path, *, progress: bool = True) -> list[PoolEntry]:
    """The KB file's explored pool from the user cache, exploring it first when there is none
    (or the KB changed); a progress bar on standard error while it explores."""
    cached = pool_for(kb_path)
    if cached is not None:
        return cached
    from koplc.kopl.exploration import ExploreOptions

    options = ExploreOptions()
    bar = _bar(options.programs, progress)
    try:
        explore_to_file(kb, pool_path(kb_path), options, kb_path=kb_path,
                        progress=lambda kept: bar.update(1))
    finally:
        bar.close()
    return pool_for(kb_path) or []


def demos_for_kb(kb, *, pool_file: str | Path | None = None, progress: bool = True) -> list[Demo]:
    """The demonstrations a front end uses on `kb`: those of `pool_file` when given; else the
    KB's explored pool, after the curated MetaQA pool on the shipped MetaQA KB."""
    if pool_file is not None:
        return read_demos(pool_file)
    if not kb.source:
        return []
    demos = entry_demos(explored_pool(kb, kb.source, progress=progress))
    if _is_shipped_metaqa(kb.source):
        from koplc.llm.lm.defaults import default_pool

        demos = default_pool() + demos
    return demos


def _is_shipped_metaqa(source: str) -> bool:
    from koplc.llm.lm.defaults import default_kb_path

    if Path(source).name != "metaqa_kb.txt":  # no need to unpack the shipped KB to know
        return False
    try:
        return Path(source).resolve() == Path(default_kb_path()).resolve()
    except OSError:
        return False


def _bar(total: int, shown: bool):
    from tqdm import tqdm

    return tqdm(total=total, desc="explore", unit="program", file=sys.stderr,
                disable=not shown or None, mininterval=0.5)

