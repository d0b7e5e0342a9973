"""KBIGER (Du et al.): iterative instruction generation and reasoning over a question subgraph.

Equation numbers follow the paper. Instructions attend over the BiLSTM question tokens given the
previous instruction, the question and, unless `feedback` is off, the reasoning graph aggregated
by the previous entity distribution (eqs. 1-6). Entities start from their incident relations (eq.
7). Relation matching (eq. 8) is made explicit: each instruction scores every edge type, the
self-loop included, with a softmax (plus, unless `name_prior` is off, the similarity of the attended
question words to the relation's name in MiniLM's word space); a node's score is the
instruction-weighted mass its incoming edges carry (eqs. 9-10, capped at 1), and entity states take
the matched relation messages (eq. 11). Because every step's relation weighting is explicit, the
emitted program (the best relation per step) computes what the network computes. `reverse` reasons
over inverted edges (the teacher's backward pass, eqs. 12-14). A question whose relation path is
known (one explored from the KB: `gnn/pool_data.py`) also teaches each step its edge type
directly (`path_loss`, weighted by `path_weight`), the path standing in for the teacher's
intermediate distributions. With `content_words`, the question is read without its function words
(`data.content_words`), so that the pool's readings and people's phrasings share their input. With `no_return` (the default), a
forward chain never enters its topic again from another node: a k-hop answer is not reached back
through the topic (MetaQA's 3-hop gold sets follow this rule exactly).

Batches are flat: the subgraphs' nodes are concatenated, `owner` maps a node to its question,
and every per-edge computation is a scalar index_add over the real edges only: messages are
summed per (node, edge type) and then multiplied by the relation vectors (N x T @ T x d), never
materialised per edge.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

EPS = 1e-6


@dataclass
class Config:
    """Sizes and switches of a KBIGER model and its training."""

    vocab: int = 30522
    n_types: int = 19
    word_dim: int = 384
    dim: int = 64
    steps: int = 3
    feedback: bool = True
    teacher: bool = True
    pretrained: bool = True
    hops: int = 3
    size: int = 2000
    lam: float = 0.05
    name_prior: bool = True
    no_return: bool = True
    path_weight: float = 10.0
    content_words: bool = False

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class Trace:
    """One reasoning run: node scores in [0, 1] after each step (flat, N), the edge-type weights
    (B x T) and the token attentions (B x L) of each step."""

    scores: list[torch.Tensor]
    weights: list[torch.Tensor]
    attentions: list[torch.Tensor]


def inverse_types(kinds: torch.Tensor, n_types: int) -> torch.Tensor:
    """Forward r <-> backward R + r; the self-loop (2R) stays."""
    n_rel = (n_types - 1) // 2
    return torch.where(kinds < n_rel, kinds + n_rel,
                       torch.where(kinds < 2 * n_rel, kinds - n_rel, kinds))


class KBIGER(nn.Module):
    """The student (or one direction of the teacher) network."""

    def __init__(self, config: Config, words: torch.Tensor | None = None,
                 name_ids: torch.Tensor | None = None):
        super().__init__()
        self.config = config
        d = config.dim
        self.words = nn.Embedding(config.vocab, config.word_dim, padding_idx=0)
        if words is not None:
            self.words.weight.data.copy_(words)
        self.words.weight.requires_grad = not config.pretrained
        self.lstm = nn.LSTM(config.word_dim, d // 2, batch_first=True, bidirectional=True)
        self.relations = nn.Embedding(config.n_types, d)
        self.init_entity = nn.Linear(d, d)                       # W_T, eq. 7
        self.step_query = nn.ModuleList(nn.Linear(3 * d, d) for _ in range(config.steps))
        self.attend = nn.Linear(d, 1)                            # W_alpha, eq. 4
        self.match = nn.Linear(d, d)                             # W_R, eq. 8
        self.message = nn.Linear(d, d)                           # eq. 9
        self.update = nn.Linear(2 * d, d)                        # eq. 11
        if config.name_prior:
            # word-piece ids of each edge type's relation name (0-padded; the self-loop has none)
            self.register_buffer("name_ids", name_ids if name_ids is not None
                                 else torch.zeros(config.n_types, 8, dtype=torch.long))
            self.prior_scale = nn.Parameter(torch.tensor(5.0))

    def name_prior(self, attention: torch.Tensor, tokens: torch.Tensor,
                   embedded: tuple | None = None) -> torch.Tensor:
        """B x T: cosine between the words the instruction attends to and each edge type's
        relation name, in the word-embedding space ("wrote" near "written", "genre" near
        "has genre"), scaled by a learnt factor. `embedded`: `self.embedded(tokens)`, when a
        caller asks for several steps of one batch."""
        words, names = embedded or self.embedded(tokens)
        attended = (attention[..., None] * words).sum(1)
        return self.prior_scale * nn.functional.cosine_similarity(
            attended[:, None, :], names[None], dim=-1, eps=EPS)

    def embedded(self, tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The tokens' word vectors (B x L x w) and each edge type's mean name vector (T x w)."""
        real = (self.name_ids != 0).float()  # not the padding (MiniLM's [PAD] is no zero row)
        names = (self.words(self.name_ids) * real[..., None]).sum(1)
        return self.words(tokens), names / real.sum(1, keepdim=True).clamp(min=1)

    def encode(self, tokens: torch.Tensor, mask: torch.Tensor):
        """Token states h_j (B x L x d) and the question vector q (B x d)."""
        lengths = mask.sum(1).clamp(min=1).cpu()
        packed = pack_padded_sequence(self.words(tokens), lengths, batch_first=True,
                                      enforce_sorted=False)
        out, (last, _) = self.lstm(packed)
        states, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True,
                                                     total_length=tokens.shape[1])
        return states, torch.cat([last[0], last[1]], dim=-1)

    def forward(self, batch, start: torch.Tensor, reverse: bool = False,
                steps: int | None = None) -> Trace:
        """Reason `steps` hops from the node scores `start` (flat, N)."""
        states, question = self.encode(batch.tokens, batch.token_mask)
        src, kinds, dst = batch.edges
        if reverse:
            src, dst, kinds = dst, src, inverse_types(kinds, self.config.n_types)
        relation = self.relations.weight
        n, n_types, owner = start.shape[0], relation.shape[0], batch.owner
        edge_owner = owner[dst]
        if self.config.no_return and not reverse:
            # a chain never passes through its topic again: no mass enters a topic from another
            # node (its self-loop, staying put, stays open)
            is_topic = torch.zeros(n, dtype=torch.bool)
            is_topic[batch.topics] = True
            open_edge = (~(is_topic[dst] & (src != dst))).float()
        else:
            open_edge = None
        slot = dst * n_types + kinds  # (node, incoming edge type): per-type sums are N x T
        incident = torch.zeros(n * n_types).index_add_(0, slot, torch.ones(len(dst)))
        incident = incident.view(n, n_types)
        degree = incident.sum(1, keepdim=True).clamp(min=1)
        entity = torch.relu(incident @ self.init_entity(relation) / degree)              # eq. 7
        embedded = self.embedded(batch.tokens) if self.config.name_prior else None
        score = start
        instruction = torch.zeros_like(question)
        graph = torch.zeros_like(question)
        trace = Trace([], [], [])
        for k in range(steps or self.config.steps):
            query = self.step_query[k](torch.cat([instruction, question, graph], -1))  # eq. 1-2
            logits = self.attend(query[:, None] * states).squeeze(-1)                 # eq. 3-4
            attention = torch.softmax(logits.masked_fill(~batch.token_mask, -1e9), -1)
            instruction = (attention[..., None] * states).sum(1)                       # eq. 5
            type_logits = self.match(instruction) @ relation.T                         # eq. 8
            if self.config.name_prior:
                type_logits = type_logits + self.name_prior(attention, batch.tokens, embedded)
            weights = torch.softmax(type_logits, -1)
            flow = score[src] * weights[edge_owner, kinds]                             # eq. 9
            if open_edge is not None:
                flow = flow * open_edge
            typed = torch.zeros(n * n_types).index_add(0, slot, flow).view(n, n_types)
            mass = typed.sum(1)                                                        # eq. 10
            score = mass - (mass - mass.clamp(max=1.0)).detach()  # min(1, .), gradient kept
            gathered = typed @ self.message(relation)
            entity = torch.relu(self.update(torch.cat([entity, gathered], -1)))        # eq. 11
            if self.config.feedback:                                                    # eq. 6
                p = distribution(score, batch)
                graph = torch.zeros_like(question).index_add(0, owner, p[:, None] * entity)
            trace.scores.append(score)
            trace.weights.append(weights)
            trace.attentions.append(attention)
        return trace


class Reasoner(nn.Module):
    """The student plus, when `config.teacher`, a forward/backward teacher (eqs. 12-14)."""

    def __init__(self, config: Config, words: torch.Tensor | None = None,
                 name_ids: torch.Tensor | None = None):
        super().__init__()
        self.config = config
        self.student = KBIGER(config, words, name_ids)
        self.teacher = KBIGER(config, words, name_ids) if config.teacher else None

    def loss(self, batch) -> tuple[torch.Tensor, Trace]:
        """Student answer loss plus lambda x KL to the teacher's intermediate distributions,
        plus the teacher's own answer and forward/backward correspondence losses."""
        start = topic_scores(batch)
        trace = self.student(batch, start)
        loss = answer_loss(trace.scores[-1], batch.answers, batch, skip_topic=True)
        if getattr(batch, "paths", None) is not None and self.config.path_weight:
            loss = loss + self.config.path_weight * path_loss(trace.weights, batch.paths)
        if self.teacher is None:
            return loss, trace
        forward = self.teacher(batch, start)
        backward = self.teacher(batch, batch.answers, reverse=True)
        loss = loss + answer_loss(forward.scores[-1], batch.answers, batch, skip_topic=True)
        loss = loss + answer_loss(backward.scores[-1], start, batch, skip_topic=False)
        n = self.config.steps
        for k in range(n - 1):
            f = distribution(forward.scores[k], batch)
            b = distribution(backward.scores[n - 2 - k], batch)
            loss = loss + self.config.lam * (kl(f, b, batch) + kl(b, f, batch))         # eq. 12
            middle = (0.5 * (f + b)).detach()
            student = distribution(trace.scores[k], batch)
            loss = loss + self.config.lam * kl(middle, student, batch)                 # eq. 13-14
        return loss, trace


class Ensemble(nn.Module):
    """Reasoners trained alike from different seeds, read as one: each reasoning step's node
    scores, edge-type weights and token attentions are the members' means. Trained from an
    explored pool, a single network's multi-hop accuracy moves by up to 20 points from seed to
    seed; the members' mean is steadier and, on MetaQA dev's tune half, better than their
    mean accuracy (docs/results.md)."""

    def __init__(self, members: list[Reasoner]):
        super().__init__()
        self.members = nn.ModuleList(members)
        self.config = members[0].config
        self.student = _Averaged([m.student for m in members])


class _Averaged(nn.Module):
    """The members' students run on one batch, their traces averaged step by step."""

    def __init__(self, students: list[KBIGER]):
        super().__init__()
        self.students = nn.ModuleList(students)

    def forward(self, batch, start: torch.Tensor, reverse: bool = False,
                steps: int | None = None) -> Trace:
        traces = [student(batch, start, reverse, steps) for student in self.students]

        def mean(per_member: list[list[torch.Tensor]]) -> list[torch.Tensor]:
            return [torch.stack(step).mean(0) for step in zip(*per_member, strict=True)]

        return Trace(mean([t.scores for t in traces]), mean([t.weights for t in traces]),
                     mean([t.attentions for t in traces]))


def topic_scores(batch) -> torch.Tensor:
    """Score 1 on each question's topic (the first node of its subgraph), 0 elsewhere."""
    start = torch.zeros(batch.owner.shape[0])
    start[batch.topics] = 1.0
    return start


def per_question(values: torch.Tensor, batch) -> torch.Tensor:
    """Sum of node values per question (B)."""
    return torch.zeros(batch.tokens.shape[0]).index_add(0, batch.owner, values)


def distribution(score: torch.Tensor, batch) -> torch.Tensor:
    """Node scores normalised per question."""
    return score / (per_question(score, batch)[batch.owner] + EPS)


def answer_loss(score: torch.Tensor, target: torch.Tensor, batch, skip_topic: bool):
    """Binary cross-entropy summed over each question's nodes, averaged over questions."""
    p = score.clamp(EPS, 1 - EPS)
    loss = -(target * p.log() + (1 - target) * (1 - p).log())
    if skip_topic:
        loss = loss.index_fill(0, batch.topics, 0.0)
    return per_question(loss, batch).mean()


def path_loss(weights: list[torch.Tensor], paths: torch.Tensor) -> torch.Tensor:
    """Negative log weight of the edge type each step should follow, summed over the steps and
    averaged over the questions with a path (paths: B x steps, -1 where unknown): a known
    relation path teaches every step."""
    known = paths[:, 0] >= 0
    if not known.any():
        return weights[0].new_zeros(())
    total = weights[0].new_zeros(int(known.sum()))
    for k, step in enumerate(weights[:paths.shape[1]]):
        chosen = step[known].gather(1, paths[known, k].clamp(min=0)[:, None]).squeeze(1)
        total = total - (chosen + EPS).log() * (paths[known, k] >= 0).float()
    return total.mean()


def kl(target: torch.Tensor, predicted: torch.Tensor, batch) -> torch.Tensor:
    """Mean over questions of KL(target || predicted), both normalised per question."""
    terms = target * ((target + EPS).log() - (predicted + EPS).log())
    return per_question(terms, batch).mean()
