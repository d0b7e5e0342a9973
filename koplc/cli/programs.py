"""Commands on programs and KBs: parse, check, fmt, run (native), kb stats/convert, index,
ground."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from pathlib import Path

from koplc import api
from koplc.cli.common import (
    EXIT_USER_ERROR,
    KB_HELP,
    add_encoding,
    add_schema,
    emit_batch,
    exec_options,
)
from koplc.cli.sparql import add_kb_export, add_kb_generate
from koplc.kopl.diagnostics import render_all
from koplc.kopl.errors import KoplcError


def add_run(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--kb", required=True, help=KB_HELP)
    add_schema(sub)
    sub.add_argument("--unit-conversion", action="store_true",
                     help="compare quantities across convertible units (sympy)")
    sub.add_argument("--no-findall-concepts", action="store_true",
                     help="FindAll returns entities only (the engine includes concepts)")
    sub.add_argument("--inclusive-comparators", action="store_true", help="allow <= and >=")
    sub.add_argument("--today", type=date.fromisoformat, help="the date NOW means (yyyy-mm-dd)")


def add_kb(commands) -> None:
    kb = commands.add_parser("kb", help="inspect or convert a KB", description="KB commands")
    kb_commands = kb.add_subparsers(required=True, metavar="KB_COMMAND")
    stats = kb_commands.add_parser("stats", help="count concepts, entities, facts, keys")
    stats.add_argument("kb", metavar="KB", nargs="?",
                       help="the KB file (default: the MetaQA KB shipped in the package)")
    add_schema(stats)
    stats.set_defaults(run=_kb_stats)
    convert = kb_commands.add_parser("convert", help="write the KB as KoPL KB JSON")
    convert.add_argument("kb", metavar="KB")
    convert.add_argument("--to", default="kopl-json", choices=["kopl-json"])
    convert.add_argument("--out", help="output file, written atomically (default: stdout)")
    add_schema(convert)
    convert.set_defaults(run=_kb_convert)
    add_kb_export(kb_commands)
    add_kb_generate(kb_commands)


def run_program(args) -> int:
    kb = None if args.backend == "endpoint" else api.load_kb(args.kb, schema=args.schema)
    store = None if args.backend == "native" else api.sparql_target(
        args.backend, kb=kb, kb_path=args.kb, encoding=args.encoding, store_dir=args.store,
        endpoint=args.endpoint, timeout=args.timeout, schema=args.schema)
    options = exec_options(args)

    def job(text: str) -> dict:
        return api.run(text, kb, args.source, options, backend=args.backend, store=store,
                       encoding=args.encoding).to_json()
    if args.jsonl:
        return emit_batch(args, lambda text: {"ok": True, **job(text)})
    print(json.dumps(job(api.read_text(args.file)), ensure_ascii=False))
    return 0


def _kb_stats(args) -> int:
    for name, count in api.kb_stats(api.load_kb(args.kb, schema=args.schema)).items():
        print(f"{name}: {count}")
    return 0


def _kb_convert(args) -> int:
    text = api.kb_convert(api.load_kb(args.kb, schema=args.schema), args.to, args.out)
    if args.out is None:
        sys.stdout.write(text)
    return 0


def parse(args) -> int:
    if args.jsonl:
        return emit_batch(args, lambda text: {
            "ok": True, "program": api.transpile(text, args.source, args.target)})
    print(api.transpile(api.read_text(args.file), args.source, args.target))
    return 0


def check(args) -> int:
    kb = api.load_kb(args.kb, schema=args.schema) if args.kb else None
    if args.jsonl:
        def job(text: str) -> dict:
            report = api.check(text, args.source, kb)
            return {"ok": report.ok, "diagnostics": [d.to_json() for d in report.diagnostics]}
        return emit_batch(args, job)
    text = api.read_text(args.file)
    report = api.check(text, args.source, kb)
    if report.diagnostics:
        print(render_all(report.diagnostics, text), file=sys.stderr)
    if report.ok:
        print("ok")
    return 0 if report.ok else EXIT_USER_ERROR


def fmt(args) -> int:
    if args.jsonl:
        if args.in_place:
            raise KoplcError("--in-place cannot be combined with --jsonl", code="usage")
        return emit_batch(args, lambda text: {
            "ok": True, "program": api.format_program(text, args.source)})
    text = api.read_text(args.file)
    formatted = api.format_program(text, args.source) + "\n"
    if args.in_place:
        if args.file == "-":
            raise KoplcError("--in-place needs a file, not standard input", code="usage")
        if formatted != text:
            api.write_atomically(Path(args.file), formatted)
        return 0
    sys.stdout.write(formatted)
    return 0


def add_grounding(commands, syntaxes: list[str]) -> None:
    index = commands.add_parser("index", help="build the grounding indexes of a KB",
                                description="embed the KB's names and save the indexes")
    index.add_argument("kb", metavar="KB", help="KB file, or the http(s) URL of a SPARQL "
                       "endpoint (its entity names are streamed into an on-disk name table)")
    add_encoding(index)
    index.add_argument("--folder", help="where to keep the indexes (default: beside the KB, "
                       "else $KOPLC_CACHE_DIR)")
    index.add_argument("--force", action="store_true", help="rebuild even when current")
    index.add_argument("--page", type=int, default=5000, metavar="N",
                       help="an endpoint's names asked N a query (default 5000; Virtuoso's "
                       "default settings sort at most 10000 rows a query)")
    index.add_argument("--timeout", type=float, default=300.0, metavar="S",
                       help="seconds an endpoint may take over one page of names (default "
                       "300: each page sorts the names not yet read)")
    add_schema(index)
    index.set_defaults(run=_index)
    ground = commands.add_parser("ground", help="ground a program's names against a KB",
                                 description="ground a program against a KB")
    ground.add_argument("file", metavar="FILE", help="program file, or - for standard input")
    ground.add_argument("--kb", required=True, help=KB_HELP)
    add_schema(ground)
    ground.add_argument("--question", help="the question the program answers (context)")
    ground.add_argument("--from", dest="source", default="auto", choices=["auto", *syntaxes])
    ground.add_argument("--to", dest="target", default="ir-json", choices=syntaxes)
    ground.add_argument("--explain", action="store_true",
                        help="also print every change as a table (on standard error)")
    ground.add_argument("--no-execution-guidance", action="store_true",
                        help="rank candidates by names and schema only (no partial runs)")
    ground.add_argument("--index-folder", help="where the indexes are kept")
    ground.set_defaults(run=_ground)


def _index(args) -> int:
    from koplc.endpoint_mode import is_endpoint

    if is_endpoint(args.kb):
        built = api.index_endpoint(args.kb, args.encoding, page=args.page,
                                       timeout=args.timeout, progress=True)
        print(f"names: {built['names']}\ntable: {built['table']}\ntime: {built['seconds']:.1f} s")
        return 0
    report = api.build_index(args.kb, folder=args.folder, force=args.force, progress=True,
                             schema=args.schema)
    for kind, count in report.counts.items():
        state = "built" if kind in report.rebuilt else "current"
        print(f"{kind}: {count} names ({state})")
    print(f"folder: {report.folder or '(not saved: no writable folder)'}")
    print(f"size: {report.bytes / 1e6:.1f} MB; time: {report.seconds:.1f} s")
    return 0


def _ground(args) -> int:
    from koplc.kopl.grounding.context import GroundingOptions

    options = GroundingOptions(execution_guidance=not args.no_execution_guidance)
    text, kb = api.read_text(args.file), api.load_kb(args.kb, schema=args.schema)
    indexes = api.grounding_indexes(kb, args.kb, folder=args.index_folder, progress=True)
    grounded = api.ground(text, kb, args.question, args.source, indexes=indexes,
                          options=options)
    print(api.print_program(grounded.program, args.target))
    if args.explain:
        print(api.explain_grounding(grounded), file=sys.stderr)
    if grounded.remaining:
        print(render_all(grounded.remaining), file=sys.stderr)
        return EXIT_USER_ERROR
    return 0
