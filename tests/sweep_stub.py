"""A stand-in for `senso.api.run` in sweep tests (the sweep's test seam): writes a results.json
whose metrics are computed from the options, so the summary can be checked exactly."""

from __future__ import annotations

import json
import os
from pathlib import Path

from senso.core.errors import SensoError
from senso.catalog import RunOptions


def stub_run(options: RunOptions) -> Path:
    run_dir = Path(options.out)
    with (run_dir / "calls.txt").open("a") as fh:
        fh.write(f"{os.getpid()}\n")
    if options.system_options.get("fail") == "yes":
        raise SensoError(f"{options.task}: deliberate failure")
    value = 0.5 + 0.1 * options.seed
    metrics = {"pearson": {"value": value, "ci_low": value - 0.1, "ci_high": value + 0.1},
               "spearman": {"value": None, "reason": "prediction is constant (every item: 1)"}}
    results = {"task": options.task, "n": options.limit or 10, "metrics": metrics, "pid": os.getpid()}
    (run_dir / "results.json").write_text(json.dumps(results), encoding="utf-8")
    return run_dir
