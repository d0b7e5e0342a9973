"""KBIGER (Du et al.): iterative instruction generation and reasoning over a question subgraph.

Equation numbers follow the paper. Instructions attend over the BiLSTM question tokens given the
previous instruction, the question and, unless `feedback` is off, the reasoning graph aggregated
by the previous entity distribution (eqs. 1-6). Entities start from their incident relations
(eq. 7); each step matches relations with the instruction and moves the distribution along the
edges (eqs. 8-11). `reverse` reasons over inverted edges (the teacher's backward pass).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence


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
    size: int = 400
    lam: float = 0.05

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class Trace:
    """One reasoning run: log-distributions after each step and the token attentions."""

    log_probs: list[torch.Tensor]
    attentions: list[torch.Tensor]


class KBIGER(nn.Module):
    """The student (or one direction of the teacher) network."""

    def __init__(self, config: Config, words: torch.Tensor | None = None):
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
        self.update = nn.Linear(2 * d, d)                        # eq. 11
        self.score = nn.Linear(d, 1)                             # eq. 11

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
        """Reason `steps` hops from the distribution `start` (B x N)."""
        states, question = self.encode(batch.tokens, batch.token_mask)
        size = start.shape[1]
        src, kinds, dst = batch.edges
        if reverse:
            n_rel = (self.config.n_types - 1) // 2
            src, dst = dst, src
            kinds = torch.where(kinds < n_rel, kinds + n_rel,
                                torch.where(kinds < 2 * n_rel, kinds - n_rel, kinds))
        relation = self.relations(kinds)
        flat = start.numel()
        entity = torch.relu(torch.zeros(flat, relation.shape[1]).index_add(
            0, dst, self.init_entity(relation)))                            # eq. 7
        owner = src // size
        token_mask = batch.token_mask
        prob = start
        instruction = torch.zeros_like(question)
        graph = torch.zeros_like(question)
        trace = Trace([], [])
        for k in range(steps or self.config.steps):
            query = self.step_query[k](torch.cat([instruction, question, graph], -1))  # eq. 1-2
            logits = self.attend(query[:, None] * states).squeeze(-1)                 # eq. 3-4
            attention = torch.softmax(logits.masked_fill(~token_mask, -1e9), -1)
            instruction = (attention[..., None] * states).sum(1)                       # eq. 5
            matched = torch.relu(instruction[owner] * self.match(relation))            # eq. 8
            message = prob.reshape(-1)[src, None] * matched                            # eq. 9
            gathered = torch.zeros_like(entity).index_add(0, dst, message)             # eq. 10
            entity = torch.relu(self.update(torch.cat([entity, gathered], -1)))        # eq. 11
            scores = self.score(entity).view(-1, size)
            log_prob = torch.log_softmax(scores.masked_fill(~batch.node_mask, -1e9), -1)
            prob = log_prob.exp()
            if self.config.feedback:                                                    # eq. 6
                graph = (prob[..., None] * entity.view(-1, size, entity.shape[1])).sum(1)
            trace.log_probs.append(log_prob)
            trace.attentions.append(attention)
        return trace


class Reasoner(nn.Module):
    """The student plus, when `config.teacher`, a forward/backward teacher (eqs. 12-14)."""

    def __init__(self, config: Config, words: torch.Tensor | None = None):
        super().__init__()
        self.config = config
        self.student = KBIGER(config, words)
        self.teacher = KBIGER(config, words) if config.teacher else None

    def loss(self, batch) -> tuple[torch.Tensor, Trace]:
        """Student answer KL plus lambda x KL to the teacher's intermediate distributions,
        plus the teacher's own answer and forward/backward correspondence losses."""
        start = topic_distribution(batch)
        target = batch.answers / batch.answers.sum(1, keepdim=True).clamp(min=1)
        trace = self.student(batch, start)
        loss = kl(target, trace.log_probs[-1])
        if self.teacher is None:
            return loss, trace
        forward = self.teacher(batch, start)
        backward = self.teacher(batch, target, reverse=True)
        n = self.config.steps
        loss = loss + kl(target, forward.log_probs[-1]) + kl(start, backward.log_probs[-1])
        for k in range(n - 1):
            f, b = forward.log_probs[k], backward.log_probs[n - 2 - k]
            middle = 0.5 * (f.exp() + b.exp())
            loss = loss + self.config.lam * (kl(f.exp(), b) + kl(b.exp(), f))          # eq. 12
            loss = loss + self.config.lam * kl(middle.detach(), trace.log_probs[k])    # eq. 13-14
        return loss, trace


def topic_distribution(batch) -> torch.Tensor:
    """All mass on the topic, which is node 0 of every subgraph."""
    start = torch.zeros(batch.node_mask.shape)
    start[:, 0] = 1.0
    return start


def kl(target: torch.Tensor, log_prob: torch.Tensor) -> torch.Tensor:
    """Mean over the batch of KL(target || exp(log_prob))."""
    safe = target.clamp(min=1e-10)
    return (target * (safe.log() - log_prob)).sum(1).mean()
