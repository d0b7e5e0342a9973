"""The thin command line over koplc.api: parse, check, fmt, run, lower, kb stats, kb convert,
kb export, index, ground, compile, eval, gnn."""

from __future__ import annotations

import argparse
import sys

from koplc import __version__, api
from koplc.cli.common import EXIT_INTERNAL, EXIT_USER_ERROR, add_schema
from koplc.cli.doctor import add_doctor
from koplc.cli.explore import add_explore
from koplc.cli.frontends import add_compile, add_gnn
from koplc.cli.lift import add_lift
from koplc.cli.programs import add_grounding, add_kb, add_run, check, fmt, parse, run_program
from koplc.cli.serve import add_serve
from koplc.cli.sparql import add_backend, add_lower, lower
from koplc.kopl.errors import KoplcError


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

    parse_cmd = command("parse", parse, "parse a program and print it in another syntax")
    parse_cmd.add_argument("--to", dest="target", default="ir-json", choices=syntaxes)
    check_cmd = command("check", check, "parse and type-check a program; report every problem")
    check_cmd.add_argument("--kb", help="also warn about names this KB lacks")
    add_schema(check_cmd)
    fmt_cmd = command("fmt", fmt, "print a program canonically in its own syntax")
    fmt_cmd.add_argument("--in-place", action="store_true", help="rewrite FILE (atomically)")
    run_cmd = command("run", run_program, "execute a program (or a JSONL batch) on a KB")
    add_run(run_cmd)
    add_backend(run_cmd)
    add_lower(command("lower", lower, "lower a program to SPARQL 1.1"))
    add_kb(commands)
    add_compile(commands)
    add_gnn(commands)
    add_grounding(commands, syntaxes)
    add_doctor(commands)
    add_explore(commands)
    add_lift(commands)
    add_serve(commands)
    return parser
