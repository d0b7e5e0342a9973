"""Run the `>>>` examples in every koplc module's docstrings (as sqlglot's test_docs does)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

SUBPACKAGES = ("cli", "grammar", "kopl", "sexpr", "sparql_backend", "llm", "gnn")


def _modules():
    import koplc

    for info in pkgutil.iter_modules(koplc.__path__, prefix="koplc."):
        if not info.ispkg and info.name != "koplc.__main__":  # __main__ runs the CLI
            yield info.name
    for sub in SUBPACKAGES:
        package = importlib.import_module(f"koplc.{sub}")
        yield package.__name__
        for info in pkgutil.walk_packages(package.__path__, prefix=f"{package.__name__}."):
            yield info.name


@pytest.mark.parametrize("name", sorted(_modules()))
def test_docstring_examples(name):
    try:
        module = importlib.import_module(name)
    except ImportError as err:  # an optional extra that is not installed
        pytest.fail(f"{name} does not import: {err}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
