"""The GNN front end end to end: train on MetaQA files, evaluate, answer one question."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from koplc.gnn import checkpoint
from koplc.gnn.data import Tokenizer, build_examples, read_files, type_consistent, without
from koplc.gnn.emit import Prediction, predict
from koplc.gnn.errors import GnnError
from koplc.gnn.model import Config
from koplc.gnn.subgraph import Retriever, graph_of, link_topic
from koplc.gnn.train import evaluate, run_model, train
from koplc.kopl.metaqa import Question


@dataclass
class Setup:
    """A KB's graph, retriever and the tokenizer, shared by training and inference."""

    kb: object
    graph: object
    retriever: Retriever
    tokenizer: Tokenizer


def setup(kb, config: Config, cache_dir: Path | None) -> Setup:
    """Arrays, a cached PPR retriever and the tokenizer for `kb`."""
    graph = graph_of(kb)
    return Setup(kb, graph, Retriever(graph, config.hops, config.size, cache_dir=cache_dir),
                 Tokenizer())


def train_model(kb, train_files: list, out: Path, *, exclude: list = (), limit: int | None = None,
                epochs: int = 12, batch_size: int = 32, valid_fraction: float = 0.03,
                lr: float = 3e-3, seed: int = 0, progress: bool = True, log=None,
                type_filter: bool = True, **options) -> dict:
    """Train KBIGER on the questions of `train_files` minus those in `exclude` (and, with
    `type_filter`, minus those whose type's relation chain reaches none of their answers)."""
    out = Path(out)
    config = Config(**options)
    questions = without(read_files(train_files), read_files(list(exclude)))
    kept = type_consistent(questions, kb) if type_filter else questions
    mislabelled, questions = len(questions) - len(kept), kept
    random.Random(seed).shuffle(questions)
    if limit:
        questions = questions[:limit]
    parts = setup(kb, config, out)
    config.n_types = parts.graph.n_types
    config.vocab = parts.tokenizer.vocab_size
    examples = build_examples(questions, parts.retriever, parts.tokenizer)
    if not examples:
        raise GnnError("no training question has an answer in its subgraph", code="gnn-data")
    cut = max(1, int(len(examples) * valid_fraction))
    history = train(examples[cut:], examples[:cut], out, config, parts.graph.relations,
                    epochs=epochs, batch_size=batch_size, lr=lr, seed=seed, progress=progress,
                    log=log, tokenizer=parts.tokenizer)
    return {"questions": len(questions), "mislabelled": mislabelled, "examples": len(examples),
            "history": history}


def load_model(kb, folder: str | Path) -> tuple[dict, Setup]:
    """A trained model and the setup to run it on `kb`."""
    state = checkpoint.load(folder)
    config = state["reasoner"].config
    parts = setup(kb, config, Path(folder))
    if parts.graph.relations != state["relations"] or parts.graph.n_types != config.n_types:
        raise GnnError(f"{folder}: the model was trained on a KB with other relations",
                       code="gnn-checkpoint-corrupt")
    return state, parts


def eval_model(kb, folder: str | Path, data_files: list) -> dict:
    """Hits@1/F1 per hop and faithfulness of the model in `folder` on `data_files`."""
    state, parts = load_model(kb, folder)
    return evaluate(state, kb, parts.graph, parts.retriever, parts.tokenizer,
                    read_files(data_files))


def answer(kb, folder: str | Path, text: str) -> Prediction:
    """The emitted program and answers for one question (topic in [brackets] or linked)."""
    state, parts = load_model(kb, folder)
    topic = link_topic(parts.graph, text)
    question = Question(None, text, topic, frozenset(), "question")
    [example] = build_examples([question], parts.retriever, parts.tokenizer,
                               keep_unreachable=True)
    [(_, steps, weights)] = list(run_model(state["reasoner"], [example]))
    return predict(example, steps, weights, state["relations"], parts.graph.names, kb)
