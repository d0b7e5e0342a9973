"""How koplc builds llama.cpp and proves the build runs on this machine.

A CPU's cpuid flags say what it can do; XCR0 (read with xgetbv) says which register states the
operating system saves, and an instruction whose state the OS does not enable faults. A CPU
listing AMX under a kernel that does not enable AMX tile data crashed llama.cpp's
`-march=native` build on its first Q4_K matrix product, so the build here turns on exactly the
instruction sets that both the CPU and the OS allow (`tuned`), or only x86-64-v3's AVX2, FMA,
F16C and BMI2 (`portable`). Which build is installed is written beside the environment, and
`check` decodes a few tokens in a subprocess: if that process dies, the portable build
replaces the tuned one.

Only the standard library is used here: `make setup` runs this file before koplc is installed.
"""

from __future__ import annotations

import ctypes
import json
import mmap
import os
import platform
import re
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

# XCR0 bits: the register states the OS saves on a context switch.
SSE_STATE, AVX_STATE = 1 << 1, 1 << 2
AVX512_STATE = 0b111 << 5          # opmask, ZMM_Hi256, Hi16_ZMM
AMX_STATE = 0b11 << 17             # tile config, tile data

AVX512_BASE = ("avx512f", "avx512cd", "avx512vl", "avx512dq", "avx512bw")
# ggml's CMake option -> (cpuinfo flags it needs, XCR0 states it needs).
OPTIONS: dict[str, tuple[tuple[str, ...], int]] = {
    "GGML_SSE42": (("sse4_2",), SSE_STATE),
    "GGML_AVX": (("avx",), SSE_STATE | AVX_STATE),
    "GGML_AVX2": (("avx", "avx2"), SSE_STATE | AVX_STATE),
    "GGML_FMA": (("avx", "fma"), SSE_STATE | AVX_STATE),
    "GGML_F16C": (("avx", "f16c"), SSE_STATE | AVX_STATE),
    "GGML_BMI2": (("bmi2",), 0),
    "GGML_AVX_VNNI": (("avx2", "avx_vnni"), SSE_STATE | AVX_STATE),
    "GGML_AVX512": (AVX512_BASE, SSE_STATE | AVX_STATE | AVX512_STATE),
    "GGML_AVX512_VBMI": (AVX512_BASE + ("avx512vbmi",), SSE_STATE | AVX_STATE | AVX512_STATE),
    "GGML_AVX512_VNNI": (AVX512_BASE + ("avx512_vnni",), SSE_STATE | AVX_STATE | AVX512_STATE),
    "GGML_AVX512_BF16": (AVX512_BASE + ("avx512_bf16",), SSE_STATE | AVX_STATE | AVX512_STATE),
    "GGML_AMX_TILE": (AVX512_BASE + ("amx_tile",), AVX512_STATE | AMX_STATE),
    "GGML_AMX_INT8": (AVX512_BASE + ("amx_tile", "amx_int8"), AVX512_STATE | AMX_STATE),
    "GGML_AMX_BF16": (AVX512_BASE + ("amx_tile", "amx_bf16"), AVX512_STATE | AMX_STATE),
}
PORTABLE = frozenset({"GGML_SSE42", "GGML_AVX", "GGML_AVX2", "GGML_FMA", "GGML_F16C",
                      "GGML_BMI2"})
VARIANTS = ("tuned", "portable")
CRASH_ENV = "KOPLC_SMOKE_CRASH"     # fault injection: the smoke check of this variant dies
SMOKE_PROMPT = "Question: What is the capital of France?\nAnswer:"


def cpu_flags() -> frozenset[str]:
    """The cpuid flags the kernel lists for the first CPU."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return frozenset()
    found = re.search(r"^flags\s*:(.*)$", text, re.MULTILINE)
    return frozenset(found.group(1).split()) if found else frozenset()


def xcr0(flags: frozenset[str] | None = None) -> int | None:
    """XCR0 as xgetbv reads it; None off x86-64, without XSAVE, or where no executable page
    can be mapped."""
    flags = cpu_flags() if flags is None else flags
    if platform.machine() not in ("x86_64", "AMD64") or "xsave" not in flags:
        return None
    # xor ecx,ecx; xgetbv; shl rdx,32; or rax,rdx; ret
    code = bytes.fromhex("31c90f01d048c1e2204809d0c3")
    try:
        page = mmap.mmap(-1, mmap.PAGESIZE,
                         prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    except (OSError, ValueError):
        return None
    page.write(code)
    anchor = ctypes.c_char.from_buffer(page)
    value = ctypes.CFUNCTYPE(ctypes.c_uint64)(ctypes.addressof(anchor))()
    del anchor
    page.close()
    return int(value)


def amx_permitted() -> bool:
    """Whether Linux grants this process AMX tile data (arch_prctl ARCH_REQ_XCOMP_PERM)."""
    if sys.platform != "linux" or platform.machine() != "x86_64":
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    sys_arch_prctl, arch_req_xcomp_perm, xfeature_xtiledata = 158, 0x1023, 18
    return libc.syscall(sys_arch_prctl, arch_req_xcomp_perm, xfeature_xtiledata) == 0


def usable_options(flags: frozenset[str], states: int | None, amx: bool) -> frozenset[str]:
    """The ggml options this machine's CPU has and its OS enables. Unknown XCR0 (`states`
    None) trusts the kernel's flags for SSE and AVX only."""
    if states is None:
        states = SSE_STATE | AVX_STATE
    usable = set()
    for option, (needs, state) in OPTIONS.items():
        if set(needs) <= flags and states & state == state:
            usable.add(option)
    if not amx:
        usable -= {o for o in usable if o.startswith("GGML_AMX")}
    return frozenset(usable)


def this_machine() -> frozenset[str]:
    """usable_options for the machine this runs on."""
    flags = cpu_flags()
    return usable_options(flags, xcr0(flags), amx_permitted())


def variant_options(variant: str, usable: frozenset[str]) -> frozenset[str]:
    """The options a variant turns on, given what the machine can use."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown llama.cpp build variant {variant!r}")
    return usable if variant == "tuned" else usable & PORTABLE


def cmake_args(options: frozenset[str]) -> str:
    """CMAKE_ARGS for a build with exactly `options` (never -march=native)."""
    args = ["-DGGML_NATIVE=OFF", "-DLLAVA_BUILD=OFF"]
    args += [f"-D{o}={'ON' if o in options else 'OFF'}" for o in OPTIONS]
    return " ".join(args)


def pinned_version() -> str:
    """The one llama-cpp-python version koplc is tested with (pyproject.toml's pin)."""
    requirements: list[str] = []
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    if pyproject.is_file():
        extras = tomllib.loads(pyproject.read_text())["project"]["optional-dependencies"]
        requirements = [r for group in extras.values() for r in group]
    else:
        from importlib.metadata import requires
        requirements = requires("koplc") or []
    for requirement in requirements:
        found = re.match(r"llama-cpp-python(?:\[[^\]]*\])?==([\w.]+)", requirement)
        if found:
            return found.group(1)
    raise RuntimeError("koplc's requirements pin no llama-cpp-python version")


def marker_path() -> Path:
    """Where the installed build is described: beside the environment it is installed in."""
    return Path(sys.prefix) / "koplc-llama-build.json"


def installed_build(marker: Path | None = None) -> dict | None:
    """The installed build's description ({version, variant, options}), None when unknown."""
    try:
        return json.loads((marker or marker_path()).read_text())
    except (OSError, ValueError):
        return None


def write_marker(marker: Path, version: str, variant: str, options: frozenset[str]) -> None:
    """Describe the installed build (atomically)."""
    tmp = marker.with_suffix(".tmp")
    tmp.write_text(json.dumps({"version": version, "variant": variant,
                               "options": sorted(options)}, indent=1) + "\n")
    os.replace(tmp, marker)


def build(variant: str, marker: Path | None = None) -> None:
    """Compile and install llama-cpp-python (pinned version) as `variant` for this machine,
    with no wheel cache, so no build made for one CPU reaches another."""
    version, options = pinned_version(), variant_options(variant, this_machine())
    print(f"koplc: building llama.cpp {version} ({variant}: "
          f"{', '.join(sorted(o[5:] for o in options)) or 'baseline x86-64'})", flush=True)
    env = dict(os.environ, CMAKE_ARGS=cmake_args(options))
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(len(os.sched_getaffinity(0))))
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-cache-dir", "--force-reinstall",
                    "--no-deps", "--no-binary", "llama-cpp-python",
                    f"llama-cpp-python[server]=={version}"], env=env, check=True)
    write_marker(marker or marker_path(), version, variant, options)


def install(force: bool = False) -> None:
    """Build the tuned variant unless a build of the pinned version that this machine can run
    is installed already."""
    have, usable = installed_build(), this_machine()
    importable = subprocess.run([sys.executable, "-c", "import llama_cpp"],
                                capture_output=True).returncode == 0
    if (not force and importable and have and have.get("version") == pinned_version()
            and set(have.get("options", ())) <= usable):
        print(f"koplc: llama.cpp {have['version']} ({have['variant']} build) is installed")
        return
    build("tuned")


def smoke(marker: Path | None = None, timeout: float = 600) -> tuple[bool, str]:
    """Load the embedded model in a subprocess and decode a few tokens: (worked, what
    happened)."""
    command = [sys.executable, "-m", "koplc.llm.lm.llama_build", "smoke-child",
               str(marker or marker_path())]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, f"no answer within {timeout:.0f} s"
    if done.returncode == 0:
        return True, done.stdout.strip().splitlines()[-1]
    if done.returncode < 0:
        return False, f"died with {signal.Signals(-done.returncode).name}"
    lines = (done.stderr or done.stdout).strip().splitlines()
    return False, f"exit {done.returncode}: {lines[-1] if lines else 'no output'}"


def smoke_child(marker: Path) -> None:
    """The smoke check's subprocess: llama.cpp's own greedy completion, then koplc's
    speculative one, on the embedded model."""
    variant = (installed_build(marker) or {}).get("variant")
    if os.environ.get(CRASH_ENV) in (variant, "any"):
        ctypes.string_at(0)     # a real segmentation fault, as a faulting kernel would give
    from koplc.llm.lm.embedded import LlamaCppLM

    plain = LlamaCppLM(n_ctx=512, speculative=False).generate(SMOKE_PROMPT, max_tokens=8)[0]
    fast = LlamaCppLM(n_ctx=512)
    print(f"decoded {plain!r} and {fast.generate(SMOKE_PROMPT, max_tokens=8)[0]!r} "
          f"with {fast.path.name}")


def check(marker: Path | None = None, rebuild=build) -> bool:
    """The smoke check; when it fails, rebuild the portable variant and check again."""
    worked, detail = smoke(marker)
    if not worked:
        print(f"koplc: llama.cpp's smoke check {detail}; rebuilding the portable variant",
              flush=True)
        rebuild("portable", marker)
        worked, detail = smoke(marker)
    print(f"koplc: llama.cpp smoke check {'passed' if worked else 'failed'}: {detail}",
          flush=True)
    return worked


def main(argv: list[str]) -> int:
    command = argv[0] if argv else ""
    if command == "install":
        install(force="--force" in argv)
    elif command == "check":
        return 0 if check() else 1
    elif command == "smoke-child":
        smoke_child(Path(argv[1]))
    elif command == "cmake-args":
        print(cmake_args(variant_options(argv[1] if len(argv) > 1 else "tuned",
                                         this_machine())))
    else:
        print("usage: llama_build.py install [--force] | check | cmake-args [tuned|portable]",
              file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
