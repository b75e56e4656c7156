"""Start-up: `senso --help`, and a warm start of the default model to its first scored item.

    PYTHONPATH=src python benchmarks/startup_speed.py --pairs 3 [--threads N] [--legacy-dir DIR] [--model SPEC]
        [--data-dir DIR]
    PYTHONPATH=src python benchmarks/startup_speed.py --smoke    # seconds: a tiny random LM, 1 pair

Each measurement is a fresh process (the model folder already converted, the files in the page
cache after the first run: a warm start). The child reports its own phases: importing senso,
loading the model (`load_model(spec, "lm")`, the default model unless `--model`), scoring one
ABRICOT-like item (the first forward pass, model fingerprint included). With `--legacy-dir` (an old
bfloat16 checkpoint folder, loaded in float32: a cast) each pair also times that folder, for the
before/after comparison. The children import the senso that this process imports. `--threads N` sets the
children's OMP_NUM_THREADS (torch's threads): on a machine whose other cores are busy, two threads wait for each
other at every operation (the first forward pass measured 10x slower), which says nothing about start-up. The
last lines give the median of each case over the pairs. With `--data-dir`, each pair also times the whole command
`senso run abricot-abs --limit 1 --no-cache` (data read, one item scored, the run folder written).

In smoke mode the parent has built the tiny model (torch imported), so every child's peak RSS includes
the parent's pages copied at fork: the smoke's RSS column is not the children's own.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _process_stats import run_measured, senso_env  # noqa: E402
from _smoke import add_smoke_option, smoke, tiny_lm_spec  # noqa: E402

CHILD = """
import json, sys, time
t0 = time.perf_counter(); c0 = time.process_time()
from senso.backends.load import load_model
from senso.likert.task import LikertPrompt
t1 = time.perf_counter(); c1 = time.process_time()
lm = load_model(sys.argv[1] or None, "lm")
t2 = time.perf_counter(); c2 = time.process_time()
lm.loglikelihood_choices([LikertPrompt("x", "Assegna un valore da 1 a 5 alla parola cane: Il cane dorme.\\n")])
t3 = time.perf_counter(); c3 = time.process_time()
print(json.dumps({"import_s": t1 - t0, "load_s": t2 - t1, "first_item_s": t3 - t2,
                  "import_cpu": c1 - c0, "load_cpu": c2 - c1, "first_item_cpu": c3 - c2}))
"""
RUN_FOLDER = "<a new folder>"  # replaced in each run of the command by a folder of its own


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--legacy-dir", default=None, help="an old bfloat16 checkpoint folder to time beside")
    parser.add_argument("--model", default=None, help="model spec to time (default: the built-in gemma3-270m)")
    parser.add_argument("--threads", type=int, default=None, help="the children's OMP_NUM_THREADS (default: unset)")
    parser.add_argument("--data-dir", default=None, help="also time `senso run abricot-abs --limit 1 --no-cache` on it")
    add_smoke_option(parser)
    args = smoke(parser.parse_args(), model=tiny_lm_spec, pairs=1)
    env = senso_env({"TRANSFORMERS_VERBOSITY": "error", **({"OMP_NUM_THREADS": str(args.threads)} if args.threads else {})})
    print(f"PYTHONPATH {env['PYTHONPATH']}; model {args.model or 'the built-in default'}")
    cases = [("senso --help", [sys.executable, "-m", "senso.cli", "--help"]),
             (f"{'--model' if args.model else 'default model'}, warm start", [sys.executable, "-c", CHILD, args.model or ""])]
    if args.data_dir and not args.smoke:
        cases.append(("senso run abricot-abs --limit 1", [sys.executable, "-m", "senso.cli", "run", "abricot-abs", "--limit",
                      "1", "--no-cache", "--quiet", "--data-dir", args.data_dir, "--out", RUN_FOLDER]))
    if args.legacy_dir:
        cases.append(("legacy bf16 folder, warm start", [sys.executable, "-c", CHILD, f"hf:{args.legacy_dir}"]))
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; threads {args.threads or 'default'}")
    print(f"{'case':32} {'pair':>4} {'wall s':>7} {'CPU s':>6} {'RSS MB':>7}  phases (s)")
    runs: dict[str, list] = {name: [] for name, _ in cases}
    for pair in range(args.pairs):
        for name, command in cases:
            with tempfile.TemporaryDirectory(prefix="senso-startup-") as folder:
                stats = run_measured([Path(folder, "run").as_posix() if a == RUN_FOLDER else a for a in command], env=env)
            if stats.returncode:
                raise SystemExit(f"{name} failed:\n{stats.stderr[-2000:]}")
            phases = json.loads(stats.stdout.strip().splitlines()[-1]) if "warm" in name else {}
            detail = " ".join(f"{k}={v:.2f}" for k, v in phases.items())
            print(f"{name:32} {pair:>4} {stats.wall_s:>7.2f} {stats.cpu_s:>6.2f} {stats.peak_rss_mb:>7.0f}  {detail}",
                  flush=True)
            runs[name].append(stats)
    for name, stats in runs.items():
        print(f"median {name}: {statistics.median(s.wall_s for s in stats):.2f} s wall, "
              f"{statistics.median(s.cpu_s for s in stats):.2f} s CPU over {len(stats)} runs")
    print(f"load average now {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
