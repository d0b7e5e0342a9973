"""A chain never passes through its topic again: in the network, the decoded path and the
answers, on a small hand-made KB of authors and papers (not MetaQA)."""

from __future__ import annotations

import numpy as np
import torch

from koplc.gnn.data import Example, collate
from koplc.gnn.emit import decode_path, predict
from koplc.gnn.model import KBIGER, Config
from koplc.gnn.subgraph import Graph, Retriever

# Ada wrote P1 and P3 (alone); Bob wrote P1 and P2; Cy wrote P2. "Papers by Ada's coauthors"
# is wrote, wrote backward, wrote: P1 and P2 through Bob; P3 only back through Ada herself.
NAMES = ["Ada", "Bob", "Cy", "P1", "P2", "P3"]
WROTE = [("Ada", "P1"), ("Ada", "P3"), ("Bob", "P1"), ("Bob", "P2"), ("Cy", "P2")]
RELATIONS = ["wrote"]
FWD, BACK, LOOP = 0, 1, 2


def authors() -> Graph:
    index = {n: i for i, n in enumerate(NAMES)}
    src = np.array([index[a] for a, _ in WROTE])
    dst = np.array([index[p] for _, p in WROTE])
    return Graph(src, np.zeros(len(WROTE), dtype=np.int64), dst, RELATIONS, NAMES, index)


def test_walk_does_not_reach_back_through_the_topic():
    from koplc import api
    from koplc.gnn.emit import program_of, walk

    kb = api.load_kb(write_kb())
    ada = program_of("Ada", [FWD, BACK, FWD], RELATIONS)
    assert walk(kb, ada, "Ada") == {"P1", "P2"}  # not P3: Ada -> P1 -> Ada -> P3
    assert walk(kb, program_of("Ada", [FWD, BACK], RELATIONS), "Ada") == {"Bob"}
    assert walk(kb, program_of("Ada", [LOOP, FWD, LOOP], RELATIONS), "Ada") == {"P1", "P3"}
    assert walk(kb, program_of("Cy", [FWD, BACK, FWD], RELATIONS), "Cy") == {"P1", "P2"}


def subgraph_example() -> tuple[Graph, Example]:
    graph = authors()
    nodes, edges = Retriever(graph, hops=3, size=10).subgraph("Ada")
    return graph, Example("papers by [Ada]'s coauthors", "Ada", [1, 2, 3], nodes, edges,
                          np.array([], dtype=np.int64), frozenset({"P1", "P2"}), 3)


def test_decoded_path_enters_the_topic_only_by_its_self_loop():
    graph, example = subgraph_example()
    local = {graph.names[n]: i for i, n in enumerate(example.nodes)}
    # step 2 favours going back to the authors, step 3 writing: the best path to P3 would be
    # Ada -> P1 -> Ada -> P3, which returns to the topic; the decoder must find another
    weights = [np.array([0.8, 0.1, 0.1]), np.array([0.1, 0.8, 0.1]), np.array([0.8, 0.1, 0.1])]
    types = decode_path(weights, example.edges, local["P3"])
    assert types != [FWD, BACK, FWD]
    assert decode_path(weights, example.edges, local["P2"]) == [FWD, BACK, FWD]


def test_network_lets_no_mass_back_into_the_topic():
    graph, example = subgraph_example()
    batch = collate([example])
    config = Config(vocab=8, n_types=graph.n_types, word_dim=8, dim=8, steps=3,
                    pretrained=False, name_prior=False, feedback=False)
    torch.manual_seed(0)
    start = torch.zeros(len(example.nodes))
    start[0] = 1.0
    with torch.no_grad():
        closed = KBIGER(config)
        opened = KBIGER(Config(**{**config.to_json(), "no_return": False}))
        opened.load_state_dict(closed.state_dict())
        shut, free = closed(batch, start), opened(batch, start)
    loop = [w[0, LOOP].item() for w in shut.weights]
    assert np.isclose(shut.scores[0][0].item(), loop[0])  # only the self-loop keeps the topic
    assert np.isclose(shut.scores[2][0].item(), np.prod(loop), rtol=1e-5)
    assert free.scores[2][0].item() > shut.scores[2][0].item()


def test_prediction_answers_follow_the_rule_while_the_program_is_the_plain_chain():
    from koplc import api

    graph, example = subgraph_example()
    local = {graph.names[n]: i for i, n in enumerate(example.nodes)}
    final = np.zeros(len(example.nodes))
    final[[local["P1"], local["P2"]]] = [1.0, 0.9]
    weights = [np.eye(3)[FWD], np.eye(3)[BACK], np.eye(3)[FWD]]
    kb = api.load_kb(write_kb())
    p = predict(example, [final] * 4, weights, RELATIONS, NAMES, kb, graph)
    assert p.program_answers == {"P1", "P2", "P3"}  # KoPL: no set difference
    assert p.chain_answers == {"P1", "P2"} and p.answers == {"P1", "P2"}


def write_kb():
    import tempfile
    from pathlib import Path

    path = Path(tempfile.mkdtemp(prefix="koplc-authors-")) / "authors.txt"
    path.write_text("".join(f"{a}|wrote|{p}\n" for a, p in WROTE), encoding="utf-8")
    return path
