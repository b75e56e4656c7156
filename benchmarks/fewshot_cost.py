"""Per-item scoring time of the few-shot (paper, 3-shot) protocol against zero-shot (calamita), on one loaded
model, paired in one process (A B A B), with the tokens each computes. The target set for it: 3-shot per item
no more than 1.2x the 0-shot per-item time. Wall and CPU seconds per item are both given: with `--threads 1` on a
machine that other jobs load, the CPU seconds are the steadier measure (wall time depends on the share of a core).

    PYTHONPATH=src python benchmarks/fewshot_cost.py --data-dir ../shared/data [--items 32] [--repeats 2] [--threads 2]
    PYTHONPATH=src python benchmarks/fewshot_cost.py --smoke    # seconds: a tiny random LM, 2 items, 1 repeat
"""

from __future__ import annotations

import argparse
import os
import time

from _smoke import add_smoke_option, smoke, tiny_lm_spec


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default="../shared/data")
    parser.add_argument("--model", default=None, help="model spec (default: the built-in gemma3-270m)")
    parser.add_argument("--task", default="abricot-abs")
    parser.add_argument("--items", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=8)
    add_smoke_option(parser)
    args = smoke(parser.parse_args(), model=tiny_lm_spec, items=2, repeats=1, threads=1)

    import torch

    torch.set_num_threads(args.threads)
    from senso.backends.load import load_model
    from senso.likert.task import build_prompts, get_task

    task = get_task(args.task)
    items = task.load_items(task.locate_data(args.data_dir))
    prompts = {protocol: build_prompts(items, task, protocol)[: args.items] for protocol in ("calamita", "paper")}
    lm = load_model(args.model, "lm")  # no cache: every item computed
    lm.loglikelihood_choices(prompts["calamita"][:2], batch_size=args.batch_size)  # warm-up
    per_item: dict[str, list[float]] = {p: [] for p in prompts}
    cpu_per_item: dict[str, list[float]] = {p: [] for p in prompts}
    print(f"load average {os.getloadavg()[0]:.2f}; {args.items} items of {args.task}; {args.threads} threads; "
          f"model {lm.spec}")
    for rep in range(args.repeats):
        for protocol, batch in prompts.items():
            lm.reset_counters()
            started, cpu = time.perf_counter(), time.process_time()
            lm.loglikelihood_choices(batch, batch_size=args.batch_size)
            seconds = (time.perf_counter() - started) / len(batch)
            per_item[protocol].append(seconds)
            cpu_per_item[protocol].append((time.process_time() - cpu) / len(batch))
            print(f"rep {rep} {protocol:8} {seconds:.3f} s/item ({cpu_per_item[protocol][-1]:.3f} CPU s/item), "
                  f"tokens computed {lm.tokens_computed}; load average {os.getloadavg()[0]:.2f}", flush=True)
    ratios = [f / z for f, z in zip(per_item["paper"], per_item["calamita"])]
    cpu_ratios = [f / z for f, z in zip(cpu_per_item["paper"], cpu_per_item["calamita"])]
    print(f"3-shot / 0-shot per item, pair by pair: {', '.join(f'{r:.2f}' for r in ratios)} (CPU seconds: "
          f"{', '.join(f'{r:.2f}' for r in cpu_ratios)}); load average now {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
