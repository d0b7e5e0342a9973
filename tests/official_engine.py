"""The official KoPL engine (PyPI KoPL==0.0.5), loaded so it cannot collide with our `kopl/`.

The repository has a folder named `kopl/` at its root, so a plain `import kopl` run from there
may find ours. Here the engine's modules are executed from the files its distribution lists
(importlib.metadata), registered as `kopl.*` only while they import each other, then removed
again: nothing named `kopl` stays in sys.modules. Fixtures give one engine per KB, per session.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import importlib.util
import io
import json
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest

from kb_fixtures import kb_path
from koplc.kopl.datasets import metaqa
from koplc.kopl.ir import Node
from koplc.kopl.kb.cache import load_kb
from koplc.kopl.kb.kopl_json import kb_to_data
from koplc.kopl.syntax.step_list import linearize


@cache
def official_modules() -> dict[str, ModuleType]:
    """The installed KoPL distribution's modules: "util", "data" and "kopl"."""
    dist = importlib.metadata.distribution("KoPL")
    root = Path(dist.locate_file("kopl/__init__.py")).parent
    ours = {name: sys.modules.pop(name) for name in list(sys.modules)
            if name == "kopl" or name.startswith("kopl.")}
    try:
        for name in ("kopl", "kopl.util", "kopl.data", "kopl.kopl"):
            file = root / ("__init__.py" if name == "kopl" else f"{name.split('.')[1]}.py")
            spec = importlib.util.spec_from_file_location(
                name, file, submodule_search_locations=[str(root)] if name == "kopl" else None)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
        modules = {name.split(".")[1]: sys.modules[name]
                   for name in ("kopl.util", "kopl.data", "kopl.kopl")}
    finally:
        for name in [n for n in sys.modules if n == "kopl" or n.startswith("kopl.")]:
            del sys.modules[name]
        sys.modules.update(ours)
    return modules


def engine_class() -> type:
    """The KoPLEngine class of the installed KoPL distribution."""
    return official_modules()["kopl"].KoPLEngine


def make_engine(path: Path):
    """An engine over a KB file: KoPL KB JSON as it is, MetaQA triples in the KoPL JSON they
    build (the engine prints progress while indexing: silenced)."""
    if path.suffix == ".json":
        data = json.loads(path.read_text(encoding="utf-8"))
    else:
        data = json.loads(json.dumps(kb_to_data(load_kb(path, schema=metaqa.KB_SCHEMA))))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return engine_class()(data)


def engine_forward(engine, program: Node):
    """What the engine's `forward` returns for our program, or None when it raises."""
    steps = linearize(program)
    try:
        return engine.forward([s.function for s in steps], [s.args for s in steps])
    except Exception:  # noqa: BLE001 - the engine raises anything; None is "it raised"
        return None


@pytest.fixture(scope="session", name="engine_for")
def engine_for_fixture():
    """engine_for(EXAMPLE_KB) -> the official engine over that test KB (kb_fixtures' names)."""
    engines: dict[str, object] = {}

    def get(name: str):
        if name not in engines:
            engines[name] = make_engine(kb_path(name))
        return engines[name]

    return get
