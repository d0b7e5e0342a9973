"""koplc's public API: parse, check, transpile and format programs in any supported syntax.

Every CLI subcommand is a function here; tests call these directly.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import koplc.sexpr as sexpr_syntax
from koplc.kopl import (
    bart_syntax,
    engine_pair,
    ir_json,
    kqapro_json,
    nested_syntax,
    steps_syntax,
)
from koplc.kopl.check import check_parsed
from koplc.kopl.diagnostics import Diagnostic, Span
from koplc.kopl.errors import KoplcError, ParseError
from koplc.kopl.ir import Node
from koplc.kopl.program import Parsed

SYNTAXES: dict[str, ModuleType] = {
    module.NAME: module
    for module in (steps_syntax, nested_syntax, kqapro_json, engine_pair, bart_syntax,
                   sexpr_syntax, ir_json)
}
_DETECTION_ORDER = ("ir-json", "kqapro-json", "kopl-engine", "kopl-steps", "kopl-bart",
                    "sexpr", "kopl-nested")


def detect_syntax(text: str) -> str:
    """The name of the syntax `text` is written in, judged from how it starts.

    >>> detect_syntax("Step 1: FindAll()\\nStep 2: Count()\\nDone")
    'kopl-steps'
    >>> detect_syntax("(COUNT (JOIN r m.01))")
    'sexpr'
    """
    for name in _DETECTION_ORDER:
        if SYNTAXES[name].looks_like(text):
            return name
    raise ParseError("cannot tell which syntax this is; name it with --from "
                     f"({', '.join(SYNTAXES)})", code="unknown-syntax",
                     span=Span.at_offset(text, len(text) - len(text.lstrip())), source=text)


def syntax_module(name: str) -> ModuleType:
    """The module implementing syntax `name`; raises KoplcError for an unknown name."""
    if name not in SYNTAXES:
        raise KoplcError(f"unknown syntax {name!r}; choose one of {', '.join(SYNTAXES)}",
                         code="unknown-syntax")
    return SYNTAXES[name]


def parse(text: str, syntax: str = "auto") -> Parsed:
    """Parse a program written in `syntax` (or detected) into the IR."""
    name = detect_syntax(text) if syntax == "auto" else syntax
    return syntax_module(name).parse(text)


def print_program(program: Node, syntax: str) -> str:
    """The canonical text of a program in `syntax`; UnsupportedConstruct if it cannot say it."""
    return syntax_module(syntax).print_program(program)


@dataclass
class CheckReport:
    """The outcome of checking one program: the parse (if it parsed) and every finding."""

    parsed: Parsed | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    source: str = ""

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)


def check(text: str, syntax: str = "auto", kb=None) -> CheckReport:
    """Parse and type-check; problems come back as diagnostics, not exceptions.

    With a KB, names the KB lacks are reported too (as warnings, with the closest name).
    """
    try:
        parsed = parse(text, syntax)
    except ParseError as err:
        return CheckReport(None, err.diagnostics, text)
    diagnostics = check_parsed(parsed)
    if kb is not None:
        from koplc.kopl.kb_check import check_against_kb

        diagnostics += check_against_kb(parsed.program, kb, parsed.source_map)
    return CheckReport(parsed, diagnostics, text)


def transpile(text: str, source: str = "auto", target: str = "ir-json") -> str:
    """Parse in one syntax and print in another, through the IR."""
    return print_program(parse(text, source).program, target)


def format_program(text: str, syntax: str = "auto") -> str:
    """The canonical text of a program in its own syntax."""
    name = detect_syntax(text) if syntax == "auto" else syntax
    return print_program(parse(text, name).program, name)


def write_atomically(path: Path, text: str) -> None:
    """Replace `path` with `text` so that a crash leaves either the old or the new file."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def batch(lines: Iterable[str], job: Callable[[str], dict]) -> Iterator[dict]:
    """Run `job` on each JSONL record's program; one result record per non-blank line.

    A record is a JSON string (the program text) or an object whose "program" field holds the
    text (or, for IR JSON, the object itself); its other fields, such as "id", are copied over.
    """
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        extra: dict = {}
        try:
            record = json.loads(line)
            if isinstance(record, dict):
                extra = {k: v for k, v in record.items() if k != "program"}
                record = record.get("program")
            if isinstance(record, dict):
                record = json.dumps(record)
            if not isinstance(record, str):
                raise KoplcError(f"line {number}: expected a JSON string or an object with a "
                                 "\"program\" field", code="bad-record")
            yield {**extra, **job(record)}
        except json.JSONDecodeError as err:
            yield {**extra, "ok": False, "diagnostics": [Diagnostic(
                "bad-record", f"line {number}: not JSON: {err.msg}").to_json()]}
        except KoplcError as err:
            yield {**extra, "ok": False, "diagnostics": [d.to_json() for d in err.diagnostics]}


# Knowledge bases and execution. Imported where used: the KB and executor modules (and sympy,
# pyoxigraph behind them) load only for the commands that need them.


def load_kb(path: str | Path, *, cache: bool = True, fmt: str | None = None,
            schema: str | Path | None = None):
    """Load a KB file (.json KoPL KB JSON, .txt MetaQA triples, .nt, .ttl) through its cache.

    `schema` names a JSON TripleSchema file for pipe triples (default: MetaQA's).
    """
    from koplc.kopl.kb_cache import load_kb as load
    from koplc.kopl.kb_triples import METAQA, TripleSchema

    triple_schema = METAQA
    if schema is not None:
        triple_schema = TripleSchema.from_json(Path(schema).read_text(encoding="utf-8"))
    return load(path, cache=cache, fmt=fmt, schema=triple_schema)


def run(text: str, kb, syntax: str = "auto", options=None):
    """Parse a program in any syntax and execute it on `kb`; returns an Answer.

    KQA Pro JSON lists take the fast builder (the full parser still reports malformed ones).
    """
    from koplc.kopl.execute import DEFAULT, execute
    from koplc.kopl.kqapro_fast import program_from_kqapro

    name = detect_syntax(text) if syntax == "auto" else syntax
    program = program_from_kqapro(text) if name == kqapro_json.NAME else parse(text, name).program
    return execute(program, kb, options or DEFAULT)


def kb_stats(kb) -> dict[str, int]:
    """Counts of the KB's concepts, entities, facts, keys and relations."""
    return kb.stats()


def kb_convert(kb, to: str = "kopl-json", out: str | Path | None = None) -> str:
    """The KB written in format `to` (only kopl-json); written atomically to `out` if given."""
    from koplc.kopl.kb_json import kb_to_json

    if to != "kopl-json":
        raise KoplcError(f"cannot convert a KB to {to!r}; the only target is kopl-json",
                         code="kb-format")
    text = kb_to_json(kb) + "\n"
    if out is not None:
        write_atomically(Path(out), text)
    return text


def check_names(text: str, kb, syntax: str = "auto") -> list[Diagnostic]:
    """Warnings for the program's names that `kb` lacks (entity, concept, relation, keys)."""
    from koplc.kopl.kb_check import check_against_kb

    parsed = parse(text, syntax)
    return check_against_kb(parsed.program, kb, parsed.source_map)
