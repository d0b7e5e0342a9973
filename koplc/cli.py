"""The thin command line over koplc.api: parse, check, fmt."""

from __future__ import annotations

import argparse
import json
import sys
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
    command("check", _check, "parse and type-check a program; report every problem")
    fmt = command("fmt", _fmt, "print a program canonically in its own syntax")
    fmt.add_argument("--in-place", action="store_true", help="rewrite FILE (atomically)")
    return parser


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
    if args.jsonl:
        def job(text: str) -> dict:
            report = api.check(text, args.source)
            return {"ok": report.ok, "diagnostics": [d.to_json() for d in report.diagnostics]}
        return _emit_batch(args, job)
    text = _read(args.file)
    report = api.check(text, args.source)
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
