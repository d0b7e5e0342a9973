"""What every command shares: exit statuses, reading FILE or standard input, JSONL batches,
execution options from flags."""

from __future__ import annotations

import json

from koplc import api

EXIT_USER_ERROR = 1
EXIT_INTERNAL = 70


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
