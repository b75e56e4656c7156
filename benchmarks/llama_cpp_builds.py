"""What the portable llama-cpp-python build costs: the same server work on several builds of llama.cpp.

Each build is a folder holding an unpacked llama-cpp-python wheel (`python -m zipfile -e WHEEL DIR`), or
`installed` (the venv's own). For each build, in turn and alternating over `--rounds`, this starts
llama-cpp-python's OpenAI-compatible server on loopback with that build first on PYTHONPATH (the default
model's Q4_K_M GGUF), scores the ABRICOT `paper` (3-shot) prompts of the first N items through senso's
`openai` backend (one completion request per item, no response cache) and prints per build: the CPU
features llama.cpp reports, whether its CPU library holds AMX instructions (`ldtilecfg`, by objdump),
items/s, and the largest log-prob difference from the first build (builds differ in kernels, not in maths).

    python scripts/llama_cpp_portable.py --level x86-64-v4-noamx   # or unpack other wheels into folders
    PYTHONPATH=src python benchmarks/llama_cpp_builds.py --data-dir ../shared/data --items 16 --rounds 2 \\
        --build portable=/tmp/builds/v3 --build v4-noamx=/tmp/builds/v4 --build native=/tmp/builds/native

`--smoke`: the installed build only, 1 item, 1 round, the 0-shot prompt (what tests/test_benchmarks.py runs;
it does not compare builds, and it needs llama-cpp-python's server extra).
A build that crashes (a native build with AMX on a machine that does not allow it) is reported with the
server's exit signal and log, and the other builds still run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from _smoke import add_smoke_option, smoke
from senso.backends.http_pool import RetryPolicy
from senso.backends.llama_server import LlamaServer, LlamaServerDied, default_gguf
from senso.backends.openai import OpenAICompatLM
from senso.core.errors import SensoError
from senso.likert.data import load_abricot, locate_abricot
from senso.likert.task import build_prompts, get_task

SYSTEM_INFO = "import llama_cpp; print(llama_cpp.llama_print_system_info().decode().strip())"


def build_env(folder: Path | None) -> dict[str, str]:
    """The environment that puts `folder` (an unpacked wheel) before the venv's llama-cpp-python."""
    env = dict(os.environ)
    if folder is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(folder), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def describe_build(folder: Path | None) -> dict[str, str]:
    env = build_env(folder)
    info = subprocess.run([sys.executable, "-c", SYSTEM_INFO], env=env, capture_output=True, text=True)
    where = subprocess.run([sys.executable, "-c", "import llama_cpp, os; print(os.path.dirname(llama_cpp.__file__))"],
                           env=env, capture_output=True, text=True).stdout.strip()
    library = Path(where) / "lib" / "libggml-cpu.so"
    amx = "objdump missing"
    if shutil.which("objdump") and library.exists():
        code = subprocess.run(["objdump", "-d", str(library)], capture_output=True, text=True).stdout
        amx = "yes" if "ldtilecfg" in code else "no"
    return {"system_info": info.stdout.strip() or info.stderr.strip()[-300:], "amx_code": amx, "package": where}


def score_with_build(folder: Path | None, prompts) -> tuple[np.ndarray | None, float, str | None]:
    """(log-probs, seconds, None) for the prompts through a server running this build, or (None, s, why)."""
    saved = os.environ.copy()
    os.environ.clear()
    os.environ.update(build_env(folder))  # LlamaServer starts `python -m llama_cpp.server` with this environment
    server = LlamaServer(default_gguf())
    try:
        server.start()
        model = OpenAICompatLM(server.alias, server.base_url, concurrency=1, retry=RetryPolicy(max_retries=1))
        started = time.perf_counter()
        try:
            values = np.asarray(model.loglikelihood_choices(prompts))
        except SensoError as exc:
            server.check()  # a dead server says why (signal, log) instead of the client's connection error
            raise exc
        return values, time.perf_counter() - started, None
    except (LlamaServerDied, SensoError) as exc:
        return None, 0.0, str(exc)[:600]
    finally:
        server.stop()
        os.environ.clear()
        os.environ.update(saved)


def parse_builds(entries: list[str]) -> dict[str, Path | None]:
    builds: dict[str, Path | None] = {}
    for entry in entries or ["installed"]:
        name, sep, folder = entry.partition("=")
        if not sep and name != "installed":
            raise SystemExit(f"--build {entry!r}: give NAME=FOLDER (an unpacked wheel) or `installed`")
        if sep and not (Path(folder) / "llama_cpp").is_dir():
            raise SystemExit(f"--build {entry}: {folder} holds no llama_cpp package (unpack a wheel there)")
        builds[name] = Path(folder) if sep else None
    return builds


def report(builds: dict[str, Path | None], results: dict[str, list], n_items: int) -> None:
    first = None
    for name, folder in builds.items():
        info = describe_build(folder)
        runs = results[name]
        failures = [why for values, _, why in runs if why]
        times = [seconds for values, seconds, why in runs if not why]
        print(f"{name}: {info['system_info']}")
        print(f"  AMX instructions in libggml-cpu.so: {info['amx_code']}; package {info['package']}")
        if failures:
            print(f"  FAILED in {len(failures)} of {len(runs)} rounds: {failures[0]}")
        if times:
            values = next(v for v, _, why in runs if not why)
            first = values if first is None else first
            rates = ", ".join(f"{n_items / t:.3f}" for t in times)
            print(f"  items/s per round: {rates} (median {np.median([n_items / t for t in times]):.3f}); "
                  f"max |log-prob - first build's| {np.abs(values - first).max():.2e}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--task", default="abricot-abs")
    parser.add_argument("--protocol", default="paper", help="calamita (0-shot) or paper (3-shot, default)")
    parser.add_argument("--items", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--build", action="append", default=[], help="NAME=FOLDER of an unpacked wheel, or installed")
    add_smoke_option(parser)
    args = smoke(parser.parse_args(), items=1, rounds=1, build=["installed"], protocol="calamita")
    builds = parse_builds(args.build)
    items = load_abricot(locate_abricot(args.data_dir))
    prompts = build_prompts(items, get_task(args.task), args.protocol)[: args.items]
    print(f"load average at start: {Path('/proc/loadavg').read_text().strip()}")
    results: dict[str, list] = {name: [] for name in builds}
    for round_index in range(args.rounds):
        order = list(builds) if round_index % 2 == 0 else list(reversed(builds))
        for name in order:
            results[name].append(score_with_build(builds[name], prompts))
    print(f"load average at end: {Path('/proc/loadavg').read_text().strip()}")
    report(builds, results, len(prompts))


if __name__ == "__main__":
    main()
