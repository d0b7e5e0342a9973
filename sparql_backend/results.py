"""Run a lowered program on a store and turn its rows into the answer the native executor gives.

The documented post-processing steps, all on rows SPARQL has already filtered and joined:
reading values back and rendering them as the engine does (`Value.__str__`); the majority unit
and the extreme of SelectBetween (the first least, the last greatest) and SelectAmong; and the
facts behind a final Relate or Filter*, fetched by a second query. The engine's qualifier order
is not stored in RDF: facts list qualifier keys sorted.

Known difference: where two units tie for the majority, or SelectBetween ties between two
entities of the same side, the executor decides by the order it meets them in (its set order;
the official engine's follows string hashing). Here rows come by side, then by entity IRI.
"""

from __future__ import annotations

from koplc.kopl.answer import Answer
from koplc.kopl.errors import BackendError, ExecutionError
from koplc.kopl.execution.queries import in_majority_unit
from koplc.kopl.types import AmongOp, BetweenOp
from koplc.kopl.units import convert
from koplc.kopl.values import QUANTITY, Value
from koplc.sparql_backend.encodings import ATTRIBUTE, FORWARD, KEY_TYPE, RECORD, unit_name
from koplc.sparql_backend.lower import PROLOGUE, Lowered
from koplc.sparql_backend.terms import Term, iri
from koplc.sparql_backend.value_patterns import ValuePatterns, decode_value


def run_lowered(lowered: Lowered, store) -> Answer:
    """Check the guards, run the query on `store` and build the Answer."""
    for guard in lowered.guards:
        if store.ask(guard.ask) == guard.raises:
            raise ExecutionError(guard.message, code="execution")
    rows = store.select(lowered.query)
    try:
        return answer_from_rows(lowered, rows, store)
    except (KeyError, ValueError, TypeError, IndexError, AttributeError) as err:
        name = getattr(store, "name", "the store")
        raise BackendError(f"{name}: the results do not hold what the query asked for "
                           f"({type(err).__name__}: {err})", code="bad-results") from None


def units_in(store, encoding) -> tuple[str, ...]:
    """Every unit the quantities in `store` use, by name (what lowering with unit conversion
    needs); none in an encoding whose numbers are plain literals."""
    if not encoding.value_nodes:
        return ()
    rows = store.select(f"{PROLOGUE}SELECT DISTINCT ?unit WHERE {{ ?v {iri(encoding.unit)} ?unit }}"
                        " LIMIT 100000")
    return tuple(sorted({_unit(row["unit"]) for row in rows}))


def answer_from_rows(lowered: Lowered, rows: list[dict[str, Term]], store=None) -> Answer:
    """The Answer the rows of `lowered.query` stand for (`store` fetches facts)."""
    kind, output, e = lowered.shape.kind, lowered.output, lowered.encoding
    if kind == "entities":
        ids = [e.node_id(row["entity"].value) for row in rows]
        return Answer(output, None, ids, facts_of(lowered, rows, store))
    if kind == "names":
        return Answer(output, [row["name"].value for row in rows])
    if kind == "count":
        return Answer(output, str(int(rows[0]["count"].value)) if rows else "0")
    if kind == "values":
        return Answer(output, [str(decode_value(row, "value", e.value_nodes)) for row in rows])
    if kind == "labels":
        return Answer(output, [e.relation_name(row["relation"].value) for row in rows])
    if kind == "answer":
        return Answer(output, rows[0]["answer"].value)
    if kind in ("between", "among"):
        return Answer(output, pick(lowered.shape.detail, rows))
    raise ValueError(f"unknown result shape {kind!r}")


def pick(detail: tuple, rows: list[dict[str, Term]]) -> str | list[str]:
    """SelectBetween's name or SelectAmong's names from the candidate rows, as the engine
    picks them: quantities in the majority unit, the first least or the last greatest."""
    comparator, error, converting = detail
    candidates = in_majority_unit(
        [(row["name"].value, Value(QUANTITY, float(row["number"].value), _unit(row["unit"])))
         for row in rows], convert if converting else None)
    if not candidates:
        raise ExecutionError(error, code="execution")
    if comparator == BetweenOp.LESS:
        return min(candidates, key=lambda c: c[1])[0]
    if comparator == BetweenOp.GREATER:
        best = candidates[0]
        for candidate in candidates:
            if candidate[1] >= best[1]:
                best = candidate
        return best[0]
    numbers = [number for _, number in candidates]
    extreme = min(numbers) if comparator == AmongOp.SMALLEST else max(numbers)
    return list(dict.fromkeys(name for name, number in candidates if number == extreme))


def _unit(term: Term) -> str:
    """A unit's name as the KB writes it (a unit IRI is read back)."""
    return unit_name(term.value) if term.kind == "iri" else term.value


def facts_of(lowered: Lowered, rows: list[dict[str, Term]], store) -> list[dict] | None:
    """The facts behind each element of a final Relate / Filter* / QFilter*, else None."""
    fact, e = lowered.shape.detail, lowered.encoding
    if fact is None:
        return None
    if fact[0] == "relation":
        return [{"relation": fact[1], "direction": fact[2],
                 "object": e.node_id(row["entity"].value), "qualifiers": {}} for row in rows]
    if fact[0] == "attribute":
        return [{"key": fact[1], "value": str(decode_value(row, "fact", e.value_nodes)),
                 "qualifiers": {}} for row in rows]
    by_iri = fetch_facts(lowered, sorted({row["fact"].value for row in rows}), store)
    return [by_iri[row["fact"].value] for row in rows]


def fetch_facts(lowered: Lowered, facts: list[str], store) -> dict[str, dict]:
    """Each reified fact as the engine's record: what it links and its qualifiers."""
    if not facts:
        return {}
    e = lowered.encoding
    vp = ValuePatterns(e, lambda prefix: f"?{prefix}_")
    values = " ".join(iri(f) for f in facts)
    pattern, _, columns = vp.describe("?t", "value")
    query = (f"{PROLOGUE}SELECT ?fact ?record ?h ?r ?t {' '.join(columns)} WHERE {{\n"
             f"  VALUES ?fact {{ {values} }}\n"
             f"  ?fact <{RECORD}> ?record .\n  {e.fact_link('?fact', '?h', '?r', '?t')}\n"
             f"  {pattern}\n}}")
    out: dict[str, dict] = {}
    for row in store.select(query):
        record = row["record"].value
        if record == ATTRIBUTE:
            data = {"key": e.key_name(row["r"].value),
                    "value": str(decode_value(row, "value", e.value_nodes))}
        else:
            forward = record == FORWARD
            data = {"relation": e.relation_name(row["r"].value),
                    "direction": "forward" if forward else "backward",
                    "object": e.node_id(row["t" if forward else "h"].value)}
        out[row["fact"].value] = {**data, "qualifiers": {}}
    skip = " ".join(iri(p) for p in (RECORD, KEY_TYPE, e.fact_h, e.fact_r, e.fact_t))
    pattern, _, columns = vp.describe("?q", "value")
    query = (f"{PROLOGUE}SELECT ?fact ?key {' '.join(columns)} WHERE {{\n"
             f"  VALUES ?fact {{ {values} }}\n  ?fact ?key ?q .\n"
             f"  FILTER(?key NOT IN ({skip.replace(' ', ', ')}))\n  {pattern}\n}}\n"
             "ORDER BY ?fact ?key")
    for row in store.select(query):
        key = e.qualifier_name(row["key"].value)
        if key is None:  # a statement's own value, rank or other non-qualifier triple
            continue
        value = str(decode_value(row, "value", e.value_nodes))
        out[row["fact"].value]["qualifiers"].setdefault(key, []).append(value)
    return out
