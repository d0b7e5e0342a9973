# koplc's entry points.  On a fresh machine: `make setup demo`, then `make test`.

PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python

# Two dependencies compile from source. llama.cpp is built for this machine's own CPU (AVX-512
# where it has it: greedy decoding was 1.65x faster than the portable AVX2 build on this machine,
# benchmarks/llm_decoding.py), once per .venv (a few minutes on a small machine), and pip neither
# caches nor reuses that wheel: a cached one would die with "Illegal instruction" on a machine
# with another CPU. hnswlib is built without -march=native, so its cached wheel is portable.
# The multimodal library of llama.cpp is left out: koplc never loads it.
LLAMA_NATIVE := CMAKE_ARGS="-DGGML_NATIVE=ON -DLLAVA_BUILD=OFF" $(PY) -m pip install \
  --no-cache-dir --no-binary llama-cpp-python
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

.PHONY: setup system-deps demo test lint native-llama

# The SPARQL tests run the real Virtuoso server from Debian's packages (on 127.0.0.1 only).
system-deps:
	@command -v virtuoso-t >/dev/null || { apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq virtuoso-opensource >/dev/null; }

setup: system-deps | $(PY)
	$(PY) -m pip install --upgrade pip
	$(PY) -c 'import llama_cpp' 2>/dev/null || $(LLAMA_NATIVE) 'llama-cpp-python[server]>=0.3.9'
	$(PY) -m pip install -e '.[all,dev]'
	touch $(INSTALLED)

$(PY):
	$(PYTHON) -m venv $(VENV)

# For a .venv made before setup built llama.cpp natively, or moved to another CPU: rebuild it.
native-llama: $(INSTALLED)
	$(LLAMA_NATIVE) --force-reinstall --no-deps \
	  "llama-cpp-python==$$($(PY) -c 'import llama_cpp; print(llama_cpp.__version__)')"

$(INSTALLED): pyproject.toml
	$(MAKE) --no-print-directory setup

demo: $(INSTALLED)
	$(VENV)/bin/koplc compile examples/question.txt

test: $(INSTALLED)
	$(PY) -m pytest
	$(MAKE) --no-print-directory lint

lint:
	$(VENV)/bin/ruff check .
	$(PY) -c "$$LINK_IMPORT_GRAPH" $(IMPORT_GRAPH)
	cd $(IMPORT_GRAPH) && $(CURDIR)/$(VENV)/bin/lint-imports --config $(CURDIR)/pyproject.toml
