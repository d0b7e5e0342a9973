"""Parse + check throughput (programs per second) per syntax, on the real corpora and on
generated 5-10 step KoPL programs.

    .venv/bin/python benchmarks/parse.py [--rounds N] [--generated N]
"""

from __future__ import annotations

import argparse
import json
import random
import time

from inputs import FIXTURES

from koplc import api
from koplc.kopl import ir
from koplc.kopl.check import check_parsed

WORDS = ("river bank film star city music award crown harbor county state prize album "
         "novel actor writer tower bridge lake island").split()


def corpus() -> dict[str, list[str]]:
    """The corpus programs, keyed by syntax."""
    files = {"kopl-steps": ("kopl_steps_symkgqa.jsonl", "program_text"),
             "kopl-nested": ("kopl_functional_docs.jsonl", "program_text"),
             "sexpr": ("sexpr_grailqa.jsonl", "s_expression")}
    out = {}
    for syntax, (name, field) in files.items():
        lines = (FIXTURES / "corpus" / name).read_text(encoding="utf-8").splitlines()
        out[syntax] = [json.loads(line)[field] for line in lines if line]
    return out


def generated_program(rng: random.Random) -> ir.Node:
    """A random well-typed KoPL program of 5 to 10 steps."""
    target = rng.randint(5, 10)
    while True:
        node = _entities(rng, rng.randint(2, 4))
        node = rng.choice([
            lambda n: ir.QueryName(input=n),
            lambda n: ir.Count(input=n),
            lambda n: ir.VerifyNum(input=ir.QueryAttr(input=n, key=_name(rng)),
                                   value=f"{rng.randint(1, 999)} metre", comparator=">"),
            lambda n: ir.SelectAmong(input=n, key=_name(rng), comparator="largest"),
        ])(node)
        if len(list(node.walk())) == target:
            return node


def _name(rng: random.Random) -> str:
    return " ".join(rng.sample(WORDS, rng.randint(1, 3)))


def _entities(rng: random.Random, depth: int) -> ir.Node:
    if depth == 0:
        return rng.choice([ir.FindAll(), ir.Find(name=_name(rng))])
    inner = _entities(rng, depth - 1)
    choice = rng.randrange(6)
    if choice == 0:
        return ir.Relate(input=inner, relation=_name(rng), direction=rng.choice(["forward", "backward"]))
    if choice == 1:
        return ir.FilterConcept(input=inner, concept=_name(rng))
    if choice == 2:
        return ir.FilterYear(input=inner, key=_name(rng), value=str(rng.randint(1800, 2020)),
                             comparator=rng.choice(["<", ">", "="]))
    if choice == 3:
        return ir.QFilterStr(input=ir.Relate(input=inner, relation=_name(rng), direction="forward"),
                             qkey=_name(rng), qvalue=_name(rng))
    return ir.And(left=inner, right=_entities(rng, rng.randint(0, 1)))


def throughput(texts: list[str], syntax: str, rounds: int) -> float:
    """Programs parsed and checked per second."""
    start = time.perf_counter()
    for _ in range(rounds):
        for text in texts:
            check_parsed(api.parse(text, syntax))
    return rounds * len(texts) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--generated", type=int, default=1000)
    args = parser.parse_args()
    rows = []
    for syntax, texts in corpus().items():
        rows.append((f"corpus {syntax}", len(texts), throughput(texts, syntax, args.rounds)))
    rng = random.Random(0)
    programs = [generated_program(rng) for _ in range(args.generated)]
    for syntax in ("kopl-steps", "kopl-nested", "kqapro-json", "kopl-engine", "kopl-bart",
                   "ir-json"):
        texts = [api.print_program(p, syntax) for p in programs]
        rows.append((f"generated 5-10 steps, {syntax}", len(texts), throughput(texts, syntax, 1)))
    width = max(len(r[0]) for r in rows)
    print(f"{'input':<{width}}  {'programs':>8}  {'programs/s':>10}")
    for name, count, rate in rows:
        print(f"{name:<{width}}  {count:>8}  {rate:>10,.0f}")


if __name__ == "__main__":
    main()
