"""Start-up: `senso --help`, and a warm start of the default model to its first scored item.

    PYTHONPATH=src python benchmarks/startup_speed.py --pairs 2 [--legacy-dir DIR]

Each measurement is a fresh process (the model folder already converted, the files in the page
cache after the first run: a warm start). The child reports its own phases: importing senso,
loading the model (`load_loglikelihood_model`), scoring one ABRICOT-like item (the first forward
pass, model fingerprint included). With `--legacy-dir` (an old bfloat16 checkpoint folder, loaded
in float32: a cast) each pair also times that folder, for the before/after comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from process_stats import run_measured  # noqa: E402

CHILD = """
import json, sys, time
t0 = time.perf_counter(); c0 = time.process_time()
from senso.backends.specs import load_loglikelihood_model
from senso.likert.task import LikertPrompt
t1 = time.perf_counter(); c1 = time.process_time()
lm = load_loglikelihood_model(sys.argv[1] or None, cache=None)
t2 = time.perf_counter(); c2 = time.process_time()
lm.loglikelihood_choices([LikertPrompt("x", "Assegna un valore da 1 a 5 alla parola cane: Il cane dorme.\\n")])
t3 = time.perf_counter(); c3 = time.process_time()
print(json.dumps({"import_s": t1 - t0, "load_s": t2 - t1, "first_item_s": t3 - t2,
                  "import_cpu": c1 - c0, "load_cpu": c2 - c1, "first_item_cpu": c3 - c2}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--legacy-dir", default=None, help="an old bfloat16 checkpoint folder to time beside")
    args = parser.parse_args()
    env = {**os.environ, "TRANSFORMERS_VERBOSITY": "error"}
    cases = [("senso --help", [sys.executable, "-m", "senso.cli", "--help"]),
             ("default model, warm start", [sys.executable, "-c", CHILD, ""])]
    if args.legacy_dir:
        cases.append(("legacy bf16 folder, warm start", [sys.executable, "-c", CHILD, f"hf:{args.legacy_dir}"]))
    print(f"{'case':32} {'pair':>4} {'wall s':>7} {'CPU s':>6} {'RSS MB':>7}  phases (s)")
    for pair in range(args.pairs):
        for name, command in cases:
            stats = run_measured(command, env=env)
            if stats.returncode:
                raise SystemExit(f"{name} failed:\n{stats.stderr[-2000:]}")
            phases = json.loads(stats.stdout.strip().splitlines()[-1]) if "warm" in name else {}
            detail = " ".join(f"{k}={v:.2f}" for k, v in phases.items())
            print(f"{name:32} {pair:>4} {stats.wall_s:>7.2f} {stats.cpu_s:>6.2f} {stats.peak_rss_mb:>7.0f}  {detail}",
                  flush=True)


if __name__ == "__main__":
    main()
