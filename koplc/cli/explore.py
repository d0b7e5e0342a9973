"""`koplc explore`: sample a pool of grounded programs with answers and questions from a KB."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from koplc import api
from koplc.cli.common import KB_HELP, add_encoding, add_schema


def add_explore(commands) -> None:
    sub = commands.add_parser(
        "explore", help="sample typed programs over a KB, run them and verbalise them into a pool",
        description="Sample random typed programs grounded in the KB (1-4 steps from an entity, "
                    "concept or value), keep those with an informative answer, at most "
                    "--per-pattern a pattern, give each a canonical question, and write the "
                    "pool as JSONL (atomically) into the user cache, or to --out.")
    sub.add_argument("kb", metavar="KB", help=KB_HELP + "; or the http(s) URL of a SPARQL "
                     "endpoint, explored on a fragment around sampled entities")
    add_encoding(sub)
    add_schema(sub)
    sub.add_argument("--programs", type=int, help="programs to keep (default 1000; on an "
                     "endpoint 300, the pool its front ends use)")
    sub.add_argument("--out", metavar="POOL", help="pool file (default: in the user cache)")
    sub.add_argument("--seed", type=int, default=0)
    sub.add_argument("--max-steps", type=int, default=4, choices=range(1, 9), metavar="N",
                     help="most steps from the start before the question (default 4)")
    sub.add_argument("--per-pattern", type=int, default=5,
                     help="most programs of one anonymised pattern (default 5; 1 keeps one)")
    extensions = sub.add_mutually_exclusive_group()
    extensions.add_argument("--extension-ops", dest="extension_ops", action="store_true",
                            default=None, help="also ArgMax, ArgMin, TimeConstraint, Exists")
    extensions.add_argument("--no-extension-ops", dest="extension_ops", action="store_false",
                            help="KoPL ops only")
    sub.add_argument("--l2m", type=int, default=0, metavar="N",
                     help="also write least-to-most questions with the LM for N of the programs "
                          "(spread over the pool), kept when inverse consistency picks the "
                          "program out (default 0)")
    sub.add_argument("--lm", default="embedded", help="the LM for --l2m (default: embedded)")
    sub.add_argument("--quiet", action="store_true", help="no progress bar")
    sub.set_defaults(run=explore)


def explore(args) -> int:
    from koplc.endpoint_mode import POOL_PROGRAMS, is_endpoint
    from koplc.kopl.exploration import ExploreOptions, explore_to_file, pool_path
    from koplc.kopl.kb.cache import kb_format

    if args.programs is None:
        args.programs = POOL_PROGRAMS if is_endpoint(args.kb) else 1000
    if args.programs < 1 or args.per_pattern < 1:
        print("koplc explore: --programs and --per-pattern must be at least 1", file=sys.stderr)
        return 2
    if is_endpoint(args.kb):
        return _explore_endpoint(args)
    kb = api.load_kb(args.kb, schema=args.schema)
    extension_ops = args.extension_ops
    if extension_ops is None:  # S-expression KBs come as RDF; KoPL's own have no ArgMax
        extension_ops = kb_format(args.kb) in ("ntriples", "turtle")
    options = ExploreOptions(programs=args.programs, seed=args.seed, max_steps=args.max_steps,
                             per_pattern=args.per_pattern, extension_ops=extension_ops)
    out = Path(args.out) if args.out else pool_path(args.kb)
    with _progress_bar(args.programs, args.quiet) as bar:
        report = explore_to_file(kb, out, options, kb_path=args.kb,
                                 progress=lambda kept: bar.update(1))
    summary = {"pool": str(out), **report.summary()}
    if args.l2m > 0:
        summary["l2m"] = _l2m(out, kb, args.l2m, args.lm, args.quiet)
    print(json.dumps(summary, ensure_ascii=False))
    return 0


def _explore_endpoint(args) -> int:
    """The pool of the KB an endpoint serves, in the endpoint's cache folder (copied to --out)."""
    import shutil

    from koplc.kopl.exploration import read_pool

    pool = api.explore_endpoint(args.kb, args.encoding, programs=args.programs,
                                progress=not args.quiet)
    if args.out:
        shutil.copyfile(pool, args.out)
        pool = Path(args.out)
    print(json.dumps({"pool": str(pool), "programs": len(read_pool(pool))}))
    return 0


def _l2m(pool: Path, kb, n: int, lm_name: str, quiet: bool) -> dict:
    """Add L2M questions to `n` entries spread over the pool; rewrite it atomically."""
    import time

    from koplc.kopl.exploration import read_pool, write_pool
    from koplc.llm.byokg.l2m import with_l2m_questions
    from koplc.llm.lm.defaults import open_lm

    entries = read_pool(pool)
    picked = set(range(0, len(entries), max(1, len(entries) // n))[:n])
    lm = open_lm(lm_name, "off")
    clock, kept, done = time.perf_counter(), 0, {}
    with _progress_bar(len(picked), quiet, "l2m") as bar:
        chosen = [entries[i] for i in sorted(picked)]
        for entry, made in with_l2m_questions(chosen, lm, kb, lm.name):
            done[entry.id], kept = entry, kept + made.kept
            bar.update(1)
    seconds = time.perf_counter() - clock
    write_pool(pool, [done.get(e.id, e) for e in entries])
    return {"programs": len(picked), "kept": kept, "seconds": round(seconds, 2),
            "questions_per_second": round(len(picked) / seconds, 3)}


def _progress_bar(total: int, quiet: bool, desc: str = "explore"):
    """tqdm's bar on stderr (off when quiet or not a terminal); a silent one without tqdm."""
    try:
        from tqdm import tqdm
    except ImportError:
        return _Silent()
    return tqdm(total=total, desc=desc, unit="program", disable=quiet or None,
                file=sys.stderr, mininterval=0.5)


class _Silent:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n: int) -> None:
        pass
