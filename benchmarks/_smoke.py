"""What the benchmarks' `--smoke` modes share: a tiny model, a handful of rows of the real data, a private cache.

A smoke run is a script's own code path, end to end, on tiny inputs: it proves the script still runs
(imports, options, the senso functions it calls), not any number it prints. tests/test_benchmarks.py
runs every script in benchmarks/ with `--smoke`. Modules whose names begin with `_` are helpers, not scripts.

- `smoke(args, **settings)`: in smoke mode, points SENSO_CACHE_DIR at a private temporary folder (nothing
  read from or written to the user's caches), replaces `args.data_dir` by a copy of a few rows of it
  (`smoke_data`) and sets the given options (a callable is called, e.g. `model=tiny_lm_spec`).
- `tiny_lm_spec()`: `hf:FOLDER` of a tiny random Llama with its own tiny tokenizer (tests/tiny_lm.py),
  built once per process.
- `smoke_data(data_dir)`: the rows of the first ABRICOT_LEMMAS lemmas of ABRICOT and the first ADMIRE_ROWS
  rows of every AdMIRe TSV (their image folders linked, not copied), laid out as the real folder, with the
  published reference folder beside it linked as `../reference` is beside the real one.
"""

from __future__ import annotations

import argparse
import atexit
import csv
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
ABRICOT_LEMMAS = 5  # 30 items, both domains: enough folds for leave-one-lemma-out with an inner CV
TINY_LM_POSITIONS = 4096  # the tiny tokenizer spends ~1 600 tokens on a 3-shot ABRICOT prompt: none is cut
ADMIRE_ROWS = 4  # per TSV file: train+dev still give a 5-fold CV grouped by compound a compound per fold
SMOKE_HELP = ("seconds, not a measurement: a tiny random LM, a few rows of --data-dir, a private cache "
              "(tests/test_benchmarks.py runs every script so)")

_made: dict[str, Any] = {}  # per process: the temporary root, the tiny model, the data copies


def add_smoke_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--smoke", action="store_true", help=SMOKE_HELP)


def _root() -> Path:
    if "root" not in _made:
        _made["root"] = Path(tempfile.mkdtemp(prefix="senso-smoke-"))
        atexit.register(shutil.rmtree, _made["root"], ignore_errors=True)
    return _made["root"]


def smoke_folder(name: str) -> Path:
    """A folder of this process's private smoke area (removed when the process exits)."""
    return _root() / name


def smoke(args: argparse.Namespace, **settings: Any) -> argparse.Namespace:
    """`args` as they are, or in smoke mode (`args.smoke`) with a private cache, tiny data and `settings`."""
    if not args.smoke:
        return args
    os.environ["SENSO_CACHE_DIR"] = str(_root() / "cache")
    if "data_dir" in vars(args):
        args.data_dir = smoke_data(args.data_dir)
    for name, value in settings.items():
        if name not in vars(args):
            raise SystemExit(f"smoke mode sets --{name.replace('_', '-')}, which this script no longer has")
        setattr(args, name, value() if callable(value) else value)
    shown = {name: getattr(args, name) for name in settings}
    print(f"smoke mode (not a measurement): data {getattr(args, 'data_dir', '-')}; {shown}", flush=True)
    return args


def tiny_lm_spec() -> str:
    """`hf:FOLDER` of the tiny random Llama (tests/tiny_lm.py), saved once per process."""
    if "lm" not in _made:
        if str(REPO / "tests") not in sys.path:
            sys.path.append(str(REPO / "tests"))
        from tiny_lm import save_tiny_lm

        _made["lm"] = f"hf:{save_tiny_lm(_root() / 'tiny-llama', max_positions=TINY_LM_POSITIONS)}"
    return _made["lm"]


def real_data_dir(data_dir: str | Path | None) -> Path:
    """The folder a full run would read: --data-dir, else $SENSO_DATA_DIR, else ../shared/data beside the repo."""
    path = Path(data_dir or os.environ.get("SENSO_DATA_DIR") or REPO.parent / "shared" / "data").expanduser()
    if not path.is_dir():
        raise SystemExit(f"smoke mode reads a few rows of the real data, but {path} is not a folder; give --data-dir")
    return path.resolve()


def smoke_data(data_dir: str | Path | None) -> Path:
    """A copy of a few rows of the real data folder (see the module docstring), made once per folder and process."""
    real = real_data_dir(data_dir)
    key = f"data:{real}"
    if key not in _made:
        out = _root() / f"data-{len([k for k in _made if k.startswith('data:')])}" / "data"
        if (real / "abricot" / "dataset_it.csv").is_file():
            _first_lemmas(real / "abricot" / "dataset_it.csv", out / "abricot" / "dataset_it.csv")
        for tsv in sorted((real / "admire").rglob("*.tsv")) if (real / "admire").is_dir() else []:
            _first_rows(tsv, out / tsv.relative_to(real))
        if (real.parent / "reference").is_dir():
            (out.parent / "reference").symlink_to(real.parent / "reference", target_is_directory=True)
        _made[key] = out
    return _made[key]


def _first_lemmas(source: Path, target: Path) -> None:
    with source.open(encoding="utf-8-sig", newline="") as fh:
        reader = csv.DictReader(fh)
        rows, lemmas = [], []
        for row in reader:
            if row["target_lemma"] not in lemmas:
                lemmas.append(row["target_lemma"])
            if len(lemmas) <= ABRICOT_LEMMAS:
                rows.append(row)
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w", encoding="utf-8-sig", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=reader.fieldnames)
        writer.writeheader()
        writer.writerows(rows)


def _first_rows(source: Path, target: Path) -> None:
    """The header and first ADMIRE_ROWS rows of an AdMIRe TSV, each row's image folder linked beside it."""
    from senso.admire.data import folder_names

    with source.open(encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.reader(fh, delimiter="\t"))[: ADMIRE_ROWS + 1]
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh, delimiter="\t", lineterminator="\n").writerows(rows)
    compound = rows[0].index("compound")
    for row in rows[1:]:
        for name in folder_names(row[compound]):
            if (source.parent / name).is_dir() and not (target.parent / name).exists():
                (target.parent / name).symlink_to(source.parent / name, target_is_directory=True)
