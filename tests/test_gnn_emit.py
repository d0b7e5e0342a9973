"""Emitted programs: decoded from hand-made distributions, and from the tiny model; they parse,
type-check and run."""

from __future__ import annotations

import numpy as np
import pytest

from gnn_fixtures import KB, eval_file, tiny_model
from koplc import api
from koplc.cli import main
from koplc.gnn.emit import decode_path, program_of, thresholded
from koplc.gnn.subgraph import Retriever, graph_of, link_topic
from koplc.kopl.ir import Find, QueryName, Relate
from koplc.kopl.types import Direction

RELATIONS = ["directed_by", "starred_actors"]


def test_decode_follows_the_most_probable_path_and_skips_self_loops():
    # nodes: 0 topic film, 1 its director, 2 an actor; types 0/1 forward, 2/3 backward, 4 loop
    edges = np.array([[0, 0, 1, 2, 0, 1, 2],
                      [0, 1, 2, 3, 4, 4, 4],
                      [1, 2, 0, 0, 0, 1, 2]])
    weights = [np.array([0.9, 0.05, 0.0, 0.0, 0.05]), np.array([0.02, 0.02, 0.0, 0.0, 0.96])]
    types = decode_path(weights, edges, end=1)
    assert types == [0, 4]
    assert program_of("Heat", types, RELATIONS) == QueryName(
        input=Relate(input=Find(name="Heat"), relation="directed_by",
                     direction=Direction.FORWARD))
    assert program_of("Al Pacino", [3], RELATIONS).input.direction == Direction.BACKWARD
    assert decode_path(weights, edges, end=2) == [1, 4]


def test_thresholded_set_excludes_the_topic_and_keeps_the_nodes_near_the_best():
    assert thresholded(np.array([1.0, 0.9, 0.6, 0.05])) == [1, 2]
    assert thresholded(np.array([1.0, 0.2, 0.09, 0.15])) == [1, 3]
    assert thresholded(np.array([0.0, 0.001, 0.0])) == [1]
    assert thresholded(np.array([1.0, 0.0, 0.0])) == [1]


@pytest.mark.whole_kb
def test_subgraph_has_the_topic_first_and_respects_the_cap(tmp_path):
    graph = graph_of(api.load_kb(KB, schema="metaqa"))
    retriever = Retriever(graph, hops=2, size=50, cache_dir=tmp_path)
    nodes, edges = retriever.subgraph("The Matrix")
    assert graph.names[nodes[0]] == "The Matrix" and len(nodes) <= 51
    assert edges[1].max() == graph.n_types - 1 and edges[[0, 2]].max() < len(nodes)
    retriever.prepare(["Heat"])
    assert "Heat" in Retriever(graph, hops=2, size=50, cache_dir=tmp_path).cache
    assert link_topic(graph, "who directed the matrix") == "The Matrix"
    # "language" is a KB name too (a tag); the linker takes the film the question names
    assert link_topic(graph, "what language is the film Heat in") == "Heat"
    assert link_topic(graph, "who wrote [Heat]") == "Heat"


@pytest.mark.train
def test_tiny_model_programs_parse_type_check_and_run():
    folder, _ = tiny_model()
    frontend, kb = api.open_frontend("gnn", model=folder), api.load_kb(KB, schema="metaqa")
    questions = eval_file().read_text().splitlines()[:8]
    for line in questions:
        result = api.compile(line.split("\t")[1], kb, frontend)
        program = api.print_program(result.program, result.syntax)
        report = api.check(program, "kopl-nested")
        assert report.ok, (program, report.diagnostics)
        notes = result.provenance.notes
        assert notes["faithful"] == (set(notes["program_answers"]) == set(notes["gnn_answers"]))
        assert result.answers and result.sparql and result.seconds["reasoning"] > 0


@pytest.mark.train
def test_cli_compile_prints_program_sparql_and_answer(tmp_path, capsys):
    folder, _ = tiny_model()
    question = tmp_path / "question.txt"
    question.write_text("who directed [The Matrix]\n")
    assert main(["compile", str(question), "--frontend", "gnn", "--kb", str(KB),
                 "--schema", "metaqa", "--model", str(folder)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("program:\nQueryName(")
    assert "SPARQL:\n" in out and "answer:\n" in out
