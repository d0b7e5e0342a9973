"""Training and evaluation loops: progress bar, per-epoch checkpoints, resumable, a plot."""

from __future__ import annotations

import random
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from koplc.gnn import checkpoint
from koplc.gnn.data import (
    Tokenizer,
    collate,
    examples_of,
    linked,
    minilm_embeddings,
    relation_name_ids,
)
from koplc.gnn.emit import predict
from koplc.gnn.model import Config, Reasoner, topic_scores
from koplc.kopl.datasets.metaqa import f1


def train(examples: list, valid: list, folder: Path, config: Config, relations: list[str],
          *, epochs: int = 5, batch_size: int = 32, lr: float = 1e-3, seed: int = 0,
          progress: bool = True, log=None, tokenizer: Tokenizer | None = None) -> list[dict]:
    """Train (resuming from folder's checkpoint if there is one); returns the history.
    `tokenizer` spells the relation names for the name prior (loaded when not given)."""
    torch.manual_seed(seed)
    words = minilm_embeddings() if config.pretrained else None
    names = relation_name_ids(tokenizer or Tokenizer(), relations, config.n_types) \
        if config.name_prior else None
    reasoner = Reasoner(config, words, names)
    optimizer = torch.optim.Adam([p for p in reasoner.parameters() if p.requires_grad], lr=lr)
    history: list[dict] = []
    first = 0
    if (folder / checkpoint.NAME).is_file():
        state = checkpoint.load(folder)
        reasoner.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        history, first = state["history"], state["epoch"] + 1
    for epoch in range(first, epochs):
        started = time.time()
        reasoner.train()
        losses = []
        batches = bucketed(examples, batch_size, random.Random(seed + epoch))
        bar = tqdm(batches, desc=f"epoch {epoch + 1}/{epochs}", disable=not progress)
        for chunk in bar:
            batch = collate(chunk)
            loss, _ = reasoner.loss(batch)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(reasoner.parameters(), 1.0)
            optimizer.step()
            losses.append(loss.item())
            bar.set_postfix(loss=f"{np.mean(losses[-50:]):.3f}")
        metrics = hits_at_1(reasoner, valid, batch_size) if valid else {}
        history.append({"epoch": epoch + 1, "loss": float(np.mean(losses)),
                        "first_loss": float(np.mean(losses[:5])),
                        "last_loss": float(np.mean(losses[-5:])), "seconds": time.time() - started,
                        **metrics})
        checkpoint.save(folder, reasoner, optimizer, epoch, history, relations)
        plot(history, folder / "training.png")
        if log:
            log(history[-1])
    return history


def bucketed(examples: list, batch_size: int, rng: random.Random) -> list[list]:
    """Shuffled batches of similar subgraph sizes (so batches cost about the same)."""
    order = list(range(len(examples)))
    rng.shuffle(order)
    span = batch_size * 20
    batches = []
    for start in range(0, len(order), span):
        window = sorted(order[start:start + span], key=lambda i: len(examples[i].nodes))
        batches += [[examples[i] for i in window[j:j + batch_size]]
                    for j in range(0, len(window), batch_size)]
    rng.shuffle(batches)
    return batches


@torch.no_grad()
def run_model(reasoner: Reasoner, examples: list, batch_size: int = 64):
    """Yield (example, [start, s1, ..., sn], [w1, ..., wn]) as numpy for every example: the
    node scores at the start and after each step, and each step's edge-type weights."""
    reasoner.eval()
    examples = sorted(examples, key=lambda e: len(e.nodes))
    for start in range(0, len(examples), batch_size):
        chunk = examples[start:start + batch_size]
        batch = collate(chunk)
        begin = topic_scores(batch)
        trace = reasoner.student(batch, begin)
        steps = [s.numpy() for s in [begin, *trace.scores]]
        weights = [w.numpy() for w in trace.weights]
        for b, example in enumerate(chunk):
            lo, hi = batch.offsets[b], batch.offsets[b + 1]
            yield example, [s[lo:hi] for s in steps], [w[b] for w in weights]


def hits_at_1(reasoner: Reasoner, examples: list, batch_size: int = 64) -> dict:
    """Hits@1 of the top non-topic entity against the subgraph answers."""
    hits = [float(np.argmax(steps[-1][1:]) + 1 in set(e.answers.tolist()))
            for e, steps, _ in run_model(reasoner, examples, batch_size)]
    return {"valid_hits1": float(np.mean(hits))}


def evaluate(state: dict, kb, graph, retriever, tokenizer, questions: list,
             batch_size: int = 64, progress: bool = False) -> dict:
    """Hits@1 and F1 per hop for the GNN, the emitted program and the front end's answer;
    faithfulness. Streams: the subgraphs of one batch at a time are in memory."""
    pairs = linked(questions, graph, strict=True)
    retriever.prepare([topic for _, topic in pairs])
    return summary(scored(state, kb, graph, retriever, tokenizer, pairs, batch_size, progress))


def scored(state: dict, kb, graph, retriever, tokenizer, pairs: list, batch_size: int = 64,
           progress: bool = False) -> list[tuple[int, dict, str]]:
    """(hops, metrics, question text) of each linked (question, topic) pair whose node set is
    prepared, in subgraph-size order (batches of similar cost)."""
    pairs = sorted(pairs, key=lambda pair: (retriever.cache.size(pair[1]), pair[1]))
    rows = []
    bar = tqdm(total=len(pairs), desc="eval", disable=not progress, mininterval=2)
    for start in range(0, len(pairs), batch_size):
        examples = examples_of(pairs[start:start + batch_size], retriever, tokenizer,
                               keep_unreachable=True)
        for example, steps, weights in run_model(state["reasoner"], examples, batch_size):
            p = predict(example, steps, weights, state["relations"], graph.names, kb, graph)
            rows.append((example.hops, scores_of(p, example), example.text))
        bar.update(len(examples))
    bar.close()
    return rows


def summary(rows: list[tuple]) -> dict:
    """Per hop and over all: the count and the mean of each metric, in percent (rows: hops and
    metrics first, as `scored` gives them)."""
    groups: dict[str, list] = defaultdict(list)
    for hops, row, *_ in rows:
        groups[f"{hops}-hop"].append(row)
        groups["all"].append(row)
    return {key: {"n": len(r), **{m: round(100 * float(np.mean([x[m] for x in r])), 2)
                                  for m in r[0]}} for key, r in sorted(groups.items())}


def scores_of(p, example) -> dict:
    """One question's metrics: the GNN's (hits1, f1), the KoPL program's, the front end's answer
    (final_f1), faithfulness, whether the subgraph holds a gold answer."""
    gold = example.gold
    return {"hits1": float(p.top in gold), "f1": f1(p.gnn_answers, gold),
            "program_hits1": float(bool(p.program_answers) and p.top in gold
                                   and p.top in p.program_answers),
            "program_f1": f1(p.program_answers or frozenset(), gold),
            "final_f1": f1(p.answers, gold), "faithful": float(p.faithful),
            "program_exact": float(p.program_answers == gold),
            "reachable": float(len(example.answers) > 0)}


def plot(history: list[dict], path: Path) -> None:
    """Loss and validation Hits@1 per epoch, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    epochs = [h["epoch"] for h in history]
    figure, left = plt.subplots(figsize=(6, 4))
    left.plot(epochs, [h["loss"] for h in history], "o-", color="tab:red", label="train loss")
    left.set_xlabel("epoch")
    left.set_ylabel("loss")
    if "valid_hits1" in history[0]:
        right = left.twinx()
        right.plot(epochs, [h["valid_hits1"] for h in history], "s-", color="tab:blue")
        right.set_ylabel("validation Hits@1")
    figure.tight_layout()
    tmp = path.with_name(f".{path.name}.tmp.png")
    figure.savefig(tmp)
    plt.close(figure)
    tmp.replace(path)
