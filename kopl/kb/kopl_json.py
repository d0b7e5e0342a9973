"""KoPL KB JSON: read both spellings in circulation, write the engine's.

The official engine's spelling: ``{"concepts": {id: {name, subclassOf}}, "entities": {id: {name,
instanceOf, attributes: [{key, value, qualifiers}], relations: [{relation, direction, object,
qualifiers}]}}}``. KQA Pro's released kb.json writes ``predicate`` for ``relation``, gives
concepts ``instanceOf`` for their parents, and dates as ``yyyy/mm/dd``. A value is ``{"type":
"string"|"quantity"|"year"|"date", "value": ..., "unit": ...}`` (unit only for quantities,
``"1"`` when unitless). Anything else raises KBError naming the file and the record.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from koplc.kopl.kb.model import KB, KBBuilder, Qualifiers
from koplc.kopl.values import DATE, QUANTITY, STRING, TYPES, YEAR, Value, parse_time

_DIRECTIONS = ("forward", "backward")


def load_kopl_json(path: str | Path) -> KB:
    """Load a KoPL KB JSON file (either spelling); raises KBError on any malformed record."""
    path = Path(path)
    return kb_from_text(path.read_text(encoding="utf-8"), str(path))


def kb_from_text(text: str, source: str = "<kb>") -> KB:
    """Build a KB from KoPL KB JSON text; `source` names it in errors."""
    builder = KBBuilder(source)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise builder.error(f"line {err.lineno}, column {err.colno}",
                            f"not valid JSON: {err.msg}") from None
    return kb_from_data(data, builder)


def kb_from_data(data: object, builder: KBBuilder) -> KB:
    """Build a KB from decoded KoPL KB JSON."""
    if not isinstance(data, dict) or not isinstance(data.get("entities"), dict):
        raise builder.error("top level", 'expected an object with an "entities" object')
    concepts = data.get("concepts", {})
    if not isinstance(concepts, dict):
        raise builder.error('"concepts"', "expected an object mapping ids to concepts")
    for cid, record in concepts.items():
        where = f"concepts[{cid!r}]"
        record = _object(builder, where, record)
        parents = record.get("subclassOf", record.get("instanceOf", []))
        builder.add_concept(cid, _name(builder, where, record),
                            _strings(builder, f"{where}.subclassOf", parents), where)
    records = list(data["entities"].items())
    for eid, record in records:
        where = f"entities[{eid!r}]"
        record = _object(builder, where, record)
        builder.add_entity(eid, _name(builder, where, record),
                           _strings(builder, f"{where}.instanceOf", record.get("instanceOf", [])),
                           where)
    for eid, record in records:
        _add_facts(builder, eid, record)
    return builder.build()


def _add_facts(builder: KBBuilder, eid: str, record: dict) -> None:
    where = f"entities[{eid!r}]"
    for i, attr in enumerate(_list(builder, f"{where}.attributes", record.get("attributes", []))):
        at = f"{where}.attributes[{i}]"
        attr = _object(builder, at, attr)
        key = _text(builder, f"{at}.key", attr.get("key"))
        value = read_value(builder, f"{at}.value", attr.get("value"))
        builder.add_attribute(eid, key, value, _qualifiers(builder, at, attr))
    relations = _list(builder, f"{where}.relations", record.get("relations", []))
    add, has = builder.add_relation, builder.has
    for i, rel in enumerate(relations):
        # Fast path for the common well-formed record without qualifiers; anything else is
        # checked field by field so that the error can name what is wrong.
        if type(rel) is dict and not rel.get("qualifiers"):
            name, obj = rel.get("relation", rel.get("predicate")), rel.get("object")
            direction = rel.get("direction")
            if (type(name) is str and type(obj) is str and direction in _DIRECTIONS
                    and has(obj)):
                add(eid, name, direction, obj)
                continue
        _add_relation(builder, eid, f"{where}.relations[{i}]", rel)


def _add_relation(builder: KBBuilder, eid: str, at: str, rel: object) -> None:
    rel = _object(builder, at, rel)
    name = _text(builder, f"{at}.relation", rel.get("relation", rel.get("predicate")))
    direction = rel.get("direction")
    if direction not in _DIRECTIONS:
        raise builder.error(f"{at}.direction", f"expected forward or backward, got {direction!r}")
    obj = _text(builder, f"{at}.object", rel.get("object"))
    if not builder.has(obj):
        raise builder.error(f"{at}.object", f"{obj!r} is not a concept or entity id")
    builder.add_relation(eid, name, direction, obj, _qualifiers(builder, at, rel))


def read_value(builder: KBBuilder, where: str, raw: object) -> Value:
    """A typed value from its JSON object, parsed as the engine's `_parse_value` does."""
    raw = _object(builder, where, raw)
    kind, value = raw.get("type"), raw.get("value")
    if kind not in TYPES:
        raise builder.error(where, f"unknown value type {kind!r} (expected {', '.join(TYPES)})")
    if kind == STRING:
        return Value(STRING, _text(builder, f"{where}.value", value))
    if kind == QUANTITY:
        number = _number(builder, f"{where}.value", value)
        unit = _text(builder, f"{where}.unit", raw.get("unit"))
        return Value(QUANTITY, number, unit)
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise builder.error(f"{where}.value", f"expected a {kind} as text or an integer, "
                            f"got {json.dumps(value)}")
    try:
        return parse_time(str(value))
    except (ValueError, IndexError) as err:
        raise builder.error(f"{where}.value", f"not a year or date: {value!r} ({err})") from None


def _qualifiers(builder: KBBuilder, where: str, record: dict) -> Qualifiers:
    raw = record.get("qualifiers", {})
    if not isinstance(raw, dict):
        raise builder.error(f"{where}.qualifiers", "expected an object mapping keys to lists")
    return {key: tuple(read_value(builder, f"{where}.qualifiers[{key!r}][{i}]", v)
                       for i, v in enumerate(_list(builder, f"{where}.qualifiers[{key!r}]", vs)))
            for key, vs in raw.items()}


def _object(builder: KBBuilder, where: str, raw: object) -> dict:
    if not isinstance(raw, dict):
        raise builder.error(where, f"expected an object, got {_kind(raw)}")
    return raw


def _list(builder: KBBuilder, where: str, raw: object) -> list:
    if not isinstance(raw, list):
        raise builder.error(where, f"expected a list, got {_kind(raw)}")
    return raw


def _text(builder: KBBuilder, where: str, raw: object) -> str:
    if not isinstance(raw, str):
        raise builder.error(where, f"expected a string, got {_kind(raw)}")
    return raw


def _name(builder: KBBuilder, where: str, record: dict) -> str:
    return _text(builder, f"{where}.name", record.get("name"))


def _strings(builder: KBBuilder, where: str, raw: object) -> list[str]:
    return [_text(builder, f"{where}[{i}]", x) for i, x in enumerate(_list(builder, where, raw))]


def _number(builder: KBBuilder, where: str, raw: object) -> float:
    try:
        if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
            raise ValueError
        number = float(raw)
    except ValueError:
        raise builder.error(where, f"expected a number, got {json.dumps(raw)}") from None
    if not math.isfinite(number):
        raise builder.error(where, f"expected a finite number, got {raw!r}")
    return number


def _kind(raw: object) -> str:
    return "nothing" if raw is None else f"{type(raw).__name__} {json.dumps(raw)[:40]}"


def kb_to_data(kb: KB) -> dict:
    """The KB in the engine's KoPL JSON spelling (derived records on concepts left out)."""
    concepts = {kb.ids[c]: {"name": kb.names[c], "subclassOf": [kb.ids[p] for p in kb.parents[c]]}
                for c in range(kb.n_concepts)}
    entities = {}
    for n in kb.entity_nodes:
        entities[kb.ids[n]] = {
            "name": kb.names[n],
            "instanceOf": [kb.ids[p] for p in kb.parents[n]],
            "attributes": [{"key": key, "value": value_to_data(value),
                            "qualifiers": _qualifiers_to_data(qualifiers)}
                           for key, value, qualifiers in kb.attributes[n]],
            "relations": [{"relation": relation, "direction": direction, "object": kb.ids[obj],
                           "qualifiers": _qualifiers_to_data(qualifiers)}
                          for _, relation, direction, obj, qualifiers in kb.relations[n]],
        }
    return {"concepts": concepts, "entities": entities}


def kb_to_json(kb: KB) -> str:
    """KoPL KB JSON text of the KB (engine spelling)."""
    return json.dumps(kb_to_data(kb), ensure_ascii=False, indent=1)


def value_to_data(value: Value) -> dict:
    """The JSON object of a value; quantities keep integers integral."""
    if value.type == QUANTITY:
        number = value.value
        number = int(number) if float(number).is_integer() else number
        return {"type": QUANTITY, "value": number, "unit": value.unit}
    if value.type == DATE:
        return {"type": DATE, "value": value.value.isoformat()}
    if value.type == YEAR:
        return {"type": YEAR, "value": value.value}
    return {"type": STRING, "value": value.value}


def _qualifiers_to_data(qualifiers: Qualifiers) -> dict:
    return {k: [value_to_data(v) for v in vs] for k, vs in qualifiers.items()}
