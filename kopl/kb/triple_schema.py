"""What a triples file does not say: which concept its subjects and each relation's objects
belong to, and which relations are attributes (`koplc.kopl.kb.triples` reads the file).

A schema comes from one of three places. A dataset's own (`dataset_schemas`: ``metaqa``), used
only when named. A JSON file in `TripleSchema`'s own form (`read_schema`)::

    {"subject_concept": "book",
     "object_concepts": {"written_by": "person"},
     "subject_concepts": {"member_of": "person"},
     "attributes": {"publication_year": "year"}}

(`subject_concepts`, optional: the concept of the subjects of the relations it names, when they
are not `subject_concept`'s.)

Or, when none is named, the neutral schema read from the triples alone (`neutral_schema`): every
subject and every object is an entity of the one concept ``entity``; a relation becomes an
attribute only when all its objects are values of one kind (every one a year 1000-9999, else
every one an ISO date ``yyyy-mm-dd`` that exists, else every one a plain decimal number, a
unitless quantity; a leading zero makes a code, not a number) and none of them is the subject of
a triple, so nothing the file says something about turns into a value. Anything else stays a
relation between entities. A relation whose objects are all four-digit numbers is taken for
years; name a schema where that is wrong.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from koplc.kopl.diagnostics import Span
from koplc.kopl.errors import KBError
from koplc.kopl.values import DATE, QUANTITY, TYPES, YEAR

NEUTRAL_CONCEPT = "entity"
NEUTRAL_RULES = 1  # bump whenever `neutral_schema` reads a file differently (KB caches key on it)


@dataclass(frozen=True)
class TripleSchema:
    """Which concept subjects and each relation's objects belong to, and which relations are
    attributes (relation → value type)."""

    subject_concept: str
    object_concepts: dict[str, str] = field(default_factory=dict)
    attributes: dict[str, str] = field(default_factory=dict)
    subject_concepts: dict[str, str] = field(default_factory=dict)

    def subject_of(self, relation: str) -> str:
        """The concept of `relation`'s subjects."""
        return self.subject_concepts.get(relation, self.subject_concept)

    @classmethod
    def from_json(cls, text: str) -> TripleSchema:
        """The schema of its JSON text; ValueError (json.JSONDecodeError for bad JSON) when
        the text is not one (`read_schema` turns both into a KBError with the position)."""
        data = json.loads(text)
        if not isinstance(data, dict) or not isinstance(data.get("subject_concept"), str):
            raise ValueError('expected an object with "subject_concept" (a concept name)')
        objects, attributes = data.get("object_concepts", {}), data.get("attributes", {})
        subjects = data.get("subject_concepts", {})
        for key, table in (("object_concepts", objects), ("attributes", attributes),
                           ("subject_concepts", subjects)):
            if not isinstance(table, dict) or not all(
                    isinstance(v, str) for v in table.values()):
                raise ValueError(f'"{key}" must map relation names to strings')
        unknown = sorted(set(attributes.values()) - set(TYPES))
        if unknown:
            raise ValueError(f'"attributes": unknown value type {unknown[0]!r}; '
                             f"use one of {', '.join(TYPES)}")
        return cls(data["subject_concept"], dict(objects), dict(attributes), dict(subjects))

    def to_json(self) -> str:
        data = {"subject_concept": self.subject_concept, "object_concepts": self.object_concepts,
                "attributes": self.attributes}
        if self.subject_concepts:  # absent when unused, so older schemas keep their caches
            data["subject_concepts"] = self.subject_concepts
        return json.dumps(data, sort_keys=True)

    def concepts(self) -> list[str]:
        """Concept names in id order: the subjects' concept, then the objects' and the other
        subjects' in first mention."""
        return list(dict.fromkeys([self.subject_concept, *self.object_concepts.values(),
                                   *self.subject_concepts.values()]))


def dataset_schemas() -> dict[str, TripleSchema]:
    """The schemas of the datasets koplc knows, by the name `--schema NAME` gives them."""
    from koplc.kopl.datasets import metaqa  # it imports this module for TripleSchema

    return {"metaqa": metaqa.KB_SCHEMA}


def read_schema(path: str | Path) -> TripleSchema:
    """The schema in a JSON file; KBError naming the file (and line and column) otherwise."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = getattr(err, "strerror", None) or "not a UTF-8 text file"
        raise KBError(f"{path}: cannot read the schema file: {reason}",
                      code="schema-file") from None
    try:
        return TripleSchema.from_json(text)
    except json.JSONDecodeError as err:
        raise KBError(f"{path}: not a JSON schema: {err.msg}", code="schema-json",
                      span=Span.at_offset(text, err.pos, err.pos + 1), source=text) from None
    except ValueError as err:
        raise KBError(f"{path}: not a triple schema: {err}", code="schema-json") from None


def named_schema(spec: str | Path | TripleSchema | None) -> TripleSchema | None:
    """The schema `spec` names: a dataset's name (`dataset_schemas`), a JSON schema file, or a
    schema itself; None stays None (the neutral schema of whatever file is read)."""
    if spec is None or isinstance(spec, TripleSchema):
        return spec
    known = dataset_schemas()
    if str(spec) in known:
        return known[str(spec)]
    if not Path(spec).is_file():
        raise KBError(f"schema {str(spec)!r}: neither a dataset schema "
                      f"({', '.join(known)}) nor a schema file", code="schema-file")
    return read_schema(spec)


# No leading zeros: "007" or "0042" is a code, not a number.
_YEAR = re.compile(r"[1-9]\d{3}", re.ASCII)
_NUMBER = re.compile(r"[+-]?(0|[1-9]\d*)(\.\d+)?", re.ASCII)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)


def neutral_schema(triples: Iterable[tuple[str, str, str] | list[str]]) -> TripleSchema:
    """The schema of a triples file that names none (see the module notes).

    >>> schema = neutral_schema([("Dune", "written_by", "Frank Herbert"), ("Dune", "year", "1965")])
    >>> schema.subject_concept, schema.object_concepts, schema.attributes
    ('entity', {'written_by': 'entity'}, {'year': 'year'})
    """
    subjects: set[str] = set()
    objects: dict[str, list[str]] = {}
    for s, r, o in triples:
        subjects.add(s)
        objects.setdefault(r, []).append(o)
    attributes = {r: kind for r, values in objects.items()
                  if (kind := _value_kind(values)) is not None and subjects.isdisjoint(values)}
    relations = {r: NEUTRAL_CONCEPT for r in objects if r not in attributes}
    return TripleSchema(NEUTRAL_CONCEPT, relations, attributes)


def _value_kind(values: list[str]) -> str | None:
    if all(_YEAR.fullmatch(v) for v in values):
        return YEAR
    if all(_is_date(v) for v in values):
        return DATE
    if all(_NUMBER.fullmatch(v) for v in values):
        return QUANTITY
    return None


def _is_date(text: str) -> bool:
    """Whether `text` is an ISO date ``yyyy-mm-dd`` that exists."""
    if not _DATE.fullmatch(text):
        return False
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True

