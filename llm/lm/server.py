"""A local llama.cpp server (`python -m llama_cpp.server`) serving a GGUF over the OpenAI API on
a free 127.0.0.1 port: started, waited for, and stopped by its PID."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from koplc.kopl.errors import KoplcError


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def local_server(model: str | Path | None = None, *, threads: int = 2, n_ctx: int = 2048,
                 wait_s: float = 120.0) -> Iterator[str]:
    """Yield the URL of a llama.cpp server for `model` (default: the embedded GGUF) once it
    answers /v1/models; KoplcError when it exits or does not answer within `wait_s`."""
    from koplc.llm.lm.model_cache import embedded_model_path

    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model",
         str(model or embedded_model_path()), "--host", "127.0.0.1", "--port", str(port),
         "--n_threads", str(threads), "--n_threads_batch", str(threads), "--n_ctx", str(n_ctx),
         "--logits_all", "true"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + wait_s
        while True:
            try:
                urllib.request.urlopen(url + "/v1/models", timeout=2)
                break
            except OSError:
                if process.poll() is not None:
                    raise KoplcError("the llama.cpp server exited while starting",
                                     code="lm-server") from None
                if time.monotonic() > deadline:
                    raise KoplcError(f"the llama.cpp server did not answer in {wait_s:.0f} s",
                                     code="lm-server") from None
                time.sleep(0.5)
        yield url
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
