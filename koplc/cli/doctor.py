"""`koplc doctor`: the report to paste into a bug report about the embedded model."""

from __future__ import annotations

from koplc.cli.common import EXIT_USER_ERROR


def add_doctor(commands) -> None:
    sub = commands.add_parser(
        "doctor", help="print llama.cpp's build, CPU features, model and caches; smoke-test",
        description="Print what a bug report needs (llama.cpp version and build, the CPU "
                    "features it may use, the model file and its checksum, the cache folders) "
                    "and decode a few tokens in a subprocess.")
    sub.add_argument("--no-smoke", action="store_true", help="skip the smoke check")
    sub.set_defaults(run=doctor)


def doctor(args) -> int:
    from koplc.llm.lm.doctor import report

    rows, worked = report(smoke=not args.no_smoke)
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value}")
    return 0 if worked else EXIT_USER_ERROR
