"""The bootstrap interval of a rank correlation (Spearman) on many items: resamples ranked by counting value codes
(core.stats, the default) against each resample sorted by scipy's rankdata (the values' path), same seed.

    PYTHONPATH=src python benchmarks/rank_bootstrap.py --items 43000 --resamples 1000 [--repeats 2]
    PYTHONPATH=src python benchmarks/rank_bootstrap.py --smoke    # 300 items, 50 resamples

The items are of DWUG's shape: a gold that is a median of DURel judgments (1 to 4 in steps of 0.5, many ties) and a
continuous score (gold + noise, rounded to 4 decimals). Each path is timed in turn, A B A B, in this process; the
two Estimates must be equal to the last bit (the script stops otherwise).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _smoke import add_smoke_option, smoke  # noqa: E402


def timed(coded: bool, columns: tuple[np.ndarray, ...], resamples: int):
    from senso.core import stats

    saved = stats.CODED
    stats.CODED = saved if coded else {}
    try:
        start, cpu = time.perf_counter(), time.process_time()
        estimate = stats.bootstrap_estimate(stats.spearman, *columns, n_resamples=resamples, seed=0,
                                            rowwise=stats.rowwise_spearman)
        return estimate, time.perf_counter() - start, time.process_time() - cpu
    finally:
        stats.CODED = saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=43000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=1)
    add_smoke_option(parser)
    args = smoke(parser.parse_args(), items=300, resamples=50)
    rng = np.random.default_rng(7)
    gold = rng.integers(2, 9, args.items) / 2.0
    score = np.round(gold + rng.normal(size=args.items) * 1.5, 4)
    from senso.core.stats import spearman

    spearman(score[:3], gold[:3])  # scipy imported before any timing
    print(f"{args.items} items, {args.resamples} resamples; load {os.getloadavg()[0]:.2f}")
    for repeat in range(args.repeats):
        ranked, ranked_s, ranked_cpu = timed(False, (score, gold), args.resamples)
        coded, coded_s, coded_cpu = timed(True, (score, gold), args.resamples)
        if coded != ranked:
            raise SystemExit(f"the two paths differ: {coded} vs {ranked}")
        print(f"repeat {repeat}: rankdata per resample {ranked_s:.2f} s wall, {ranked_cpu:.2f} s CPU; codes counted "
              f"{coded_s:.2f} s wall, {coded_cpu:.2f} s CPU ({ranked_cpu / max(coded_cpu, 1e-9):.1f}x in CPU); equal to "
              f"the last bit: {coded.format()}")
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
