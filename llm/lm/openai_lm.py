"""A client for any OpenAI-compatible server: /v1/completions (with logprobs and echo for
scoring) or /v1/chat/completions for chat models; timeouts, retries and clear errors."""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Sequence

from koplc.kopl.errors import KoplcError
from koplc.llm.lm.repeats import before_repeat
from koplc.llm.lm.response_cache import ResponseCache, cached


class OpenAICompatibleLM:
    """Completions from a served model; `chat` sends prompts as one user message."""

    def __init__(self, base_url: str, model: str = "default", *, chat: bool = False,
                 timeout: float = 60.0, retries: int = 2, api_key: str | None = None,
                 cache: ResponseCache | None = None):
        self.base = base_url.rstrip("/").removesuffix("/v1")
        self.model, self.chat, self.timeout, self.retries = model, chat, timeout, retries
        self.api_key = api_key or os.environ.get("OPENAI_API_KEY")
        self.name = f"openai:{self.base}:{model}"
        self.cache = cache

    def _post(self, path: str, body: dict) -> dict:
        data = json.dumps({"model": self.model, **body}).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        last = None
        for attempt in range(self.retries + 1):
            request = urllib.request.Request(self.base + path, data, headers)
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return json.loads(response.read())
            except urllib.error.HTTPError as err:
                detail = err.read().decode(errors="replace")[:300]
                if err.code < 500 and err.code != 429:
                    raise KoplcError(f"the LM server at {self.base} refused {path}: HTTP "
                                     f"{err.code}: {detail}", code="lm-http") from err
                last = f"HTTP {err.code}: {detail}"
            except (urllib.error.URLError, TimeoutError, ConnectionError) as err:
                last = str(getattr(err, "reason", err))
            if attempt < self.retries:
                time.sleep(0.5 * 2 ** attempt)
        raise KoplcError(f"cannot reach the LM server at {self.base} ({path}) after "
                         f"{self.retries + 1} tries: {last}", code="lm-unreachable")

    def generate(self, prompt: str, n: int = 1, temperature: float = 0.0, top_k: int = 40,
                 stop: Sequence[str] = (), grammar: str | None = None,
                 max_tokens: int = 160, hints: Sequence[str] = (),
                 repeats: int = 0) -> list[str]:
        """`hints` (drafts for speculative decoding) are not used here; `repeats` cuts each
        whole completion (llm/lm/repeats.py)."""
        request = dict(model=self.name, op="generate", prompt=prompt, n=n, chat=self.chat,
                       temperature=temperature, top_k=top_k, stop=list(stop), grammar=grammar,
                       max_tokens=max_tokens)
        if repeats:
            request["repeats"] = repeats
        return cached(self.cache, request, lambda: [
            before_repeat(self._one(prompt, temperature, top_k, stop, grammar, max_tokens, seed),
                          repeats)
            for seed in range(n)])

    def _one(self, prompt, temperature, top_k, stop, grammar, max_tokens, seed) -> str:
        body = {"max_tokens": max_tokens, "temperature": temperature, "top_k": top_k,
                "top_p": 1.0, "min_p": 0.0, "repeat_penalty": 1.0, "seed": seed}
        if stop:
            body["stop"] = list(stop)
        if grammar:
            body["grammar"] = grammar  # llama.cpp's server extension; others ignore it
        if self.chat:
            reply = self._post("/v1/chat/completions",
                               {**body, "messages": [{"role": "user", "content": prompt}]})
            return reply["choices"][0]["message"]["content"] or ""
        return self._post("/v1/completions", {**body, "prompt": prompt})["choices"][0]["text"]

    def score(self, prompt: str, continuation: str) -> float:
        request = dict(model=self.name, op="score", prompt=prompt, continuation=continuation)
        return cached(self.cache, request, lambda: self._score(prompt, continuation))

    def _score(self, prompt: str, continuation: str) -> float:
        if self.chat:
            raise KoplcError("a chat endpoint gives no prompt log-likelihoods; serve a "
                             "completion model to score", code="lm-score")
        reply = self._post("/v1/completions", {"prompt": prompt + continuation, "echo": True,
                                               "logprobs": 1, "max_tokens": 1,
                                               "temperature": 0.0})
        logprobs = reply["choices"][0].get("logprobs") or {}
        offsets, values = logprobs.get("text_offset"), logprobs.get("token_logprobs")
        if not offsets or not values:
            raise KoplcError(f"the LM server at {self.base} returned no echoed logprobs "
                             "(llama.cpp: start it with --logits_all true)", code="lm-score")
        end = len(prompt) + len(continuation)
        return float(sum(v for o, v in zip(offsets, values, strict=False)
                         if v is not None and len(prompt) <= o < end))
