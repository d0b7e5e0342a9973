"""llama.cpp's build: options from what the CPU has and the OS enables, the tested version only,
and the smoke check that falls back to the portable build when the model's process dies."""

from __future__ import annotations

import subprocess
import sys

import pytest

from koplc.kopl.errors import KoplcError
from koplc.llm.lm import llama_adapter, llama_build
from koplc.llm.lm.llama_build import (
    AMX_STATE,
    AVX512_BASE,
    AVX512_STATE,
    AVX_STATE,
    SSE_STATE,
    usable_options,
    variant_options,
)

SAPPHIRE_RAPIDS = frozenset({"sse4_2", "avx", "avx2", "fma", "f16c", "bmi2", "avx_vnni",
                             *AVX512_BASE, "avx512vbmi", "avx512_vnni", "avx512_bf16",
                             "amx_tile", "amx_int8", "amx_bf16", "xsave"})
FULL_STATES = SSE_STATE | AVX_STATE | AVX512_STATE | AMX_STATE


def test_amx_needs_the_os_to_enable_tile_data():
    # The machine that crashed: cpuid lists AMX, the kernel enables only the tile config.
    tile_config_only = SSE_STATE | AVX_STATE | AVX512_STATE | (1 << 17)
    options = usable_options(SAPPHIRE_RAPIDS, tile_config_only, amx=True)
    assert "GGML_AVX512_BF16" in options
    assert not {o for o in options if "AMX" in o}
    assert {"GGML_AMX_TILE", "GGML_AMX_INT8"} <= usable_options(SAPPHIRE_RAPIDS, FULL_STATES,
                                                                amx=True)
    assert not {o for o in usable_options(SAPPHIRE_RAPIDS, FULL_STATES, amx=False)
                if "AMX" in o}


def test_avx512_needs_the_zmm_states():
    options = usable_options(SAPPHIRE_RAPIDS, SSE_STATE | AVX_STATE, amx=True)
    assert "GGML_AVX2" in options and not {o for o in options if "AVX512" in o or "AMX" in o}


def test_unknown_xcr0_trusts_only_avx():
    options = usable_options(SAPPHIRE_RAPIDS, None, amx=True)
    assert "GGML_FMA" in options and not {o for o in options if "AVX512" in o}


def test_portable_is_x86_64_v3_at_most():
    usable = usable_options(SAPPHIRE_RAPIDS, FULL_STATES, amx=True)
    assert variant_options("portable", usable) == llama_build.PORTABLE
    assert variant_options("tuned", usable) == usable
    old = usable_options(frozenset({"sse4_2", "xsave"}), SSE_STATE, amx=False)
    assert variant_options("portable", old) == {"GGML_SSE42"}
    with pytest.raises(ValueError):
        variant_options("native", usable)


def test_cmake_args_name_every_option_and_never_native():
    args = llama_build.cmake_args(frozenset({"GGML_AVX2"})).split()
    assert "-DGGML_NATIVE=OFF" in args and "-DGGML_AVX2=ON" in args
    assert "-DGGML_AMX_INT8=OFF" in args
    assert len([a for a in args if a.startswith("-DGGML_")]) == len(llama_build.OPTIONS) + 1


def test_xcr0_on_this_machine_agrees_with_its_flags():
    flags = llama_build.cpu_flags()
    states = llama_build.xcr0(flags)
    assert states is not None and states & SSE_STATE
    if "avx" in flags:
        assert states & AVX_STATE
    assert llama_build.this_machine() <= usable_options(flags, states, amx=True)


def test_the_installed_build_is_the_pinned_version_and_runs_here():
    import llama_cpp

    assert llama_cpp.__version__ == llama_build.pinned_version()
    built = llama_build.installed_build()
    assert built is not None, "make setup describes the build it installs"
    assert built["version"] == llama_cpp.__version__
    assert set(built["options"]) <= llama_build.this_machine()


def test_another_llama_cpp_version_is_refused_at_load(monkeypatch):
    import llama_cpp

    monkeypatch.setattr(llama_cpp, "__version__", "0.0.1")
    with pytest.raises(KoplcError) as caught:
        llama_adapter.require_tested_build()
    assert caught.value.diagnostics[0].code == "lm-version"
    assert llama_build.pinned_version() in str(caught.value)


def test_a_build_this_machine_cannot_run_is_refused_at_load(monkeypatch, tmp_path):
    marker = tmp_path / "build.json"
    llama_build.write_marker(marker, llama_build.pinned_version(), "tuned",
                             frozenset({"GGML_AVX2", "GGML_AMX_INT8"}))
    monkeypatch.setattr(llama_build, "marker_path", lambda: marker)
    monkeypatch.setattr(llama_build, "this_machine", lambda: frozenset({"GGML_AVX2"}))
    with pytest.raises(KoplcError) as caught:
        llama_adapter.require_tested_build()
    assert caught.value.diagnostics[0].code == "lm-build" and "GGML_AMX_INT8" in str(caught.value)


@pytest.mark.model
def test_smoke_check_decodes_with_the_installed_build():
    worked, detail = llama_build.smoke()
    assert worked, detail
    assert detail.startswith("decoded ") and "gguf" in detail


@pytest.mark.model
def test_a_crashing_build_falls_back_to_the_portable_one(tmp_path, monkeypatch, capsys):
    """The smoke process of the tuned build really dies (SIGSEGV); check() then rebuilds the
    portable variant (the 4-minute compile is replaced by rewriting the build's description)
    and the second smoke process decodes with the real model."""
    marker = tmp_path / "build.json"
    llama_build.write_marker(marker, llama_build.pinned_version(), "tuned", frozenset())
    monkeypatch.setenv(llama_build.CRASH_ENV, "tuned")
    rebuilt = []

    def rebuild(variant, where):
        rebuilt.append(variant)
        llama_build.write_marker(where, llama_build.pinned_version(), variant, frozenset())

    assert llama_build.check(marker, rebuild=rebuild)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ("koplc: llama.cpp's smoke check died with SIGSEGV; "
                      "rebuilding the portable variant")
    assert out[1].startswith("koplc: llama.cpp smoke check passed: decoded ")
    assert rebuilt == ["portable"]
    assert llama_build.installed_build(marker)["variant"] == "portable"


def test_a_build_that_crashes_both_ways_fails_setup(tmp_path, monkeypatch, capsys):
    marker = tmp_path / "build.json"
    llama_build.write_marker(marker, llama_build.pinned_version(), "tuned", frozenset())
    monkeypatch.setenv(llama_build.CRASH_ENV, "any")
    assert not llama_build.check(marker, rebuild=lambda variant, where: None)
    assert "smoke check failed: died with SIGSEGV" in capsys.readouterr().out


def test_setup_script_runs_without_koplc_installed():
    done = subprocess.run([sys.executable, "-I", llama_build.__file__, "cmake-args", "portable"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "-DGGML_NATIVE=OFF" in done.stdout and "-DGGML_AVX512=OFF" in done.stdout


@pytest.mark.model
def test_doctor_reports_the_build_the_model_and_a_passing_smoke_check(capsys):
    from koplc.cli import main

    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    for label in ("llama-cpp-python", "llama.cpp build", "xcr0 (OS-enabled states)", "model",
                  "cache folder"):
        assert f"\n{label} " in out
    assert "SHA-256 matches" in out and "smoke check" in out and "passed: decoded" in out


def test_doctor_fails_when_the_smoke_check_dies(capsys, monkeypatch):
    from koplc.cli import main

    monkeypatch.setenv(llama_build.CRASH_ENV, "any")
    assert main(["doctor"]) == 1
    assert "FAILED: died with SIGSEGV" in capsys.readouterr().out
