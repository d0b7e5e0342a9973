"""The thin command line over koplc.api: parse, check, fmt, run, kb stats, kb convert."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from pathlib import Path

from koplc import __version__, api
from koplc.kopl.diagnostics import render_all
from koplc.kopl.errors import KoplcError

EXIT_USER_ERROR = 1
EXIT_INTERNAL = 70


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status (1 user error, 2 usage error)."""
    args = _parser().parse_args(argv)
    try:
        return args.run(args)
    except KoplcError as err:
        print(err.render(), file=sys.stderr)
        return EXIT_USER_ERROR
    except OSError as err:
        print(f"koplc: {err.filename or ''}: {err.strerror or err}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        return 130
    except Exception as err:  # noqa: BLE001 - the last line of defence against tracebacks
        print(f"koplc: internal error: {type(err).__name__}: {err}", file=sys.stderr)
        return EXIT_INTERNAL


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="koplc", description=__doc__)
    parser.add_argument("--version", action="version", version=f"koplc {__version__}")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    syntaxes = [*api.SYNTAXES]

    def command(name: str, run, help_text: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text)
        sub.add_argument("file", metavar="FILE", help="program file, or - for standard input")
        sub.add_argument("--from", dest="source", default="auto", choices=["auto", *syntaxes],
                         help="syntax of the input (default: detect)")
        sub.add_argument("--jsonl", action="store_true",
                         help="FILE holds one program per line (JSON string or {\"program\": ...})")
        sub.set_defaults(run=run)
        return sub

    parse_cmd = command("parse", _parse, "parse a program and print it in another syntax")
    parse_cmd.add_argument("--to", dest="target", default="ir-json", choices=syntaxes)
    check_cmd = command("check", _check, "parse and type-check a program; report every problem")
    check_cmd.add_argument("--kb", help="also warn about names this KB lacks")
    fmt = command("fmt", _fmt, "print a program canonically in its own syntax")
    fmt.add_argument("--in-place", action="store_true", help="rewrite FILE (atomically)")
    _add_run(command("run", _run, "execute a program (or a JSONL batch) on a KB"))
    _add_kb(commands)
    return parser


def _add_run(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--kb", required=True, help="KB file: .json, .txt (MetaQA triples), .nt, .ttl")
    sub.add_argument("--unit-conversion", action="store_true",
                     help="compare quantities across convertible units (sympy)")
    sub.add_argument("--no-findall-concepts", action="store_true",
                     help="FindAll returns entities only (the engine includes concepts)")
    sub.add_argument("--inclusive-comparators", action="store_true", help="allow <= and >=")
    sub.add_argument("--today", type=date.fromisoformat, help="the date NOW means (yyyy-mm-dd)")


def _add_kb(commands) -> None:
    kb = commands.add_parser("kb", help="inspect or convert a KB", description="KB commands")
    kb_commands = kb.add_subparsers(required=True, metavar="KB_COMMAND")
    stats = kb_commands.add_parser("stats", help="count concepts, entities, facts, keys")
    stats.add_argument("kb", metavar="KB")
    stats.set_defaults(run=_kb_stats)
    convert = kb_commands.add_parser("convert", help="write the KB as KoPL KB JSON")
    convert.add_argument("kb", metavar="KB")
    convert.add_argument("--to", default="kopl-json", choices=["kopl-json"])
    convert.add_argument("--out", help="output file, written atomically (default: stdout)")
    convert.set_defaults(run=_kb_convert)


def _run(args) -> int:
    from koplc.kopl.execute import ExecOptions

    kb = api.load_kb(args.kb)
    options = ExecOptions(unit_conversion=args.unit_conversion,
                          findall_concepts=not args.no_findall_concepts,
                          inclusive_comparators=args.inclusive_comparators, today=args.today)
    if args.jsonl:
        return _emit_batch(args, lambda text: {
            "ok": True, **api.run(text, kb, args.source, options).to_json()})
    print(json.dumps(api.run(_read(args.file), kb, args.source, options).to_json(),
                     ensure_ascii=False))
    return 0


def _kb_stats(args) -> int:
    for name, count in api.kb_stats(api.load_kb(args.kb)).items():
        print(f"{name}: {count}")
    return 0


def _kb_convert(args) -> int:
    text = api.kb_convert(api.load_kb(args.kb), args.to, args.out)
    if args.out is None:
        sys.stdout.write(text)
    return 0


def _read(path: str) -> str:
    return sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")


def _emit_batch(args, job) -> int:
    failed = False
    for record in api.batch(_read(args.file).splitlines(), job):
        failed |= not record.get("ok", False)
        print(json.dumps(record, ensure_ascii=False))
    return EXIT_USER_ERROR if failed else 0


def _parse(args) -> int:
    if args.jsonl:
        return _emit_batch(args, lambda text: {
            "ok": True, "program": api.transpile(text, args.source, args.target)})
    print(api.transpile(_read(args.file), args.source, args.target))
    return 0


def _check(args) -> int:
    kb = api.load_kb(args.kb) if args.kb else None
    if args.jsonl:
        def job(text: str) -> dict:
            report = api.check(text, args.source, kb)
            return {"ok": report.ok, "diagnostics": [d.to_json() for d in report.diagnostics]}
        return _emit_batch(args, job)
    text = _read(args.file)
    report = api.check(text, args.source, kb)
    if report.diagnostics:
        print(render_all(report.diagnostics, text), file=sys.stderr)
    if report.ok:
        print("ok")
    return 0 if report.ok else EXIT_USER_ERROR


def _fmt(args) -> int:
    if args.jsonl:
        if args.in_place:
            raise KoplcError("--in-place cannot be combined with --jsonl", code="usage")
        return _emit_batch(args, lambda text: {
            "ok": True, "program": api.format_program(text, args.source)})
    text = _read(args.file)
    formatted = api.format_program(text, args.source) + "\n"
    if args.in_place:
        if args.file == "-":
            raise KoplcError("--in-place needs a file, not standard input", code="usage")
        if formatted != text:
            api.write_atomically(Path(args.file), formatted)
        return 0
    sys.stdout.write(formatted)
    return 0


if __name__ == "__main__":
    sys.exit(main())
