"""The one place koplc reaches into llama-cpp-python past its public API: the context, batch
and vocabulary handles that speculative decoding and kept KV states need. Those are private, so
a model loads only under the llama-cpp-python version koplc is tested with, and only with a
build that this machine's CPU and OS can run (llm/lm/llama_build.py)."""

from __future__ import annotations

import ctypes
from collections.abc import Sequence

import numpy as np

from koplc.kopl.errors import KoplcError
from koplc.llm.lm import llama_build


def require_tested_build() -> None:
    """Raise a KoplcError unless the installed llama-cpp-python is the tested version and its
    build uses only instruction sets this machine enables."""
    import llama_cpp

    tested = llama_build.pinned_version()
    if llama_cpp.__version__ != tested:
        raise KoplcError(f"llama-cpp-python {llama_cpp.__version__} is installed; koplc is "
                         f"tested with {tested} only: run `make setup` (or pip install "
                         f"'llama-cpp-python=={tested}')", code="lm-version")
    built = llama_build.installed_build() or {}
    missing = set(built.get("options", ())) - llama_build.this_machine()
    if missing:
        raise KoplcError(f"this llama.cpp build uses {', '.join(sorted(missing))}, which this "
                         "machine's CPU or OS does not enable: run `make llama` to rebuild it "
                         "here", code="lm-build")


def clear(llm) -> None:
    """Drop the context's KV cache."""
    llm._ctx.kv_cache_clear()


def drop_after(llm, n: int) -> bool:
    """Drop the KV past the first `n` positions; False when llama.cpp cannot."""
    return llm._ctx.kv_cache_seq_rm(-1, n, -1)


def get_state(llm) -> bytes:
    """The context's KV state (sequence 0)."""
    import llama_cpp

    size = llama_cpp.llama_state_seq_get_size(llm._ctx.ctx, 0)
    buffer = (ctypes.c_uint8 * size)()
    written = llama_cpp.llama_state_seq_get_data(llm._ctx.ctx, buffer, size, 0)
    return bytes(buffer)[:written]


def set_state(llm, state: bytes) -> bool:
    """Put a KV state from get_state back; False when llama.cpp refuses it."""
    import llama_cpp

    buffer = (ctypes.c_uint8 * len(state)).from_buffer_copy(state)
    return bool(llama_cpp.llama_state_seq_set_data(llm._ctx.ctx, buffer, len(state), 0))


def restorable(llm) -> int:
    """The most tokens a saved state may hold and be loaded back exactly: with sliding window
    attention, the window (llama.cpp saves only the cells the last token sees, and what is read
    on from a longer state differs from the prompt read whole); else the context."""
    import llama_cpp

    window = llama_cpp.llama_model_n_swa(llm._model.model)
    return window if window > 0 else llm.n_ctx()


def is_end(llm, token: int) -> bool:
    """Whether `token` ends generation (end of turn or of text)."""
    import llama_cpp

    return bool(llama_cpp.llama_vocab_is_eog(llm._model.vocab, token))


def decode(llm, tokens: Sequence[int], n_past: int, logits: Sequence[bool]) -> np.ndarray:
    """Evaluate `tokens` (at most n_batch) at positions from `n_past`; the logit rows of the
    positions whose `logits` flag is set, as a (rows, vocab) view valid until the next decode."""
    import llama_cpp

    b = llm._batch.batch
    b.n_tokens = len(tokens)
    for i, token in enumerate(tokens):
        b.token[i] = token
        b.pos[i] = n_past + i
        b.seq_id[i][0] = 0
        b.n_seq_id[i] = 1
        b.logits[i] = logits[i]
    llm._ctx.decode(llm._batch)
    wanted, vocab = sum(map(bool, logits)), llm.n_vocab()
    if not wanted:
        return np.zeros((0, vocab), dtype=np.float32)
    pointer = ctypes.cast(llama_cpp.llama_get_logits(llm._ctx.ctx), ctypes.POINTER(ctypes.c_float))
    return np.ctypeslib.as_array(pointer, shape=(wanted * vocab,)).reshape(wanted, vocab)
