"""The GNN front end end to end: train on MetaQA files, evaluate, and answer questions behind
the FrontEnd protocol (with a model folder, or the model trained from the KB's explored pool:
`pool_training`)."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, replace
from pathlib import Path

from koplc.gnn import checkpoint
from koplc.gnn.data import Tokenizer, build_examples, read_files, type_consistent, without
from koplc.gnn.emit import Prediction, predict
from koplc.gnn.errors import GnnError
from koplc.gnn.model import Config
from koplc.gnn.shapes import SHAPES, answered_shapes, handed_on
from koplc.gnn.subgraph import Retriever, graph_of
from koplc.gnn.train import evaluate, run_model, train
from koplc.kopl.answering.per_kb import PerKB
from koplc.kopl.answering.repairs.context import RepairContext
from koplc.kopl.answering.repairs.driver import repair
from koplc.kopl.answering.stages import run
from koplc.kopl.datasets.metaqa import Question
from koplc.kopl.frontend import Compiled, Provenance, Settings
from koplc.kopl.grounding.mentions import Linked


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
                 Tokenizer(config.content_words))


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


@dataclass(frozen=True)
class GnnOptions:
    """How the GNN front end finds its model: `model`, a trained folder; else the model trained
    from the KB's explored pool, in the user cache (`pool_training`), trained on first use when
    `train_if_missing` (with progress bars), else a GnnError saying what to run."""

    model: str | None = None
    train_if_missing: bool = False
    progress: bool = True


class GnnFrontEnd:
    """KBIGER behind the FrontEnd protocol: the GNN answers, and the program emitted along its
    most probable path answers too; the program's chain (walked without returning to the topic)
    wins when it holds the GNN's best answer. It answers the shapes of `shapes.SHAPES` (a count
    through the back half's answer-type repair) and hands the others on."""

    name = "gnn"
    ranking = ("the GNN's score of each answer after its last reasoning step, highest first "
               "(answers only the emitted program finds follow, by name)")
    shapes = SHAPES

    def __init__(self, folder: str | Path | None = None, options: GnnOptions | None = None):
        self.options = options or GnnOptions(model=str(folder) if folder else None)
        self.folder = Path(self.options.model) if self.options.model else None
        # a missing or corrupt model given by folder fails here
        self.state = checkpoint.load(self.folder) if self.folder else None
        self.held: PerKB[tuple[dict, Setup]] = PerKB(self._model_for)

    def _model_for(self, kb) -> tuple[dict, Setup]:
        if self.folder is not None and self.state is not None:
            return self.state, setup_for(kb, self.state, self.folder)
        folder = self._trained_folder(kb)
        state = checkpoint.load(folder)
        return state, setup_for(kb, state, folder)

    def _trained_folder(self, kb) -> Path:
        """The folder of the GNN trained from `kb`'s explored pool, trained now when asked."""
        from koplc.gnn.pool_training import ready_model, train_from_pool

        if not kb.source or not Path(kb.source).is_file():
            raise GnnError("--frontend gnn needs --model DIR, or a KB file to train from",
                           code="usage")
        try:
            return ready_model(kb.source)
        except GnnError as err:
            if not self.options.train_if_missing:
                raise
            fresh = err.diagnostics[0].code == "gnn-stale-model"
            train_from_pool(kb, kb.source, fresh=fresh, progress=self.options.progress)
            return ready_model(kb.source)

    def setup(self, kb) -> Setup:
        """The graph, retriever and tokenizer for `kb`, kept for the last KB asked about (built
        during a question, they are its "setup" stage)."""
        return self.held.get(kb)[1]

    def compile(self, question: str, kb) -> Compiled:
        """The program and answers for one question (topic in [brackets] or linked)."""
        seconds = self.held.setup_seconds(kb)
        (state, parts), text = self.held.get(kb), question.strip()
        clock = time.perf_counter()
        try:
            [example] = build_examples([Question(None, text, "", frozenset(), "question")],
                                       parts.retriever, parts.tokenizer, keep_unreachable=True)
        except GnnError as err:
            seconds["retrieval"] = time.perf_counter() - clock
            return Compiled(text, self.name, "kopl-nested", failure="link", error=err.render(),
                            seconds=seconds)
        seconds["retrieval"] = time.perf_counter() - clock
        why = handed_on(text, kb, example.topic)
        if why is not None:
            return Compiled(text, self.name, "kopl-nested", failure="unfit", seconds=seconds,
                            error=f"nothing found: {why}; the GNN answers {answered_shapes()}",
                            provenance=Provenance(notes={"topic": example.topic,
                                                         "handed_on": why}))
        clock = time.perf_counter()
        [(_, steps, weights)] = list(run_model(state["reasoner"], [example]))
        seconds["reasoning"] = time.perf_counter() - clock
        clock = time.perf_counter()
        prediction = predict(example, steps, weights, state["relations"],
                             parts.graph.names, kb, parts.graph)
        seconds["execution"] = time.perf_counter() - clock
        return finished(compiled_of(text, prediction, seconds), prediction, kb)


def finished(compiled: Compiled, prediction: Prediction, kb) -> Compiled:
    """The path's Compiled finished by the back half's repairs after a run: a question that
    asks how many gets the count of the path's answers (answer-type repair)."""
    linked = Linked(compiled.question, (prediction.topic,), (), ())
    ctx = RepairContext(linked, kb, answered=compiled.ok, switches=frozenset({"repair"}))
    seconds = dict(compiled.seconds)
    repaired = repair(prediction.program, ctx, "ran", lambda node: run(node, kb, seconds))
    if repaired.run is None:
        return compiled
    notes = {**compiled.provenance.notes, "path_answers": list(compiled.answers)}
    return replace(compiled, program=repaired.program, grounded=repaired.program,
                   answers=repaired.run.answers, seconds=seconds,
                   provenance=Provenance(repaired.by, repair=repaired.changes[-1]["op"],
                                         notes=notes))


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
                    error=None if ranked else "nothing found: the GNN's path reaches no answer",
                    seconds=seconds,
                    provenance=Provenance("program" if by_program else "gnn", notes=notes))


def open_frontend(settings: Settings) -> GnnFrontEnd:
    """The GNN front end: the model folder `settings.model`, else the model trained from the
    KB's explored pool (GnnOptions in `settings.options` say whether to train it when missing)."""
    options = settings.options if isinstance(settings.options, GnnOptions) else GnnOptions()
    if settings.model:
        options = replace(options, model=settings.model)
    return GnnFrontEnd(options=options)
