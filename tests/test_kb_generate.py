"""`koplc kb generate`: a Wikidata-shaped KB of about N triples that koplc's wikidata loader
reads back, the same for the same seed, with qualifiers and shared names; its questions' gold
answers (computed by the generator) agree with the native executor running programs written
here by hand; generating streams (memory does not grow with N)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from collections import Counter

import pytest

from koplc import api
from koplc.cli import main
from koplc.kopl.ir import Count, Find, QueryAttr, QueryName, QueryRelationQualifier, Relate
from koplc.kopl.kb.triples import load_rdf
from koplc.sparql_backend.generate import layout
from koplc.sparql_backend.generated_kb import generate_kb, questions_path
from koplc.sparql_backend.generated_questions import KINDS

LIKES = ("metaqa", "kopl-example")


@pytest.fixture(scope="module", params=LIKES)
def generated(request, tmp_path_factory):
    out = tmp_path_factory.mktemp(request.param) / "kb.nt"
    summary = generate_kb(request.param, 8000, seed=11, out=out)
    return summary, load_rdf(out), [json.loads(line) for line in
                                    questions_path(out).read_text().splitlines()]


def test_the_wikidata_loader_reads_the_kb_back(generated):
    summary, kb, _ = generated
    stats = api.kb_stats(kb)
    assert stats["entities"] == summary["entities"]
    assert stats["relation triples"] > summary["entities"] / 2
    assert stats["attribute facts"] > 0 and stats["qualifier values"] > 0
    assert abs(summary["triples"] - 8000) <= 0.1 * 8000


@pytest.mark.parametrize("like", LIKES)
def test_the_triple_count_is_about_n(like, tmp_path):
    for n in (3000, 30000):
        written = generate_kb(like, n, seed=3, out=tmp_path / f"{n}.nt.gz")["triples"]
        assert abs(written - n) <= 0.06 * n
        with gzip.open(tmp_path / f"{n}.nt.gz", "rt") as lines:
            assert sum(1 for _ in lines) == written


def test_the_same_seed_gives_the_same_files(tmp_path):
    files = []
    for name, seed in (("a", 5), ("b", 5), ("c", 6)):
        out = tmp_path / f"{name}.nt.gz"
        generate_kb("metaqa", 5000, seed=seed, out=out)
        files.append((out.read_bytes(), questions_path(out).read_bytes()))
    assert files[0] == files[1]
    assert files[0][0] != files[2][0] and files[0][1] != files[2][1]


def test_names_collide_as_real_names_do():
    plan = layout("metaqa", 200_000, seed=1)
    labels = Counter(plan.name(g) for g in range(plan.entities))
    shared = sum(n for n in labels.values() if n > 1) / plan.entities
    assert 0.05 < shared < 0.5


def hand_written(q: dict):
    """The program of a generated question, written here from its parts."""
    topic, key = Find(name=q["topic"]), q["key"]
    inverse = Relate(input=topic, relation=key, direction="backward")
    return {"relation": lambda: QueryName(input=Relate(input=topic, relation=key,
                                                       direction="forward")),
            "attribute": lambda: QueryAttr(input=topic, key=key),
            "inverse": lambda: QueryName(input=inverse),
            "count": lambda: Count(input=inverse),
            "two-hop": lambda: QueryName(input=Relate(input=inverse, relation=q["then"],
                                                      direction="forward")),
            "qualifier": lambda: QueryRelationQualifier(left=topic, right=Find(name=q["other"]),
                                                        relation=key, qkey=q["qkey"]),
            }[q["kind"]]()


def test_gold_answers_agree_with_the_native_executor(generated):
    _, kb, questions = generated
    assert len(questions) == sum(KINDS.values())
    assert {q["kind"] for q in questions} == set(KINDS)
    for q in questions:
        program = hand_written(q)
        assert api.parse(q["program"]).program == program, q
        answer = api.run(program.model_dump_json(), kb)
        assert sorted(set(answer.items())) == q["answers"], q


def test_the_cli_writes_the_kb_and_its_questions(tmp_path, capsys):
    out = tmp_path / "kb.nt.gz"
    code = main(["kb", "generate", "--triples", "4e3", "--like", "kopl-example", "--seed", "2",
                 "--questions", "20", "--out", str(out)])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and out.exists() and summary["questions"] == 20
    assert len((tmp_path / "kb.questions.jsonl").read_text().splitlines()) == 20


# VmHWM, not ru_maxrss: Linux carries ru_maxrss over fork and exec, so a child of a big
# pytest worker would report the worker's size; exec starts a new address space and VmHWM.
PEAK_RSS = """
import sys
from koplc.sparql_backend.generated_kb import generate_kb
generate_kb("metaqa", int(sys.argv[1]), seed=1, out=sys.argv[2])
status = open("/proc/self/status").read().split("VmHWM:")[1]
print(int(status.split()[0]))
"""


def test_generating_streams_in_bounded_memory(tmp_path):
    """Peak RSS (KiB) of generating 10^4 and 10^6 triples, each in its own process: the
    larger run may hold more of the interpreter's free lists, not the triples."""
    peaks = {}
    for n in (10_000, 1_000_000):
        done = subprocess.run([sys.executable, "-c", PEAK_RSS, str(n), tmp_path / f"{n}.nt.gz"],
                              capture_output=True, text=True, check=True)
        peaks[n] = int(done.stdout.split()[-1])
    assert peaks[1_000_000] < 250_000, peaks
    assert peaks[1_000_000] - peaks[10_000] < 40_000, peaks
