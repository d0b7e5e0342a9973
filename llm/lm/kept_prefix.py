"""KV states of prompt prefixes kept on disk, so that a new process need not read them again:
the instructions, function catalogue and schema that every SymKGQA prompt starts with are several
hundred tokens, about a second of llama.cpp on a small CPU at every `koplc compile` (a state
holds at most the model's sliding window of them: speculative.py).

A file is named by everything its content depends on: the model file, the llama.cpp build and
the CPU features it uses, the context size, how it was read and the tokens. It carries a
checksum of its state; one that fails it (or llama.cpp refuses) is read again and rewritten,
atomically."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from koplc.llm.lm.model_cache import cache_root
from koplc.llm.lm.speculative import READING

MAGIC = b"koplc-kv-state 1\n"


def state_path(llm, model_path: Path, tokens: Sequence[int]) -> Path:
    """Where the state of `tokens` read by `llm` (loaded from `model_path`) is kept."""
    import llama_cpp

    stat = model_path.stat()
    identity = json.dumps([str(model_path.resolve()), stat.st_size, stat.st_mtime_ns,
                           llama_cpp.__version__, llama_cpp.llama_print_system_info().decode(),
                           llm.n_ctx(), llm.context_params.flash_attn_type,
                           READING, list(tokens)])
    name = hashlib.sha256(identity.encode()).hexdigest()[:32]
    return cache_root() / "kv-states" / f"{name}.bin"


def read_state(path: Path) -> bytes | None:
    """The state kept at `path`; None when there is none or it fails its checksum."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    head = len(MAGIC) + 32
    if not data.startswith(MAGIC) or len(data) <= head:
        return None
    state = data[head:]
    return state if hashlib.sha256(state).digest() == data[len(MAGIC):head] else None


def write_state(path: Path, state: bytes) -> None:
    """Keep `state` at `path` (atomically; a cache folder that cannot be written is skipped)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".kv-", dir=path.parent)
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(MAGIC + hashlib.sha256(state).digest() + state)
        os.replace(tmp, path)
    except OSError:
        Path(tmp).unlink(missing_ok=True)
