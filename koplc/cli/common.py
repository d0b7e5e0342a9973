"""What every command shares: exit statuses, reading FILE or standard input, JSONL batches."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from koplc import api

EXIT_USER_ERROR = 1
EXIT_INTERNAL = 70


def read_input(path: str) -> str:
    return sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")


def emit_batch(args, job) -> int:
    failed = False
    for record in api.batch(read_input(args.file).splitlines(), job):
        failed |= not record.get("ok", False)
        print(json.dumps(record, ensure_ascii=False))
    return EXIT_USER_ERROR if failed else 0
