"""Question subgraphs: the topic's n-hop neighbourhood, capped by personalised PageRank.

As in NSM/GraftNet preprocessing, the truncated PPR score of every node within `hops` of the
topic ranks the neighbourhood; the `size` best nodes (topic first) and the facts among them form
the subgraph. Edge types: relation r forward is r, backward is R + r, and 2R is a self-loop.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from koplc.gnn.errors import GnnError
from koplc.gnn.node_cache import NodeCache


@dataclass
class Graph:
    """The KB as arrays: forward triples (src, rel, dst), relation names, node names; and the
    KB itself, for linking questions to it."""

    src: np.ndarray
    rel: np.ndarray
    dst: np.ndarray
    relations: list[str]
    names: list[str]
    name_to_node: dict[str, int]
    kb: object = None

    @property
    def n_types(self) -> int:
        return 2 * len(self.relations) + 1

    @cached_property
    def typed(self) -> list[sp.csr_matrix]:
        """Per edge type but the self-loop, the KB's adjacency (row: source, column: target)."""
        n, n_rel = len(self.names), len(self.relations)
        out = []
        for kind in range(2 * n_rel):
            keep = self.rel == kind % n_rel
            s, d = (self.src[keep], self.dst[keep]) if kind < n_rel else \
                (self.dst[keep], self.src[keep])
            out.append(sp.csr_matrix((np.ones(len(s), dtype=np.int8), (s, d)), shape=(n, n)))
        return out


def graph_of(kb) -> Graph:
    """The forward relation facts of a koplc KB as arrays."""
    relations = sorted(kb.out_objects)
    src, rel, dst = [], [], []
    for r, relation in enumerate(relations):
        for subject, objects in kb.out_objects[relation].items():
            for obj in objects:
                src.append(subject)
                rel.append(r)
                dst.append(obj)
    name_to_node = {name: nodes[0] for name, nodes in kb.name_to_nodes.items()}
    return Graph(np.array(src, dtype=np.int64), np.array(rel, dtype=np.int64),
                 np.array(dst, dtype=np.int64), relations, list(kb.names), name_to_node, kb)


def link_topic(graph: Graph, text: str) -> str:
    """The topic of a question: its [bracketed] name, else the longest entity the KB's name
    lookup finds in it (the linking the LLM front end uses)."""
    from koplc.kopl.answering.linking import link_question

    marked = re.search(r"\[([^\]]+)\]", text)
    if marked:
        if marked.group(1) not in graph.name_to_node:
            raise GnnError(f"the topic [{marked.group(1)}] is not a KB name", code="gnn-no-topic")
        return marked.group(1)
    names = [n for n in link_question(text, graph.kb).entities if n in graph.name_to_node]
    if not names:
        raise GnnError(f"no KB entity name found in the question {text!r}",
                       code="gnn-no-topic")
    return max(names, key=len)


class Retriever:
    """Truncated personalised PageRank over the KB, batched over topics; the node sets are kept
    in a memory-mapped file in `cache_dir` (see node_cache)."""

    def __init__(self, graph: Graph, hops: int = 3, size: int = 2000, alpha: float = 0.2,
                 cache_dir: str | Path | None = None):
        self.graph, self.hops, self.size, self.alpha = graph, hops, size, alpha
        n = len(graph.names)
        rows = np.concatenate([graph.src, graph.dst])
        cols = np.concatenate([graph.dst, graph.src])
        adj = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
        degree = np.asarray(adj.sum(axis=0)).ravel()
        self.walk = (adj @ sp.diags(1.0 / np.maximum(degree, 1.0))).tocsr().astype(np.float32)
        key = np.concatenate([graph.src, graph.rel, graph.dst]).astype(np.int64).tobytes()
        digest = hashlib.blake2b(key + repr((hops, size, alpha)).encode(),
                                 digest_size=6).hexdigest()
        self.cache = NodeCache(None if cache_dir is None
                               else Path(cache_dir) / f"subgraphs-{digest}.bin")
        self._local = np.full(n, -1, dtype=np.int64)
        # the KB's edges grouped by source node, to gather a node set's edges without a scan
        self._by_src = np.argsort(graph.src, kind="stable")
        self._first = np.searchsorted(graph.src[self._by_src], np.arange(n + 1))

    def prepare(self, topics: list[str], batch: int = 256) -> None:
        """Compute (and cache) the node sets of every topic not yet known."""
        todo = sorted({t for t in topics if t not in self.cache})
        for start in range(0, len(todo), batch):
            chunk = todo[start:start + batch]
            seeds = [self.graph.name_to_node[t] for t in chunk]
            for topic, nodes in zip(chunk, self._ppr(seeds), strict=True):
                self.cache.add(topic, nodes)
        self.cache.flush()

    def _ppr(self, seeds: list[int]) -> list[np.ndarray]:
        mass = np.zeros((len(self.graph.names), len(seeds)), dtype=np.float32)
        mass[seeds, range(len(seeds))] = 1.0
        score = self.alpha * mass
        for _ in range(self.hops):
            mass = self.walk @ mass
            mass *= 1 - self.alpha
            score += self.alpha * mass
        score = np.ascontiguousarray(score.T)  # one row per seed
        out = []
        for seed, row in zip(seeds, score, strict=True):
            reached = np.flatnonzero(row > 0)
            if len(reached) > self.size + 1:  # the best size + 1 only, then ordered
                reached = reached[np.argpartition(-row[reached], self.size)[:self.size + 1]]
            best = reached[np.lexsort((reached, -row[reached]))]
            out.append(np.concatenate([[seed], best[best != seed][:self.size]]).astype(np.int64))
        return out

    def subgraph(self, topic: str) -> tuple[np.ndarray, np.ndarray]:
        """The topic's nodes (topic first) and its typed local edges (3 x E: src, type, dst)."""
        if topic not in self.cache:
            self.prepare([topic])
        nodes = self.cache.get(topic)
        starts, ends = self._first[nodes], self._first[nodes + 1]
        counts = ends - starts
        shift = np.repeat(starts - np.concatenate([[0], np.cumsum(counts)[:-1]]), counts)
        out = np.sort(self._by_src[shift + np.arange(int(counts.sum()))])  # KB order
        local = self._local
        local[nodes] = np.arange(len(nodes))
        s, d = local[self.graph.src[out]], local[self.graph.dst[out]]
        local[nodes] = -1
        keep = d >= 0
        s, d, r = s[keep], d[keep], self.graph.rel[out[keep]]
        n_rel, loop = len(self.graph.relations), np.arange(len(nodes))
        edges = np.stack([np.concatenate([s, d, loop]),
                          np.concatenate([r, r + n_rel, np.full(len(nodes), 2 * n_rel)]),
                          np.concatenate([d, s, loop])])
        return nodes, edges.astype(np.int32)


def depths(n: int, edges: np.ndarray) -> np.ndarray:
    """Hop distance of every local node from the topic (node 0); n + 1 where unreachable."""
    depth = np.full(n, n + 1, dtype=np.int64)
    depth[0] = 0
    src, dst = edges[0], edges[2]
    for hop in range(1, n):
        frontier = depth[src] == hop - 1
        reached = dst[frontier]
        reached = reached[depth[reached] > hop]
        if not len(reached):
            break
        depth[reached] = hop
    return depth
