"""Greedy decoding under each llama.cpp build, side by side on the same prompts: the portable
build (AVX2, FMA, F16C, BMI2), the tuned one `make setup` installs (what this CPU has and its
OS enables) and `-march=native` (the build that crashed where the kernel leaves AMX off).

    .venv/bin/python benchmarks/llama_builds.py --limit 50 --out build/llama_builds

Each build is compiled once into OUT/<variant>/site (a few minutes each, no wheel cache), smoke
checked in a subprocess, then timed by benchmarks/llm_decoding.py with that build first on the
path, --rounds times in alternating order. Prints one row a build: the median over its runs of
the median seconds per question for plain and speculative greedy decoding, the ratio to the
portable build, and the load average after each run."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from koplc.llm.lm import llama_build

HERE = Path(__file__).resolve().parent


def cmake_args(variant: str) -> str:
    if variant == "native":
        return "-DGGML_NATIVE=ON -DLLAVA_BUILD=OFF"
    return llama_build.cmake_args(llama_build.variant_options(variant,
                                                              llama_build.this_machine()))


def compile_into(variant: str, site: Path) -> None:
    if (site / "llama_cpp").is_dir():
        return
    env = dict(os.environ, CMAKE_ARGS=cmake_args(variant))
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-cache-dir", "--no-deps",
                    "--no-binary", "llama-cpp-python", "--target", str(site),
                    f"llama-cpp-python=={llama_build.pinned_version()}"], env=env, check=True)


def run_with(site: Path, command: list[str]) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [
        str(site), os.environ.get("PYTHONPATH")])))
    return subprocess.run(command, env=env, capture_output=True, text=True)


def measure(variant: str, out: Path, args, run: int) -> dict:
    site = out / variant / "site"
    compile_into(variant, site)
    where = out / variant / f"run{run}"
    smoke = run_with(site, [sys.executable, "-m", "koplc.llm.lm.llama_build", "smoke-child",
                            str(llama_build.marker_path())])
    if smoke.returncode != 0:
        return {"build": variant, "smoke": f"died ({smoke.returncode})"}
    timed = run_with(site, [sys.executable, str(HERE / "llm_decoding.py"), "--hops", args.hops,
                            "--limit", str(args.limit), "--out", str(where)])
    if timed.returncode != 0:
        return {"build": variant, "smoke": "passed", "error": timed.stderr.strip()[-300:]}
    report = json.loads((where / "decoding.json").read_text())
    return {"build": variant, "smoke": "passed", "plain_median_s": report["plain"]["median"],
            "speculative_median_s": report["speculative"]["median"],
            "same_output": report["same output"]}


def combine(variant: str, runs: list[dict]) -> dict:
    """One row a build: the median over its runs (a run that crashed makes the row say so)."""
    timed = [r for r in runs if "plain_median_s" in r]
    if len(timed) < len(runs):
        return next(r for r in runs if "plain_median_s" not in r)
    return {"build": variant, "smoke": "passed",
            "plain_median_s": statistics.median(r["plain_median_s"] for r in timed),
            "speculative_median_s": statistics.median(r["speculative_median_s"] for r in timed),
            "same_output": " / ".join(r["same_output"] for r in timed),
            "load": " / ".join(f"{r['load']:.1f}" for r in timed)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variants", default="portable,tuned,native")
    parser.add_argument("--hops", default="1")
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=2,
                        help="runs of each build, in alternating order (a shared host drifts)")
    parser.add_argument("--out", default="build/llama_builds")
    args = parser.parse_args()
    out = Path(args.out)
    variants = args.variants.split(",")
    runs: dict[str, list[dict]] = {v: [] for v in variants}
    for run in range(args.rounds):
        for v in variants if run % 2 == 0 else variants[::-1]:
            runs[v].append(measure(v, out, args, run) | {"load": os.getloadavg()[0]})
    rows = [combine(v, runs[v]) for v in variants]
    anchor = next((r for r in rows if r["build"] == "portable" and "plain_median_s" in r), None)
    print("| build | smoke | plain median s | speculative median s | plain ratio to portable |"
          " same output | load average |\n|---|---|---|---|---|---|---|")
    for r in rows:
        ratio = (round(r["plain_median_s"] / anchor["plain_median_s"], 2)
                 if anchor and "plain_median_s" in r else "")
        print(f"| {r['build']} | {r['smoke']} | {r.get('plain_median_s', '')} | "
              f"{r.get('speculative_median_s', '')} | {ratio} | {r.get('same_output', '')} | "
              f"{r.get('load', '')} |")
    (out / "builds.json").write_text(json.dumps({"rows": rows, "runs": runs}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
