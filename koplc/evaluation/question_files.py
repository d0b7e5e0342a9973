"""Question files with gold answers, for evaluating front ends.

Two formats. MetaQA TSV: ``[index<TAB>]question<TAB>answer|answer[<TAB>qtype]``, the topic in
[brackets] in the question. JSONL: one object a line with ``question`` and ``answers`` (a list),
optionally ``topic``, ``kind`` and ``program`` (the gold program, in any syntax).

A question's kind (what the report breaks results down by) is its own ``kind`` field, else the
kind the caller names, else the hop count in the file name (``qa_2hop_dev.tsv`` -> ``2-hop``),
else the hop count of its MetaQA question type, else ``all``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from koplc.kopl.datasets.metaqa import gold_program
from koplc.kopl.errors import KoplcError
from koplc.kopl.ir import Node

_TOPIC = re.compile(r"\[([^\]]+)\]")
_HOP_IN_NAME = re.compile(r"(\d+)[-_]?hop", re.IGNORECASE)


@dataclass(frozen=True)
class GoldQuestion:
    """A question, its gold answers and what is known of it: topic, kind, gold program."""

    text: str
    answers: frozenset[str]
    kind: str
    topic: str | None = None
    program: Node | None = None
    qtype: str | None = None


def read_question_file(path: str | Path, kind: str | None = None,
                       parse: Callable[[str], Node] | None = None) -> list[GoldQuestion]:
    """The questions of a MetaQA TSV or JSONL file (told apart by the first character: `{`
    starts JSONL). `parse` reads a JSONL record's gold program; without it they are left out."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise KoplcError(f"{path}: not a UTF-8 text file", code="unreadable") from err
    except OSError as err:
        raise KoplcError(f"{path}: cannot read the question file: {err.strerror or err}",
                         code="unreadable") from err
    kind = kind or _kind_in_name(path)
    rows = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not rows:
        raise KoplcError(f"{path}: no questions in the file", code="empty-input")
    read = _jsonl_question if rows[0][1].lstrip().startswith("{") else _tsv_question
    questions = []
    for number, line in rows:
        try:
            questions.append(read(line, kind, parse))
        except (ValueError, KoplcError) as err:
            message = err.render() if isinstance(err, KoplcError) else str(err)
            raise KoplcError(f"{path}:{number}: {message}", code="bad-record") from err
    return questions


def spread(questions: list[GoldQuestion], limit: int | None) -> list[GoldQuestion]:
    """At most `limit` questions of each kind, spread evenly over that kind's questions (files
    are often sorted by question type, so the first N would be one type); order kept."""
    if not limit:
        return list(questions)
    by_kind: dict[str, list[int]] = {}
    for i, q in enumerate(questions):
        by_kind.setdefault(q.kind, []).append(i)
    kept = set()
    for indices in by_kind.values():
        n = min(limit, len(indices))
        kept.update(indices[k * len(indices) // n] for k in range(n))
    return [q for i, q in enumerate(questions) if i in kept]


def _kind_in_name(path: Path) -> str | None:
    found = _HOP_IN_NAME.search(path.name)
    return f"{int(found.group(1))}-hop" if found else None


def _tsv_question(line: str, kind: str | None, parse) -> GoldQuestion:
    fields = line.rstrip("\r\n").split("\t")
    if len(fields) == 4:
        fields.pop(0)  # the question's index in the original file
    if len(fields) not in (2, 3):
        raise ValueError(f"expected question<TAB>answers[<TAB>type], got {len(fields)} fields")
    text, answers, qtype = fields[0], fields[1], fields[2] if len(fields) == 3 else None
    topic, program = _bracketed(text), None
    if topic and qtype:
        try:
            program = gold_program(topic, qtype)
        except ValueError:  # not a MetaQA question type: no gold program
            pass
    return GoldQuestion(text, frozenset(answers.split("|")), kind or _kind_of_type(qtype),
                        topic, program, qtype)


def _jsonl_question(line: str, kind: str | None, parse) -> GoldQuestion:
    record = json.loads(line)
    if not isinstance(record, dict) or not isinstance(record.get("question"), str) \
            or not isinstance(record.get("answers"), list):
        raise ValueError("expected {\"question\": text, \"answers\": [names], ...}")
    gold = record.get("program")
    program = None
    if gold is not None and parse is not None:
        program = parse(gold if isinstance(gold, str) else json.dumps(gold))
    qtype = record.get("qtype")
    topic = record.get("topic") or _bracketed(record["question"])
    return GoldQuestion(record["question"], frozenset(str(a) for a in record["answers"]),
                        record.get("kind") or kind or _kind_of_type(qtype), topic, program, qtype)


def _bracketed(text: str) -> str | None:
    found = _TOPIC.search(text)
    return found.group(1) if found else None


def _kind_of_type(qtype: str | None) -> str:
    return f"{len(qtype.split('_to_')) - 1}-hop" if qtype else "all"
