"""SPARQL commands and flags: koplc lower, koplc run's --backend oxigraph|endpoint, koplc kb
export and generate."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date

from koplc import api
from koplc.cli.common import add_schema, emit_batch, exec_options


def _sparql_options(sub: argparse.ArgumentParser) -> None:
    from koplc.sparql_backend.encodings import ENCODINGS

    sub.add_argument("--encoding", default="kqapro", choices=sorted(ENCODINGS),
                     help="the RDF encoding of the KB (default: kqapro)")


def add_backend(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--backend", default="native", choices=api.BACKENDS,
                     help="execute natively (default), on pyoxigraph, or on a SPARQL endpoint")
    sub.add_argument("--endpoint", help="SPARQL endpoint URL (for --backend endpoint)")
    sub.add_argument("--store", help="persistent pyoxigraph folder for the KB (loaded once)")
    sub.add_argument("--timeout", type=float, default=30.0, help="endpoint timeout, seconds")
    _sparql_options(sub)


def add_lower(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--to", dest="target", default="sparql", choices=["sparql"])
    sub.add_argument("--no-findall-concepts", action="store_true",
                     help="FindAll returns entities only (the engine includes concepts)")
    sub.add_argument("--inclusive-comparators", action="store_true", help="allow <= and >=")
    sub.add_argument("--today", type=date.fromisoformat, help="the date NOW means (yyyy-mm-dd)")
    _sparql_options(sub)


def add_kb_export(kb_commands) -> None:
    export = kb_commands.add_parser("export", help="write the KB as N-Triples in an RDF "
                                    "encoding (kqapro, plain, freebase, wikidata)")
    export.add_argument("kb", metavar="KB")
    export.add_argument("--to", dest="out", help="output .nt file, written atomically "
                        "(default: stdout)")
    _sparql_options(export)
    add_schema(export)
    export.set_defaults(run=_kb_export)


def add_kb_generate(kb_commands) -> None:
    from koplc.sparql_backend.kb_profiles import PROFILES

    generate = kb_commands.add_parser(
        "generate", help="write a Wikidata-shaped KB of about N triples (wikidata encoding) "
        "and questions with gold answers beside it (FILE.questions.jsonl)")
    generate.add_argument("--triples", required=True, type=lambda text: int(float(text)),
                          metavar="N", help="about how many triples (1e6 allowed)")
    generate.add_argument("--like", default="metaqa", choices=sorted(PROFILES),
                          help="the real KB whose shape is scaled up (default: metaqa)")
    generate.add_argument("--seed", type=int, default=0, help="the same seed, the same files")
    generate.add_argument("--questions", type=int, default=50, help="how many (default: 50)")
    generate.add_argument("--out", required=True, metavar="FILE.nt[.gz]")
    generate.set_defaults(run=_kb_generate)


def lower(args) -> int:
    if args.jsonl:
        return emit_batch(args, lambda text: {
            "ok": True, "sparql": api.lower(text, args.encoding, args.source, exec_options(args))})
    print(api.lower(api.read_text(args.file), args.encoding, args.source, exec_options(args)))
    return 0


def _kb_export(args) -> int:
    text = api.kb_export(api.load_kb(args.kb, schema=args.schema), args.encoding, args.out)
    if args.out is None:
        sys.stdout.write(text)
    return 0


def _kb_generate(args) -> int:
    from koplc.sparql_backend.generated_kb import generate_kb

    summary = generate_kb(args.like, args.triples, args.seed, args.out, args.questions)
    print(json.dumps(summary, ensure_ascii=False))
    return 0
