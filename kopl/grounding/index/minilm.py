"""The all-MiniLM-L6-v2 sentence encoder on plain torch: a 6-layer BERT, mean pooling over the
tokens, unit length. It gives sentence-transformers' vectors bit for bit (the same ops in the
same order, on batches sorted and padded the same way; tests/test_minilm.py checks it) while
loading in a fraction of the time, since neither transformers nor sentence-transformers is
imported.

This module imports torch: load it only when vectors are needed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.torch import load_file
from tokenizers import Tokenizer

MAX_TOKENS = 256  # the model's max_seq_length (sentence_bert_config.json)


class MiniLM:
    """A BERT encoder read from a sentence-transformers folder (config.json, tokenizer.json,
    model.safetensors)."""

    def __init__(self, folder: str | Path):
        folder = Path(folder)
        config = json.loads((folder / "config.json").read_text())
        self.layers = config["num_hidden_layers"]
        self.heads = config["num_attention_heads"]
        self.width = config["hidden_size"]
        self.eps = config["layer_norm_eps"]
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.no_padding()
        self.weights = load_file(str(folder / "model.safetensors"))

    def encode(self, texts: list[str], batch_size: int = 256) -> np.ndarray:
        """An (n, width) float32 array of unit vectors; texts are batched longest first."""
        order = np.argsort([-len(t) for t in texts])
        rows = []
        with torch.inference_mode():
            for start in range(0, len(texts), batch_size):
                batch = [texts[i] for i in order[start:start + batch_size]]
                rows.extend(self._embed(batch))
        out = [rows[k] for k in np.argsort(order)]  # rows follow `order`; argsort inverts it
        return torch.stack(out).numpy() if out else np.zeros((0, self.width), np.float32)

    def _ids(self, texts: list[str]):
        encodings = self.tokenizer.encode_batch(texts)
        length = max(len(e.ids) for e in encodings)
        ids = torch.zeros((len(texts), length), dtype=torch.long)
        mask = torch.zeros((len(texts), length), dtype=torch.long)
        for row, e in enumerate(encodings):
            ids[row, :len(e.ids)] = torch.tensor(e.ids)
            mask[row, :len(e.ids)] = 1
        return ids, mask

    def _embed(self, texts: list[str]):
        w = self.weights
        ids, mask = self._ids(texts)
        n, length = ids.shape
        x = (F.embedding(ids, w["embeddings.word_embeddings.weight"])
             + F.embedding(torch.zeros_like(ids), w["embeddings.token_type_embeddings.weight"]))
        x = x + F.embedding(torch.arange(length).expand(1, -1),
                            w["embeddings.position_embeddings.weight"])
        x = self._norm(x, "embeddings.LayerNorm")
        # No mask when nothing is padded (as transformers does), so sdpa may take its fast path.
        attend = None
        if not bool(mask.all()):
            attend = mask.bool()[:, None, None, :].expand(n, 1, length, length).contiguous()
        for i in range(self.layers):
            x = self._layer(x, attend, f"encoder.layer.{i}.")
        weights = mask.unsqueeze(-1).to(x.dtype)
        total = (x * weights).sum(dim=1, dtype=x.dtype)
        count = torch.clamp(weights.sum(dim=1, dtype=x.dtype), min=1e-9)
        pooled = F.normalize(total / count, p=2, dim=-1)
        # sentence-transformers normalizes again when asked for unit vectors; so do we.
        return F.normalize(pooled, p=2, dim=1)

    def _layer(self, x, attend, p: str):
        n, length, _ = x.shape
        size = self.width // self.heads

        def heads(name):
            return self._linear(x, p + name).view(n, length, -1, size).transpose(1, 2)

        a = F.scaled_dot_product_attention(
            heads("attention.self.query"), heads("attention.self.key"),
            heads("attention.self.value"), attn_mask=attend, dropout_p=0.0,
            scale=size ** -0.5, is_causal=False)
        a = a.transpose(1, 2).contiguous().reshape(n, length, -1).contiguous()
        h = self._norm(self._linear(a, p + "attention.output.dense") + x,
                       p + "attention.output.LayerNorm")
        inner = F.gelu(self._linear(h, p + "intermediate.dense"))
        return self._norm(self._linear(inner, p + "output.dense") + h, p + "output.LayerNorm")

    def _linear(self, x, name: str):
        return F.linear(x, self.weights[name + ".weight"], self.weights[name + ".bias"])

    def _norm(self, x, name: str):
        return F.layer_norm(x, (self.width,), self.weights[name + ".weight"],
                            self.weights[name + ".bias"], self.eps)
