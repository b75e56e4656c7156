"""bfloat16 against float32 on ABRICOT items: speed, argmax agreement, mean |difference| of log-probs.

    PYTHONPATH=src python benchmarks/abricot_dtype.py --data-dir ../shared/data --limit 24 --repeats 2
    PYTHONPATH=src python benchmarks/abricot_dtype.py --smoke    # seconds: a tiny random LM, 2 items, 1 repeat

Loads the model (`--model`, default: the built-in one) twice (float32, bfloat16), scores the first `--limit` items of each task
under the given protocol with the response cache off, alternating the two dtypes (A B A B), and
reports items/s for each run and, per task, how often the argmax is the same and the mean and
largest absolute log-prob difference. Whether the CPU has native bfloat16 (avx512_bf16 / amx_bf16
in /proc/cpuinfo) decides whether bfloat16 can be faster at all; it is printed.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from _smoke import add_smoke_option, smoke, tiny_lm_spec
from senso.backends.load import load_model
from senso.likert.data import load_abricot, locate_abricot
from senso.likert.systems.likert_lm import argmax_choice
from senso.likert.task import build_prompts, get_task


def cpu_bf16_flags() -> str:
    try:
        flags = next(line for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("flags"))
    except (OSError, StopIteration):
        return "unknown"
    found = [flag for flag in ("avx512_bf16", "amx_bf16") if flag in flags.split()]
    return ", ".join(found) or "none (bfloat16 matmuls are emulated)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--model", default=None, help="model spec (default: the built-in gemma3-270m)")
    parser.add_argument("--tasks", nargs="+", default=["abricot-abs", "abricot-inc"])
    parser.add_argument("--protocol", default="calamita")
    parser.add_argument("--limit", type=int, default=24)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=8)
    add_smoke_option(parser)
    args = smoke(parser.parse_args(), model=tiny_lm_spec, limit=2, repeats=1)
    items = load_abricot(locate_abricot(args.data_dir, allow_download=False))
    print(f"CPU bfloat16 support: {cpu_bf16_flags()}; load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    models = {dtype: load_model(args.model, "lm", dtype=dtype) for dtype in ("float32", "bfloat16")}
    for task_name in args.tasks:
        prompts = build_prompts(items, get_task(task_name), args.protocol)[: args.limit]
        scores = {}
        for repeat in range(args.repeats):
            for dtype, lm in models.items():
                start = time.perf_counter()
                scores[dtype] = lm.loglikelihood_choices(prompts, batch_size=args.batch_size)
                seconds = time.perf_counter() - start
                print(f"{task_name} {args.protocol} {dtype:8} repeat {repeat}: {len(prompts) / seconds:.2f} items/s",
                      flush=True)
        diffs = [abs(a - b) for x, y in zip(scores["float32"], scores["bfloat16"]) for a, b in zip(x, y)]
        same = sum(argmax_choice(x) == argmax_choice(y) for x, y in zip(scores["float32"], scores["bfloat16"]))
        print(f"{task_name} {args.protocol}: same argmax {same}/{len(prompts)}; mean |Δ log-prob| "
              f"{sum(diffs) / len(diffs):.3f}, max {max(diffs):.3f}", flush=True)


if __name__ == "__main__":
    main()
