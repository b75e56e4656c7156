"""Build llama-cpp-python (the `server` test extra) so that it runs on any x86-64 CPU, and install it.

Why: pip compiles llama.cpp from its sdist with `-march=native`. On a CPU that advertises AMX but whose
machine does not let a process use it (a VM, a container), that build crashes on its first matrix product
(`ldtilecfg` in `ggml_backend_amx_mul_mat`, SIGSEGV). Turning the AMX options off is not enough: the
native build still defines `__AMX_INT8__`. So the build here is never native: the instruction sets are
chosen explicitly (`LEVELS`), the CPU's own flags decide only between a baseline and x86-64-v3, and no
level enables AMX.

The wheel is built once per (version, level) into `$SENSO_WHEEL_DIR` (default
`~/.cache/senso/wheels`), with pip's wheel cache off, so a natively built wheel that pip cached earlier is
never picked up; it is then installed over whatever llama-cpp-python the venv had.

    python scripts/llama_cpp_portable.py                 # pick the level from /proc/cpuinfo, build, install
    python scripts/llama_cpp_portable.py --level x86-64  # force a level (e.g. to measure another build)
    python scripts/llama_cpp_portable.py --print-level   # only say which level this machine gets
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
NO_AMX = ["-DGGML_AMX_TILE=OFF", "-DGGML_AMX_INT8=OFF", "-DGGML_AMX_BF16=OFF"]
_V3 = ["-DGGML_SSE42=ON", "-DGGML_AVX=ON", "-DGGML_AVX2=ON", "-DGGML_FMA=ON", "-DGGML_F16C=ON", "-DGGML_BMI2=ON"]
_AVX512 = ["-DGGML_AVX512=ON", "-DGGML_AVX512_VBMI=ON", "-DGGML_AVX512_VNNI=ON", "-DGGML_AVX512_BF16=ON",
           "-DGGML_AVX_VNNI=ON"]
_OFF = ["-DGGML_SSE42=OFF", "-DGGML_AVX=OFF", "-DGGML_AVX2=OFF", "-DGGML_FMA=OFF", "-DGGML_F16C=OFF",
        "-DGGML_BMI2=OFF", "-DGGML_AVX512=OFF"]
# level -> (CPU flags it needs, CMake arguments). Never -DGGML_NATIVE=ON, never AMX.
LEVELS: dict[str, tuple[tuple[str, ...], list[str]]] = {
    "x86-64": ((), ["-DGGML_NATIVE=OFF", *_OFF, *NO_AMX]),
    "x86-64-v3": (("avx", "avx2", "fma", "f16c", "bmi2", "sse4_2"),
                  ["-DGGML_NATIVE=OFF", *_V3, "-DGGML_AVX512=OFF", *NO_AMX]),
    # Not picked automatically: the fastest build that still has no AMX, to measure what portability costs.
    "x86-64-v4-noamx": (("avx512f", "avx512bw", "avx512vl", "avx512_vbmi", "avx512_vnni", "avx512_bf16", "avx_vnni"),
                        ["-DGGML_NATIVE=OFF", *_V3, *_AVX512, *NO_AMX]),
}
AUTOMATIC = ("x86-64-v3", "x86-64")  # best first


def cpu_flags(cpuinfo: str) -> set[str]:
    match = re.search(r"^flags\s*:(.*)$", cpuinfo, re.MULTILINE)
    return set(match.group(1).split()) if match else set()


def pick_level(flags: set[str]) -> str:
    """The best automatic level whose instruction sets this CPU has (the baseline needs none)."""
    return next(level for level in AUTOMATIC if set(LEVELS[level][0]) <= flags)


def pinned_requirement() -> str:
    """The llama-cpp-python requirement of the `server` extra in pyproject.toml (kept there, once)."""
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(r'"llama-cpp-python(?:\[server\])?==([0-9.]+)"', text)
    if not match:
        sys.exit("pyproject.toml: the `server` extra must pin llama-cpp-python[server]==VERSION")
    return match.group(1)


def build_wheel(version: str, level: str, wheel_dir: Path) -> Path:
    existing = sorted(wheel_dir.glob(f"llama_cpp_python-{version}-*.whl"))
    if existing:
        return existing[-1]
    print(f"Building llama-cpp-python {version} for {level} (no AMX, not native) into {wheel_dir}: "
          "llama.cpp compiles, about 9 minutes on 2 cores, once per machine.", flush=True)
    env = dict(os.environ, CMAKE_ARGS=" ".join(LEVELS[level][1]), FORCE_CMAKE="1")
    wheel_dir.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=wheel_dir.parent) as scratch:
        subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-cache-dir", "--no-deps",
                        "--no-binary", "llama-cpp-python", "-w", scratch, f"llama-cpp-python=={version}"],
                       env=env, check=True)
        built = next(Path(scratch).glob("llama_cpp_python-*.whl"))
        wheel_dir.mkdir(parents=True, exist_ok=True)
        target = wheel_dir / built.name
        shutil.move(str(built), str(target))  # the folder holds a wheel only once it is whole
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", choices=sorted(LEVELS), help="instruction-set level (default: from /proc/cpuinfo)")
    parser.add_argument("--print-level", action="store_true", help="print the level and stop")
    args = parser.parse_args(argv)
    cpuinfo = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    level = args.level or pick_level(cpu_flags(cpuinfo))
    if args.print_level:
        print(level)
        return 0
    version = pinned_requirement()
    root = Path(os.environ.get("SENSO_WHEEL_DIR") or Path.home() / ".cache" / "senso" / "wheels")
    wheel = build_wheel(version, level, root / f"llama-cpp-python-{version}-{level}")
    pip = [sys.executable, "-m", "pip", "install", "-q"]
    subprocess.run([*pip, "--no-deps", "--force-reinstall", str(wheel)], check=True)  # over any other build
    subprocess.run([*pip, str(wheel)], check=True)  # its own requirements (numpy, diskcache, ...); no rebuild
    print(f"llama-cpp-python {version} ({level}, no AMX) installed from {wheel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
