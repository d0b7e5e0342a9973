"""A local Hugging Face causal LM (a model folder, never a hub download), on CUDA when present."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from koplc.kopl.errors import KoplcError
from koplc.llm.lm.repeats import before_repeat
from koplc.llm.lm.response_cache import ResponseCache, cached


class TransformersLM:
    """Completion and scoring with transformers; grammars are not supported (ignored)."""

    def __init__(self, folder: str | Path, *, device: str | None = None, seed: int = 0,
                 cache: ResponseCache | None = None):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.folder = Path(folder)
        self.name = f"transformers:{self.folder.resolve()}"
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(self.folder, local_files_only=True)
            self.model = AutoModelForCausalLM.from_pretrained(self.folder,
                                                              local_files_only=True)
        except (OSError, ValueError) as err:
            raise KoplcError(f"cannot load a Hugging Face model from {self.folder}: {err}",
                             code="lm-load") from err
        self.model.to(self.device).eval()
        self.seed, self.cache = seed, cache

    def generate(self, prompt: str, n: int = 1, temperature: float = 0.0, top_k: int = 40,
                 stop: Sequence[str] = (), grammar: str | None = None,
                 max_tokens: int = 160, hints: Sequence[str] = (),
                 repeats: int = 0) -> list[str]:
        """`hints` (drafts for speculative decoding) are not used here; `repeats` cuts each
        whole completion (llm/lm/repeats.py)."""
        request = dict(model=self.name, op="generate", prompt=prompt, n=n, top_k=top_k,
                       temperature=temperature, stop=list(stop), max_tokens=max_tokens,
                       seed=self.seed)
        if repeats:
            request["repeats"] = repeats
        return cached(self.cache, request, lambda: [
            before_repeat(self._one(prompt, temperature, top_k, stop, max_tokens, self.seed + i),
                          repeats)
            for i in range(n)])

    def _one(self, prompt, temperature, top_k, stop, max_tokens, seed) -> str:
        import torch

        torch.manual_seed(seed)
        inputs = self.tokenizer(prompt, return_tensors="pt").to(self.device)
        sampling = {"do_sample": True, "temperature": temperature, "top_k": top_k} \
            if temperature > 0 else {"do_sample": False}
        with torch.no_grad():
            out = self.model.generate(**inputs, max_new_tokens=max_tokens,
                                      pad_token_id=self.tokenizer.pad_token_id
                                      or self.tokenizer.eos_token_id, **sampling)
        text = self.tokenizer.decode(out[0, inputs["input_ids"].shape[1]:],
                                     skip_special_tokens=True)
        cuts = [text.find(s) for s in stop if s in text]
        return text[:min(cuts)] if cuts else text

    def score(self, prompt: str, continuation: str) -> float:
        request = dict(model=self.name, op="score", prompt=prompt, continuation=continuation)
        return cached(self.cache, request, lambda: self._score(prompt, continuation))

    def _score(self, prompt: str, continuation: str) -> float:
        import torch

        head = self.tokenizer(prompt)["input_ids"]
        full = self.tokenizer(prompt + continuation, return_tensors="pt")["input_ids"]
        start = len(head)
        if start >= full.shape[1]:
            raise KoplcError("cannot score an empty continuation", code="lm-score")
        with torch.no_grad():
            logits = self.model(full.to(self.device)).logits[0].float()
        logprobs = torch.log_softmax(logits[start - 1:-1], dim=-1)
        targets = full[0, start:].to(self.device)
        return float(logprobs.gather(1, targets[:, None]).sum())
