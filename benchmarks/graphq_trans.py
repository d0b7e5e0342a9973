"""koplc's SPARQL lowering next to GraphQ Trans (PyPI graphq-trans 0.1.0, an ANTLR KoPL -> IR ->
SPARQL transpiler), on the conformance programs and the MetaQA dev gold programs.

    .venv/bin/pip install -e '.[bench]' && .venv/bin/python benchmarks/graphq_trans.py

Both start from the decoded KQA Pro program list, with QueryName spelled `What` as KQA Pro's
data (and GraphQ Trans's grammar) spell it: GraphQ Trans runs `kopl.Translator.to_ir` then
`ir.Translator.to_sparql` (it prints its errors and returns an empty query; both output streams
are captured here); koplc builds the IR
(`program_from_steps`) and lowers it (`lower`) in the KQA Pro encoding, which GraphQ Trans also
targets. Throughput is the best of --rounds rounds over at least 2,000 programs a round (small
workloads are repeated). Then every query runs on pyoxigraph over the
same KB exported in the KQA Pro encoding, and its answer is compared with the native executor's:
"exact" as the executor's list (a multiset), "as sets" ignoring repeats. GraphQ Trans's rows are
read as KQA Pro's tools read them (?e by name or id, value nodes by value, ?p by label, ASK as
yes/no). MetaQA relation labels are written with spaces here (``starred actors``), as KQA Pro's
are, because GraphQ Trans writes a label's spaces as underscores. GraphQ Trans reads Relate's
direction the other way round from the KoPL engine (for `Relate(X, r, backward)` it asks for
`X r ?e`, the engine for `?e r X`), so its answers are also counted with the directions swapped
in its input.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import time
from collections import Counter
from pathlib import Path

from inputs import FIXTURES, metaqa_dev, metaqa_kb


def load_workloads():
    """[(workload name, KB, [(KQA Pro steps, IR program)])]."""
    from koplc.kopl.datasets.metaqa import KB_SCHEMA, gold_program, read_questions
    from koplc.kopl.kb.cache import load_kb
    from koplc.kopl.kb.kopl_json import kb_from_data, kb_to_data
    from koplc.kopl.kb.model import KBBuilder
    from koplc.kopl.syntax.kqapro_json import print_program

    cases = json.loads((FIXTURES / "conformance/kopl_engine_cases.json").read_text())["cases"]
    by_kb: dict[str, list] = {}
    for case in cases:
        by_kb.setdefault(case["kb"], []).append(case["program"])
    workloads = [(f"conformance ({kb.split('/')[-1]})", load_kb(FIXTURES / "kopl" / Path(kb).name),
                  [(kqapro_spelling(steps), None) for steps in programs])
                 for kb, programs in by_kb.items()]
    data = kb_to_data(load_kb(metaqa_kb(), schema=KB_SCHEMA))
    for record in data["entities"].values():
        for rel in record["relations"]:
            rel["relation"] = rel["relation"].replace("_", " ")
    metaqa = kb_from_data(data, KBBuilder("metaqa, labels with spaces"))
    questions = [q for hop in (1, 2, 3)
                 for q in read_questions(metaqa_dev(hop))]
    programs = []
    for q in questions:
        program = gold_program(q.topic, q.qtype)
        text = print_program(program).replace("_", " ")
        programs.append((kqapro_spelling(json.loads(text)), None))
    workloads.append(("MetaQA dev gold", metaqa, programs))
    return workloads


def kqapro_spelling(steps: list[dict]) -> list[dict]:
    """The steps with QueryName written `What`, as KQA Pro writes it."""
    return [{**step, "function": "What" if step["function"] == "QueryName" else
             step["function"]} for step in steps]


def swap_directions(steps: list[dict]) -> list[dict]:
    """The steps with every Relate direction swapped (GraphQ Trans's reading)."""
    swap = {"forward": "backward", "backward": "forward"}
    return [{**step, "inputs": [step["inputs"][0], swap.get(step["inputs"][1],
                                                            step["inputs"][1])]}
            if step["function"] == "Relate" and len(step["inputs"]) == 2 else step
            for step in steps]


def graphq_translators():
    # Run as a script, this file's folder comes first on sys.path and its name would shadow
    # the graphq_trans package.
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
    from graphq_trans.ir.translator import Translator as IRTranslator
    from graphq_trans.kopl.translator import Translator as KoplTranslator

    return KoplTranslator(), IRTranslator()


def graphq_lower(translators, steps) -> tuple[str, str]:
    """(SPARQL, what it printed); an exception counts as an empty query."""
    kopl, ir = translators
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(err):
        try:
            return ir.to_sparql(kopl.to_ir(steps)) or "", err.getvalue()
        except Exception as problem:  # noqa: BLE001 - counted, as GraphQ Trans's users see it
            return "", f"{type(problem).__name__}: {problem}"


def koplc_lower(steps):
    """(Lowered or None, error message)."""
    from koplc.kopl.errors import KoplcError
    from koplc.kopl.syntax.kqapro_json import parse, program_from_steps
    from koplc.sparql_backend.lower import lower

    try:
        program = program_from_steps(steps) or parse(json.dumps(steps)).program
        return lower(program, "kqapro"), ""
    except KoplcError as err:
        return None, str(err)


def throughput(items, lower_one, rounds: int) -> float:
    """Programs per second, best of `rounds`, each round over at least 2,000 programs."""
    items = items * -(-2000 // len(items))
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for item in items:
            lower_one(item)
        best = min(best, time.perf_counter() - start)
    return len(items) / best


def lower_quietly(program) -> None:
    from koplc.kopl.errors import KoplcError
    from koplc.sparql_backend.lower import lower

    try:
        lower(program, "kqapro")
    except KoplcError:
        pass


def graphq_items(store, sparql: str, native) -> list[str] | str | None:
    """GraphQ Trans's answer read as KQA Pro's tools read it; None when the query fails."""
    from koplc.sparql_backend.encodings import KQAPRO
    from koplc.sparql_backend.terms import XSD

    ox = store.ox
    try:
        result = store.store.query(sparql, base_iri=KQAPRO.base, prefixes={"xsd": XSD})
    except (SyntaxError, OSError, ValueError):
        return None
    if isinstance(result, ox.QueryBoolean):
        return "yes" if bool(result) else "no"
    names = [v.value for v in result.variables]
    out = []
    for solution in result:
        term = solution[0]
        if names == ["count"]:
            return str(int(term.value))
        if isinstance(term, ox.BlankNode):
            out.append(str(store.kqapro_value(term)))
        elif names == ["p"]:
            out.append(KQAPRO.relation_name(term.value))
        elif native is not None and native.is_entities:
            out.append(KQAPRO.node_id(term.value))
        else:
            name = ox.NamedNode(KQAPRO.name_predicate)
            out.extend(q.object.value for q in store.store.quads_for_pattern(term, name, None))
    return out


def agreement(native, got) -> tuple[bool, bool]:
    """(exact, as sets): `got` is the items of an answer, a text answer, or None (failed)."""
    if native is None or got is None:
        return native is None and got is None, native is None and got is None
    want = native.items()
    got = [got] if isinstance(got, str) else got
    return Counter(want) == Counter(got), set(want) == set(got)


def compare(name, kb, programs, rounds: int) -> dict:
    from koplc.kopl.errors import KoplcError
    from koplc.kopl.execution.executor import execute
    from koplc.kopl.syntax.kqapro_json import parse, program_from_steps
    from koplc.sparql_backend.encodings import KQAPRO
    from koplc.sparql_backend.export import ntriples
    from koplc.sparql_backend.results import run_lowered
    from koplc.sparql_backend.stores import OxigraphStore

    translators = graphq_translators()
    irs = [program_from_steps(s) or parse(json.dumps(s)).program for s, _ in programs]
    steps = [s for s, _ in programs]
    row = {"workload": name, "programs": len(programs),
           "graphq_per_s": throughput(steps, lambda s: graphq_lower(translators, s), rounds),
           "koplc_per_s": throughput(steps, koplc_lower, rounds),
           "koplc_lower_only_per_s": throughput(irs, lower_quietly, rounds)}
    store = OxigraphStore()
    store.load_ntriples("".join(ntriples(kb, KQAPRO)).encode())
    counts = Counter()
    for (steps, _), program in zip(programs, irs, strict=True):
        try:
            native = execute(program, kb)
        except KoplcError:
            native = None
        sparql, stderr = graphq_lower(translators, steps)
        counts["graphq_empty"] += not sparql
        counts["graphq_printed"] += bool(stderr.strip())
        exact, sets = agreement(native, graphq_items(store, sparql, native) if sparql else None)
        counts["graphq_exact"] += exact and bool(sparql)
        counts["graphq_sets"] += sets and bool(sparql)
        swapped, _ = graphq_lower(translators, swap_directions(steps))
        counts["graphq_swapped_exact"] += bool(swapped) and agreement(
            native, graphq_items(store, swapped, native) if swapped else None)[0]
        lowered, error = koplc_lower(steps)
        counts["koplc_rejected"] += lowered is None
        if lowered is not None:
            try:
                got = run_lowered(lowered, store)
            except KoplcError:
                got = None
            both = agreement(native, None if got is None else
                             (got.value if isinstance(got.value, str) else got.items()))
            counts["koplc_exact"] += both[0]
            counts["koplc_sets"] += both[1]
        elif native is None:
            counts["koplc_rejected_as_native_raises"] += 1
    row.update(counts)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    rows = [compare(name, kb, programs, args.rounds) for name, kb, programs in load_workloads()]
    for row in rows:
        n = row["programs"]
        print(f"\n{row['workload']}: {n} programs")
        print(f"  lowering throughput   GraphQ Trans {row['graphq_per_s']:10.0f} programs/s")
        print(f"                        koplc        {row['koplc_per_s']:10.0f} programs/s "
              f"(from the KoPL list; IR -> SPARQL only: {row['koplc_lower_only_per_s']:.0f}/s)")
        print(f"  ratio koplc / GraphQ Trans: {row['koplc_per_s'] / row['graphq_per_s']:.1f}x")
        print(f"  GraphQ Trans: {row.get('graphq_empty', 0)} empty queries (no exception; "
              f"{row.get('graphq_printed', 0)} printed an error); answers as native: "
              f"{row.get('graphq_exact', 0)}/{n} exact, {row.get('graphq_sets', 0)}/{n} as sets "
              f"({row.get('graphq_swapped_exact', 0)}/{n} exact with Relate directions swapped)")
        print(f"  koplc: {row.get('koplc_rejected', 0)} rejected with an explicit error "
              f"({row.get('koplc_rejected_as_native_raises', 0)} where the executor raises "
              f"too); answers as native: {row.get('koplc_exact', 0)}/{n} exact, "
              f"{row.get('koplc_sets', 0)}/{n} as sets")
    return 0


if __name__ == "__main__":
    sys.exit(main())
