# koplc's entry points.  On a fresh machine: `make setup demo`, then `make test`.

PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python

# Two dependencies compile from source. llama.cpp (llm/lm/llama_build.py) is built once per .venv
# with exactly the instruction sets this machine's CPU has and its OS enables (XCR0: a CPU may
# list AMX that the kernel does not turn on), never through pip's wheel cache; setup's last step
# decodes a few tokens in a subprocess and, if that dies, installs the portable AVX2 build.
# The llama-cpp-python version is pinned once, in pyproject.toml. hnswlib is built without
# -march=native, so its cached wheel is portable.
LLAMA_BUILD := $(PY) llm/lm/llama_build.py
export HNSWLIB_NO_NATIVE := 1

# The import rules of DESIGN.md are checked on the package as Python sees it: the folders are
# mapped into `koplc` by setuptools' package-dir, which import-linter cannot follow, so `lint`
# assembles that tree from symlinks (read from pyproject.toml) and runs lint-imports inside it
# (lint-imports puts its working directory first on sys.path).
IMPORT_GRAPH := build/import-graph
define LINK_IMPORT_GRAPH
import pathlib, shutil, sys, tomllib
root = pathlib.Path(sys.argv[1])
shutil.rmtree(root, ignore_errors=True)
folders = tomllib.loads(pathlib.Path("pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
for name, folder in sorted(folders.items()):
    source, target = pathlib.Path(folder).resolve(), root.joinpath(*name.split("."))
    if "." in name:
        target.symlink_to(source, target_is_directory=True)
    else:
        target.mkdir(parents=True)
        for entry in source.iterdir():
            (target / entry.name).symlink_to(entry)
endef
export LINK_IMPORT_GRAPH

# demo and test install first when .venv is missing or older than pyproject.toml.
INSTALLED := $(VENV)/.installed

.PHONY: setup system-deps demo test test-fast lint llama import-tree

# The SPARQL tests run the real Virtuoso server from Debian's packages (on 127.0.0.1 only), and
# the tests of `koplc serve` drive Debian's Chromium headless (no browser download).
system-deps:
	@{ command -v virtuoso-t && test -x /usr/bin/chromium; } >/dev/null || { apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq virtuoso-opensource chromium >/dev/null; }

setup: system-deps | $(PY)
	$(PY) -m pip install --upgrade pip
	$(LLAMA_BUILD) install
	$(PY) -m pip install -e '.[all,dev]'
	$(LLAMA_BUILD) check
	touch $(INSTALLED)

$(PY):
	$(PYTHON) -m venv $(VENV)

# For a .venv moved to another machine: rebuild llama.cpp for this one, and prove it runs.
llama: $(INSTALLED)
	$(LLAMA_BUILD) install --force
	$(LLAMA_BUILD) check

$(INSTALLED): pyproject.toml
	$(MAKE) --no-print-directory setup

demo: $(INSTALLED)
	$(VENV)/bin/koplc compile examples/question.txt

# test runs every lane, then lint (CI: .ci/run); test-fast leaves out the tests that load a
# model, start a server, drive a browser, train or run over the whole MetaQA KB (the markers in
# pyproject.toml), draws a tenth of each property test's examples (tests/budget.py) and runs on
# two workers.
FAST := not model and not server and not browser and not train and not whole_kb

test: $(INSTALLED)
	$(PY) -m pytest
	$(MAKE) --no-print-directory lint

test-fast: $(INSTALLED)
	@start=$$(date +%s); KOPLC_TEST_BUDGET=fast PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -n 2 -m "$(FAST)"; status=$$?; \
	  echo "test-fast: $$(( $$(date +%s) - start )) s wall"; exit $$status

# typecheck: mypy over kopl/ and sexpr/ ([tool.mypy] in pyproject.toml), run in the import tree
# so that `koplc.*` resolves as Python sees it; its cache sits outside the tree, which is rebuilt.
lint:
	$(VENV)/bin/ruff check .
	$(MAKE) --no-print-directory import-tree
	cd $(IMPORT_GRAPH) && $(CURDIR)/$(VENV)/bin/lint-imports --config $(CURDIR)/pyproject.toml
	cd $(IMPORT_GRAPH) && $(CURDIR)/$(VENV)/bin/mypy --config-file $(CURDIR)/pyproject.toml \
	  --cache-dir $(CURDIR)/build/mypy-cache

# The package tree as Python sees it, from symlinks (also how .ci/run imports a copy of the
# checkout); no install first, so it can run on a copy with another PY.
import-tree:
	$(PY) -c "$$LINK_IMPORT_GRAPH" $(IMPORT_GRAPH)
