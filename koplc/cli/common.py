"""What every command shares: exit statuses, reading FILE or standard input, JSONL batches,
execution options from flags, the --schema flag of the commands that read a KB."""

from __future__ import annotations

import json

from koplc import api

EXIT_USER_ERROR = 1
EXIT_INTERNAL = 70

KB_HELP = "KB file: .json (KoPL KB), .txt (subject|relation|object triples), .nt, .ttl"


def add_schema(sub) -> None:
    """--schema NAME|FILE: what the triples of a .txt KB are (koplc.kopl.kb.triple_schema)."""
    from koplc.kopl.kb.triple_schema import dataset_schemas

    sub.add_argument("--schema", metavar="NAME|FILE",
                     help="the schema of a .txt triples KB: a dataset's "
                     f"({', '.join(dataset_schemas())}) or a JSON file {{\"subject_concept\", "
                     "\"object_concepts\", \"attributes\"}} (default: read from the file: "
                     "one concept 'entity', relations whose objects are all years, dates or "
                     "numbers as attributes; the shipped MetaQA KB: metaqa)")


def add_encoding(sub) -> None:
    """--encoding NAME: the RDF encoding of the KB an endpoint URL serves."""
    from koplc.sparql_backend.encodings import ENCODINGS

    sub.add_argument("--encoding", choices=sorted(ENCODINGS),
                     help="with the http(s) URL of a SPARQL endpoint as the KB: the RDF "
                     "encoding it holds (default: wikidata)")


def emit_batch(args, job) -> int:
    failed = False
    for record in api.batch(api.read_text(args.file).splitlines(), job):
        failed |= not record.get("ok", False)
        print(json.dumps(record, ensure_ascii=False))
    return EXIT_USER_ERROR if failed else 0


def exec_options(args):
    """The executor's options from the flags a command has (run has them all, lower all but
    --unit-conversion)."""
    from koplc.kopl.execution.executor import ExecOptions

    return ExecOptions(unit_conversion=getattr(args, "unit_conversion", False),
                       findall_concepts=not args.no_findall_concepts,
                       inclusive_comparators=args.inclusive_comparators, today=args.today)
