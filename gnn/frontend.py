"""The GNN front end end to end: train on MetaQA files, evaluate, and answer questions behind
the FrontEnd protocol."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path

from koplc.gnn import checkpoint
from koplc.gnn.data import Tokenizer, build_examples, read_files, type_consistent, without
from koplc.gnn.emit import Prediction, predict
from koplc.gnn.errors import GnnError
from koplc.gnn.model import Config
from koplc.gnn.subgraph import Retriever, graph_of
from koplc.gnn.train import evaluate, run_model, train
from koplc.kopl.answering.per_kb import PerKB
from koplc.kopl.datasets.metaqa import Question
from koplc.kopl.frontend import Compiled, Provenance, Settings


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
    return state, setup_for(kb, state, folder)


def setup_for(kb, state: dict, folder: str | Path) -> Setup:
    """The setup to run the loaded model `state` on `kb`; GnnError when the model was trained
    on a KB with other relations."""
    config = state["reasoner"].config
    parts = setup(kb, config, Path(folder))
    if parts.graph.relations != state["relations"] or parts.graph.n_types != config.n_types:
        raise GnnError(f"{folder}: the model was trained on a KB with other relations",
                       code="gnn-checkpoint-corrupt")
    return parts


def eval_model(kb, folder: str | Path, data_files: list) -> dict:
    """Hits@1/F1 per hop and faithfulness of the model in `folder` on `data_files`."""
    state, parts = load_model(kb, folder)
    return evaluate(state, kb, parts.graph, parts.retriever, parts.tokenizer,
                    read_files(data_files))


class GnnFrontEnd:
    """KBIGER behind the FrontEnd protocol: the GNN answers, and the program emitted along its
    most probable path answers too; the program's chain (walked without returning to the topic)
    wins when it holds the GNN's best answer."""

    name = "gnn"
    ranking = ("the GNN's score of each answer after its last reasoning step, highest first "
               "(answers only the emitted program finds follow, by name)")

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.state = checkpoint.load(self.folder)  # a missing or corrupt model fails here
        self.held = PerKB(lambda kb: setup_for(kb, self.state, self.folder))

    def setup(self, kb) -> Setup:
        """The graph, retriever and tokenizer for `kb`, kept for the last KB asked about (built
        during a question, they are its "setup" stage)."""
        return self.held.get(kb)

    def compile(self, question: str, kb) -> Compiled:
        """The program and answers for one question (topic in [brackets] or linked)."""
        seconds = self.held.setup_seconds(kb)
        text, parts = question.strip(), self.setup(kb)
        clock = time.perf_counter()
        try:
            [example] = build_examples([Question(None, text, "", frozenset(), "question")],
                                       parts.retriever, parts.tokenizer, keep_unreachable=True)
        except GnnError as err:
            seconds["retrieval"] = time.perf_counter() - clock
            return Compiled(text, self.name, "kopl-nested", failure="link", error=err.render(),
                            seconds=seconds)
        seconds["retrieval"] = time.perf_counter() - clock
        clock = time.perf_counter()
        [(_, steps, weights)] = list(run_model(self.state["reasoner"], [example]))
        seconds["reasoning"] = time.perf_counter() - clock
        clock = time.perf_counter()
        prediction = predict(example, steps, weights, self.state["relations"],
                             parts.graph.names, kb, parts.graph)
        seconds["execution"] = time.perf_counter() - clock
        return compiled_of(text, prediction, seconds)


def compiled_of(text: str, prediction: Prediction, seconds: dict) -> Compiled:
    """A Prediction as a Compiled: answers ranked by the GNN's scores."""
    answers = prediction.answers
    ranked = [a for a in prediction.ranked if a in answers] + sorted(
        answers - set(prediction.ranked))
    notes = {"topic": prediction.topic, "faithful": prediction.faithful,
             "gnn_answers": list(prediction.ranked),
             "program_answers": sorted(prediction.program_answers or ()),
             "chain_answers": sorted(prediction.chain_answers or ())}
    by_program = answers != prediction.gnn_answers or answers in (
        prediction.program_answers, prediction.chain_answers)
    return Compiled(text, GnnFrontEnd.name, "kopl-nested", program=prediction.program,
                    grounded=prediction.program, answers=tuple(ranked),
                    failure=None if ranked else "empty",
                    error=None if ranked else "the GNN found no answer",
                    seconds=seconds,
                    provenance=Provenance("program" if by_program else "gnn", notes=notes))


def open_frontend(settings: Settings) -> GnnFrontEnd:
    """The GNN front end for the model folder `settings.model`."""
    if not settings.model:
        raise GnnError("--frontend gnn needs --model DIR (a trained GNN)", code="usage")
    return GnnFrontEnd(settings.model)
