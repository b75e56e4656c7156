"""ABRICOT scoring speed on the default model, and parity with lm-evaluation-harness on every item.

For each protocol (`calamita` 0-shot, `paper` 3-shot) and task, scores the items with the response
cache disabled and prints items/s, the tokens actually run through the model against the tokens in
all scored sequences (what lm-eval runs: five full sequences per item), and, where the lm-eval
reference files are present, the mean absolute difference of the log-likelihoods and the argmax
agreement.

    PYTHONPATH=src python benchmarks/abricot_speed.py --data-dir ../shared/data

Beside each protocol and task it times, in the same process, the row-by-row path (`batch_rows=False`:
every row alone, unpadded, as before rows ran in fixed-shape passes) on the same items, and gives the
ratio and the largest log-likelihood difference; `--no-rows-alone` leaves it out. `--baseline N` also
times the plain path (one pass per continuation, no prefix reuse) on the first N items, to measure the
speed-up rather than infer it from token counts.

    PYTHONPATH=src python benchmarks/abricot_speed.py --smoke    # seconds: a tiny random LM, 2 items, baseline 2, 1 thread

In smoke mode the lm-eval comparison still runs (the reference files, if present, are read for the smoke
items), but against a random model its numbers are meaningless.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch

from _smoke import add_smoke_option, smoke, tiny_lm_spec
from senso.backends.load import load_model
from senso.likert.data import load_abricot, locate_abricot
from senso.likert.systems.likert_lm import argmax_choice
from senso.likert.lmeval_reference import LMEVAL_REFERENCE_FILES, read_lmeval_loglikelihoods
from senso.likert.task import build_prompts, get_task


def timed(lm, prompts, batch_size: int) -> tuple[list[list[float]], float]:
    lm.reset_counters()
    start = time.perf_counter()
    scores = lm.loglikelihood_choices(prompts, batch_size=batch_size)
    return scores, time.perf_counter() - start


def speed_line(lm, protocol: str, task_name: str, prompts, scores, seconds: float, reference) -> str:
    """The table row of one protocol and task; MAD and argmax agreement with lm-eval where its reference is."""
    mad = worst = agree = "-"
    if reference is not None:
        diffs, same = [], 0
        for prompt, got in zip(prompts, scores):
            expected = reference[(task_name, prompt.item_id)]
            diffs += [abs(a - b) for a, b in zip(got, expected)]
            same += argmax_choice(got) == argmax_choice(expected)
        mad, worst, agree = f"{sum(diffs) / len(diffs):.2e}", f"{max(diffs):.2e}", f"{same}/{len(prompts)}"
    return (f"{protocol:9} {task_name:12} {len(prompts):>5} {seconds:>8.1f} {len(prompts) / seconds:>8.2f} "
            f"{lm.tokens_computed:>9} {lm.tokens_padding:>7} {lm.tokens_in_prompts:>10} "
            f"{lm.tokens_computed / lm.tokens_in_prompts:>6.3f} {lm.forward_calls:>6} {mad:>15} {worst:>9} {agree:>8}")


def rows_alone_line(lm, prompts, scores, seconds: float, batch_size: int) -> str:
    """The row-by-row path (every row alone, unpadded) timed on the same prompts as the fixed-shape passes."""
    lm.batch_rows = False
    alone_scores, alone_s = timed(lm, prompts, batch_size)
    lm.batch_rows = True
    gap = max(abs(a - b) for x, y in zip(alone_scores, scores) for a, b in zip(x, y))
    return (f"  rows alone on {len(prompts)} items: {alone_s:.1f} s, {len(prompts) / alone_s:.2f} items/s "
            f"(fixed-shape passes x{alone_s / seconds:.2f}); max |difference| {gap:.1e}")


def baseline_line(lm, subset, batch_size: int) -> str:
    """The plain path (one pass per continuation, no prefix reuse) timed against the fast one on `subset`."""
    lm.reuse_prefix = lm.merge_continuations = False
    base_scores, base_s = timed(lm, subset, batch_size)
    lm.reuse_prefix = lm.merge_continuations = True
    fast_scores, fast_s = timed(lm, subset, batch_size)
    gap = max(abs(a - b) for x, y in zip(base_scores, fast_scores) for a, b in zip(x, y))
    return (f"  plain path on {len(subset)} items: {len(subset) / base_s:.2f} items/s vs "
            f"{len(subset) / fast_s:.2f} (x{base_s / fast_s:.1f}); max |difference| {gap:.1e}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--reference-dir", default=None, help="default: <data-dir>/../reference")
    parser.add_argument("--model", default=None, help="model spec (default: the built-in gemma3-270m)")
    parser.add_argument("--tasks", nargs="+", default=["abricot-abs", "abricot-inc"])
    parser.add_argument("--protocols", nargs="+", default=["calamita", "paper"])
    parser.add_argument("--limit", type=int, default=None, help="score only the first N items")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's choice)")
    parser.add_argument("--baseline", type=int, default=0, help="also time the plain path on the first N items")
    parser.add_argument("--no-rows-alone", dest="rows_alone", action="store_false",
                        help="do not time the row-by-row path beside each protocol and task")
    add_smoke_option(parser)
    args = smoke(parser.parse_args(), model=tiny_lm_spec, limit=2, baseline=2, threads=1)

    if args.threads:
        torch.set_num_threads(args.threads)
    csv_path = locate_abricot(args.data_dir, allow_download=False)
    items = load_abricot(csv_path)
    reference_dir = Path(args.reference_dir) if args.reference_dir else csv_path.parent.parent.parent / "reference"

    start = time.perf_counter()
    lm = load_model(args.model, "lm", dtype=args.dtype, device=args.device, cache=None)
    load_s = time.perf_counter() - start
    print(f"model {lm.spec} ({lm.describe()['path']}), {args.dtype} on {args.device}, torch threads "
          f"{torch.get_num_threads()}, batch size {args.batch_size}, response cache off; loaded in {load_s:.1f} s")

    header = (f"{'protocol':9} {'task':12} {'items':>5} {'seconds':>8} {'items/s':>8} {'computed':>9} {'padding':>7} "
              f"{'in prompts':>10} {'ratio':>6} {'passes':>6} {'MAD vs lm-eval':>15} {'max diff':>9} {'argmax':>8}")
    lines = []
    for protocol in args.protocols:
        reference_path = reference_dir / LMEVAL_REFERENCE_FILES[protocol]
        reference = read_lmeval_loglikelihoods(reference_path) if reference_path.exists() else None
        for task_name in args.tasks:
            prompts = build_prompts(items, get_task(task_name), protocol)[: args.limit]
            scores, seconds = timed(lm, prompts, args.batch_size)
            lines.append(speed_line(lm, protocol, task_name, prompts, scores, seconds, reference))
            print(lines[-1], flush=True)
            if args.rows_alone:
                lines.append(rows_alone_line(lm, prompts, scores, seconds, args.batch_size))
                print(lines[-1], flush=True)
            if args.baseline:
                lines.append(baseline_line(lm, prompts[: args.baseline], args.batch_size))
                print(lines[-1], flush=True)
    print()
    print(header)
    for line in lines:
        print(line)


if __name__ == "__main__":
    main()
