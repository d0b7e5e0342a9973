"""The memory-mapped subgraph cache: round trip, atomic writes, a damaged file is rebuilt."""

from __future__ import annotations

import numpy as np
import pytest

from koplc.gnn import node_cache
from koplc.gnn.node_cache import NodeCache
from koplc.gnn.subgraph import Graph, Retriever

SETS = {"Heat": np.array([5, 1, 2]), "Alien": np.array([0]), "Ré": np.array([3, 4, 0, 2])}


def cache_with(path, sets=SETS) -> NodeCache:
    cache = NodeCache(path)
    for topic, nodes in sets.items():
        cache.add(topic, nodes)
    cache.flush()
    return cache


def test_round_trip_is_memory_mapped_and_adds_topics(tmp_path):
    path = tmp_path / "subgraphs.bin"
    cache_with(path)
    again = NodeCache(path)
    assert isinstance(again.nodes, np.memmap) and not again.pending
    assert {t: again.get(t).tolist() for t in SETS} == {t: v.tolist() for t, v in SETS.items()}
    assert again.size("Ré") == 4 and "Heat" in again and "Up" not in again
    again.add("Up", np.array([7, 8]))
    again.flush()
    third = NodeCache(path)
    assert len(third) == 4 and third.get("Up").tolist() == [7, 8]
    assert third.get("Heat").dtype == np.int64


def test_no_path_keeps_everything_in_memory():
    cache = cache_with(None)
    assert cache.get("Heat").tolist() == [5, 1, 2] and len(cache) == 3


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "subgraphs.bin"
    cache_with(path)
    before = path.read_bytes()

    def broken(out, *args):
        out.write(b"KOPLCSG1 half a file")
        raise OSError("disk full")

    monkeypatch.setattr(node_cache, "_write", broken)
    cache = NodeCache(path)
    cache.add("Up", np.array([7]))
    with pytest.raises(OSError, match="disk full"):
        cache.flush()
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["subgraphs.bin"]


@pytest.mark.parametrize("damage", ["truncated", "flipped", "garbage", "empty"])
def test_a_damaged_file_is_ignored_and_rebuilt(tmp_path, damage):
    path = tmp_path / "subgraphs.bin"
    cache_with(path)
    data = bytearray(path.read_bytes())
    if damage == "truncated":
        data = data[:-3]
    elif damage == "flipped":
        data[-2] ^= 0xFF
    elif damage == "garbage":
        data = bytearray(b"\x00" * 64)
    else:
        data = bytearray()
    path.write_bytes(bytes(data))
    cache = NodeCache(path)
    assert cache.rejected and len(cache) == 0
    cache_with(path)
    assert NodeCache(path).get("Ré").tolist() == [3, 4, 0, 2]


def tiny_graph() -> Graph:
    # a path 0 - 1 - 2 - 3 and a star around 4
    src, rel, dst = np.array([0, 1, 2, 4, 4]), np.array([0, 0, 0, 1, 1]), np.array([1, 2, 3, 5, 6])
    names = [f"n{i}" for i in range(7)]
    return Graph(src, rel, dst, ["next", "near"], names, {n: i for i, n in enumerate(names)})


def test_retriever_rebuilds_a_partial_cache_file(tmp_path):
    graph = tiny_graph()
    retriever = Retriever(graph, hops=2, size=10, cache_dir=tmp_path)
    retriever.prepare(["n0", "n4"])
    [path] = tmp_path.glob("subgraphs-*.bin")
    expected = retriever.subgraph("n0")
    path.write_bytes(path.read_bytes()[:40])
    again = Retriever(graph, hops=2, size=10, cache_dir=tmp_path)
    assert again.cache.rejected and "n0" not in again.cache
    nodes, edges = again.subgraph("n0")
    assert nodes.tolist() == expected[0].tolist() and np.array_equal(edges, expected[1])
    assert Retriever(graph, hops=2, size=10, cache_dir=tmp_path).cache.index.keys() == {"n0"}
    assert sorted(graph.names[i] for i in nodes) == ["n0", "n1", "n2"]
