"""What koplc uses when the user names nothing: the MetaQA movie KB (with MetaQA's triple
schema), the MetaQA dev demonstration pool and verified dev questions shipped inside the
package, and the embedded LM."""

from __future__ import annotations

import functools
import gzip
import hashlib
import os
import re
import shutil
import tempfile
from importlib.resources import files
from pathlib import Path

from koplc.kopl.errors import KoplcError
from koplc.llm.lm.model_cache import cache_root

DATA = files("koplc.kopl.datasets").joinpath("data")


def default_kb_path() -> Path:
    """The shipped MetaQA KB (kb.txt triples, gzip in the package), unpacked once into the
    cache folder."""
    name = "metaqa_kb.txt.gz"
    return _unpacked(name, cache_root() / "default-kb" / _digest(name) / "metaqa_kb.txt")


def default_kb_schema():
    """The schema the shipped KB's triples load with: MetaQA's (movies, people, tags ...)."""
    from koplc.kopl.datasets.metaqa import KB_SCHEMA

    return KB_SCHEMA


DEV_FILES = tuple(f"metaqa_qa_{hop}hop_dev.tsv.gz" for hop in (1, 2, 3))


def default_dev_folder() -> Path:
    """A folder of MetaQA's verified dev questions, ``qa_{1,2,3}hop_dev.tsv``: shipped in the
    package (gzip), unpacked once into the cache folder."""
    folder = cache_root() / "default-data" / f"metaqa-{_digest(*DEV_FILES)}"
    for hop, name in enumerate(DEV_FILES, 1):
        _unpacked(name, folder / f"qa_{hop}hop_dev.tsv")
    return folder


@functools.cache
def _digest(*names: str) -> str:
    """A short hash of the shipped files `names`: the cache folder they unpack into, so that
    a package with other data never reads an older copy."""
    digest = hashlib.sha256()
    for name in names:
        digest.update((DATA / name).read_bytes())
    return digest.hexdigest()[:12]


def _unpacked(name: str, target: Path) -> Path:
    """`target`, unpacked atomically from the package's gzip file `name` unless it exists."""
    if target.exists():
        return target
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as err:
        raise KoplcError(f"cannot unpack the shipped {target.name} into {target.parent}: "
                         f"{err.strerror or err}; set KOPLC_CACHE_DIR to a folder koplc may write",
                         code="cache-unwritable") from err
    try:
        with os.fdopen(fd, "wb") as out, gzip.open(str(DATA / name)) as src:
            shutil.copyfileobj(src, out)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def default_pool_path() -> Path:
    """The shipped pool: one MetaQA dev question per template, as a MetaQA tsv."""
    return Path(str(DATA / "metaqa_pool.tsv"))


def default_pool():
    """The shipped demonstration pool."""
    from koplc.llm.symkgqa.demos import metaqa_pool

    return metaqa_pool(default_pool_path().parent, pattern="metaqa_pool.tsv")


def open_lm(spec: str = "embedded", response_cache: str | Path | None = None, *,
            speculative: bool = True):
    """An LM client from a CLI spec: "embedded", an http(s) URL, or a local HF model folder.

    Responses are cached in `response_cache` (a sqlite file; "off" for none), by default
    $KOPLC_RESPONSE_CACHE or responses.sqlite in koplc's cache folder. `speculative=False`
    makes a llama.cpp model decode one token per forward pass."""
    from koplc.llm.lm.response_cache import ResponseCache

    where = str(response_cache or os.environ.get("KOPLC_RESPONSE_CACHE")
                or cache_root() / "responses.sqlite")
    cache = None if where == "off" else ResponseCache(where)
    if spec == "embedded":
        from koplc.llm.lm.embedded import LlamaCppLM

        return LlamaCppLM(cache=cache, speculative=speculative)
    if re.match(r"https?://", spec):
        from koplc.llm.lm.openai_lm import OpenAICompatibleLM

        return OpenAICompatibleLM(spec, cache=cache)
    if Path(spec).is_dir():
        from koplc.llm.lm.transformers_lm import TransformersLM

        return TransformersLM(spec, cache=cache)
    if Path(spec).suffix == ".gguf" and Path(spec).is_file():
        from koplc.llm.lm.embedded import LlamaCppLM

        return LlamaCppLM(spec, cache=cache, speculative=speculative)
    raise KoplcError(f"--lm {spec!r}: expected 'embedded', an http(s) URL of an "
                     "OpenAI-compatible server, a .gguf file or a Hugging Face model folder",
                     code="lm-spec")
