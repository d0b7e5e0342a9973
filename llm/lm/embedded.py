"""The LM protocol and the embedded client: llama.cpp running a local GGUF (by default the
Gemma 3 270M base model assembled from PyPI), few-shot completion and likelihood scoring."""

from __future__ import annotations

import contextlib
import os
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from koplc.kopl.errors import KoplcError
from koplc.llm.lm import speculative
from koplc.llm.lm.repeats import before_repeat
from koplc.llm.lm.response_cache import ResponseCache, cached

# llama.cpp's fused attention: on 2 CPU cores a question's greedy program (its prompt part of
# about 300 tokens after the kept 1,000-token prefix, then the drafts) takes 13 to 15 % less
# time (median of 20 isotopes questions, run back to back with it off and on, twice). The KV
# states kept on disk are named by it (kept_prefix.py).
FLASH_ATTENTION = True


class LM(Protocol):
    """What every client offers: sampled or greedy completions, and log-likelihoods.

    A client may also offer `keep_prefix(text)`, told that every later prompt starts with
    `text` (the pipeline calls it when present; llama.cpp keeps that part's KV state)."""

    name: str

    def generate(self, prompt: str, n: int = 1, temperature: float = 0.0, top_k: int = 40,
                 stop: Sequence[str] = (), grammar: str | None = None,
                 max_tokens: int = 160, hints: Sequence[str] = (),
                 repeats: int = 0) -> list[str]:
        """`n` completions of `prompt` (greedy when temperature is 0), cut at `stop` and, with
        `repeats`, before a line written for the `repeats`-th time (llm/lm/repeats.py).

        `hints` are texts the completion may well be: a client that decodes speculatively
        checks them as drafts and keeps only the tokens that are its own choice anyway."""
        ...

    def score(self, prompt: str, continuation: str) -> float:
        """log P(continuation | prompt), summed over the continuation's tokens."""
        ...


@contextlib.contextmanager
def _quiet():
    # llama.cpp writes its load log to fd 2 from C; keep it off the user's terminal.
    saved = os.dup(2)
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


class LlamaCppLM:
    """A GGUF model in-process via llama-cpp-python. Greedy completions are decoded
    speculatively (llm/lm/speculative.py): the prompts' KV caches are kept between calls and
    drafts from the hints and the prompt are checked several tokens per forward pass;
    `speculative=False` decodes one token per pass with llama.cpp's own sampler. Scores come
    from the same context, with logits only for the continuation's tokens."""

    def __init__(self, model_path: str | Path | None = None, *, n_threads: int | None = None,
                 n_ctx: int = 4096, seed: int = 0, cache: ResponseCache | None = None,
                 speculative: bool = True):
        from koplc.llm.lm.model_cache import embedded_model_path
        from koplc.llm.lm.speculative import PromptStates

        self.path = Path(model_path) if model_path else embedded_model_path()
        self.name = f"llama.cpp:{self.path.name}"
        # One thread per core this process may run on (taskset and cgroups respected).
        self.n_threads = n_threads or len(os.sched_getaffinity(0))
        self.n_ctx, self.seed, self.cache = n_ctx, seed, cache
        self._model = self._load()
        self._states = PromptStates() if speculative else None
        self._kept_prefix: str | None = None

    def _load(self):
        from llama_cpp import Llama

        from koplc.llm.lm.llama_adapter import require_tested_build

        require_tested_build()
        try:
            with _quiet():
                return Llama(model_path=str(self.path), n_ctx=self.n_ctx,
                             n_threads=self.n_threads, n_threads_batch=self.n_threads,
                             flash_attn=FLASH_ATTENTION, seed=self.seed, verbose=False)
        except (ValueError, RuntimeError) as err:
            raise KoplcError(f"llama.cpp cannot load {self.path}: {err}",
                             code="lm-load") from err

    def generate(self, prompt: str, n: int = 1, temperature: float = 0.0, top_k: int = 40,
                 stop: Sequence[str] = (), grammar: str | None = None,
                 max_tokens: int = 160, hints: Sequence[str] = (),
                 repeats: int = 0) -> list[str]:
        # How prompts are read is part of the key (speculative.READING): responses from before
        # the fixed stretches depended on what was read before them.
        request = dict(model=self.name, op="generate", prompt=prompt, n=n,
                       temperature=temperature, top_k=top_k, stop=list(stop), grammar=grammar,
                       max_tokens=max_tokens, seed=self.seed, reading=speculative.READING)
        if repeats:
            request["repeats"] = repeats
        if self._speculates(temperature, grammar):
            # Batched checking can break a near-tie the other way than one token per pass.
            request["decoding"] = "speculative"
        return cached(self.cache, request, lambda: self._generate(
            prompt, n, temperature, top_k, stop, grammar, max_tokens, hints, repeats))

    def _generate(self, prompt, n, temperature, top_k, stop, grammar, max_tokens,
                  hints, repeats) -> list[str]:
        from llama_cpp import LlamaGrammar

        if self._speculates(temperature, grammar):
            try:
                text = speculative.greedy(self._model, prompt, stop, max_tokens, self._states,
                                          hints, repeats)
                return [text] * n
            except ValueError as err:
                raise KoplcError(str(err), code="lm-context") from err
        compiled = None
        if grammar:
            with _quiet():
                compiled = LlamaGrammar.from_string(grammar, verbose=False)
        # llama.cpp's own loop reads on from what the context shares with the prompt: it is
        # first given all but the prompt's last token read the one way (speculative.py's note).
        tokens = self._model.tokenize(prompt.encode(), add_bos=True, special=True)
        outs = []
        for i in range(n):
            if temperature > 0:
                self._model.set_seed(self.seed + i)
            speculative.prepare(self._model, tokens, len(tokens) - 1, self._states)
            result = self._model.create_completion(
                prompt, max_tokens=max_tokens, temperature=temperature, top_k=top_k,
                top_p=1.0, min_p=0.0, repeat_penalty=1.0, stop=list(stop) or None,
                grammar=compiled)
            speculative.keep(self._model, len(tokens) - 1)
            outs.append(before_repeat(result["choices"][0]["text"], repeats))
        return outs

    def _speculates(self, temperature: float, grammar: str | None) -> bool:
        return temperature == 0 and not grammar and self._states is not None

    def keep_prefix(self, text: str) -> None:
        """Every prompt from now on starts with `text`: the KV state of its head (its whole
        stretches within the model's sliding window, see speculative.py) becomes a kept one,
        from the disk (kept_prefix.py) when an earlier process saved it, else read now and
        saved there for the next process."""
        if self._states is None or text == self._kept_prefix:
            return
        from koplc.llm.lm import kept_prefix, llama_adapter

        self._kept_prefix = text
        tokens = self._model.tokenize(text.encode(), add_bos=True)
        head = tokens[:speculative.head_size(self._model, len(tokens))]
        if not head:
            return
        path = kept_prefix.state_path(self._model, self.path, head)
        state = kept_prefix.read_state(path)
        if state is None or not self._states.load(self._model, tuple(head), state):
            speculative.prepare(self._model, head, len(head), None)
            state = llama_adapter.get_state(self._model)
            kept_prefix.write_state(path, state)
        self._states.put(head, state)

    def reading_speed(self, text: str, repeats: int = 3) -> float:
        """Tokens a second this machine reads `text` now (median of `repeats` from an empty
        context): how fast the host runs llama.cpp at the moment, for benchmark reports."""
        tokens = self._model.tokenize(text.encode(), add_bos=True)
        seconds = []
        for _ in range(repeats):
            speculative.empty(self._model)
            clock = time.perf_counter()
            speculative.read(self._model, tokens)
            seconds.append(time.perf_counter() - clock)
        speculative.empty(self._model)
        return round(len(tokens) / statistics.median(seconds), 1)

    def score(self, prompt: str, continuation: str) -> float:
        request = dict(model=self.name, op="score", prompt=prompt, continuation=continuation,
                       reading=speculative.READING)
        return cached(self.cache, request, lambda: self._score(prompt, continuation))

    def _score(self, prompt: str, continuation: str) -> float:
        try:
            return speculative.score(self._model, prompt, continuation, self._states)
        except ValueError as err:
            raise KoplcError(str(err), code="lm-score") from err
