"""Bring your own KB: explore a KB into a pool of programs with answers and questions.

`explore` / `explore_to_file` make a pool (`koplc explore`), `read_pool(path)` and
`pool_for(kb_path)` read one back as `PoolEntry` objects (`.program`, `.question`,
`.questions`, `.answers`, `.pattern`), `canonical_question(program)` is the registry-driven
verbaliser and `pattern(program)` the anonymised pattern. The file format is described in
`koplc.kopl.exploration.pool`.
"""

from koplc.kopl.exploration.explorer import (
    ExploreOptions,
    ExploreReport,
    check_explorable,
    explore,
    explore_to_file,
)
from koplc.kopl.exploration.patterns import anonymise, pattern
from koplc.kopl.exploration.pool import (
    CANONICAL,
    FORMAT,
    PoolEntry,
    PoolError,
    Question,
    iter_pool,
    pool_for,
    pool_path,
    read_pool,
    write_pool,
)
from koplc.kopl.exploration.readings import READINGS, canonical_question

__all__ = [
    "CANONICAL", "FORMAT", "READINGS", "ExploreOptions", "ExploreReport", "PoolEntry",
    "PoolError", "Question", "anonymise", "canonical_question", "check_explorable", "explore",
    "explore_to_file", "iter_pool", "pattern", "pool_for", "pool_path", "read_pool",
    "write_pool",
]
