"""What koplc uses when the user names nothing: the MetaQA movie KB and the MetaQA dev
demonstration pool shipped inside the package, and the embedded LM."""

from __future__ import annotations

import gzip
import os
import re
import shutil
import tempfile
from importlib.resources import files
from pathlib import Path

from koplc.kopl.errors import KoplcError
from koplc.llm.model_cache import cache_root

DATA = files("koplc.llm").joinpath("data")


def default_kb_path() -> Path:
    """The shipped MetaQA KB (kb.txt triples, gzip in the package), unpacked once into the
    cache so its KB cache and grounding indexes can live beside it."""
    target = cache_root() / "default-kb" / "metaqa_kb.txt"
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".metaqa_kb.", dir=target.parent)
    with os.fdopen(fd, "wb") as out, gzip.open(str(DATA / "metaqa_kb.txt.gz")) as src:
        shutil.copyfileobj(src, out)
    os.replace(tmp, target)
    return target


def default_pool_path() -> Path:
    """The shipped pool: one MetaQA dev question per template, as a MetaQA tsv."""
    return Path(str(DATA / "metaqa_pool.tsv"))


def default_pool():
    """The shipped demonstration pool."""
    from koplc.llm.demos import metaqa_pool

    return metaqa_pool(default_pool_path().parent, pattern="metaqa_pool.tsv")


def open_lm(spec: str = "embedded", response_cache: str | Path | None = None, *,
            speculative: bool = True):
    """An LM client from a CLI spec: "embedded", an http(s) URL, or a local HF model folder.

    Responses are cached in `response_cache` (a sqlite file; "off" for none), by default
    $KOPLC_RESPONSE_CACHE or responses.sqlite in koplc's cache folder. `speculative=False`
    makes a llama.cpp model decode one token per forward pass."""
    from koplc.llm.response_cache import ResponseCache

    where = str(response_cache or os.environ.get("KOPLC_RESPONSE_CACHE")
                or cache_root() / "responses.sqlite")
    cache = None if where == "off" else ResponseCache(where)
    if spec == "embedded":
        from koplc.llm.lm import LlamaCppLM

        return LlamaCppLM(cache=cache, speculative=speculative)
    if re.match(r"https?://", spec):
        from koplc.llm.openai_lm import OpenAICompatibleLM

        return OpenAICompatibleLM(spec, cache=cache)
    if Path(spec).is_dir():
        from koplc.llm.transformers_lm import TransformersLM

        return TransformersLM(spec, cache=cache)
    if Path(spec).suffix == ".gguf" and Path(spec).is_file():
        from koplc.llm.lm import LlamaCppLM

        return LlamaCppLM(spec, cache=cache, speculative=speculative)
    raise KoplcError(f"--lm {spec!r}: expected 'embedded', an http(s) URL of an "
                     "OpenAI-compatible server, a .gguf file or a Hugging Face model folder",
                     code="lm-spec")
