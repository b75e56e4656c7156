"""A minimal reader of the real AdMIRe TSVs for measurement scripts only (the package's loader is
senso.data.admire; this keeps the benchmarks runnable on branches that predate it)."""

from __future__ import annotations

import ast
import csv
from pathlib import Path

from senso.data.admire_items import AdmireAItem, AdmireBItem, ImageOption

FILES = {"train": "train/subtask_a_train.tsv", "dev": "dev/subtask_a_dev.tsv", "test": "test/subtask_a_test.tsv",
         "xeval": "xeval/subtask_a_xe.tsv"}


def read_a(data_dir: Path, split: str) -> list[AdmireAItem]:
    path = Path(data_dir) / "admire" / "subtask_a" / "en" / FILES[split]
    items = []
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            images = tuple(ImageOption(row[f"image{i}_name"], row[f"image{i}_caption"]) for i in range(1, 6))
            order = tuple(ast.literal_eval(row["expected_order"])) if row.get("expected_order") else None
            items.append(AdmireAItem(row["compound"], row["subset"], row["sentence"], images, "en",
                                     row.get("sentence_type") or None, order))
    return items


def read_pt_targets(data_dir: Path, split: str) -> list[AdmireAItem]:
    """PT targets carry sentence and sense only (no captions): images hold names with empty captions."""
    path = Path(data_dir) / "admire" / "reference" / f"a_pt_{split}_targets.tsv"
    items = []
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            order = tuple(ast.literal_eval(row["expected_order"]))
            images = tuple(ImageOption(n, "") for n in order)
            items.append(AdmireAItem(row["compound"], row["subset"], row["sentence"], images, "pt",
                                     row["sentence_type"], order))
    return items


def read_b(data_dir: Path, split: str = "train") -> list[AdmireBItem]:
    path = Path(data_dir) / "admire" / "subtask_b" / "en" / split / f"subtask_b_{split}.tsv"
    items = []
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            candidates = tuple(ImageOption(row[f"image{i}_name"], row[f"image{i}_caption"]) for i in range(1, 5))
            items.append(AdmireBItem(row["compound"], row["subset"], (row["sequence_caption1"], row["sequence_caption2"]),
                                     candidates, "en", row.get("sentence_type") or None, row.get("expected_item") or None))
    return items


def top1_dcg(order: tuple[str, ...], gold: tuple[str, ...]) -> tuple[float, float]:
    """Official Subtask A per-item metrics (w = 3, 1, 0, 0, 0; positions from 0)."""
    import math

    weights = [3, 1, 0, 0, 0]
    dcg = sum(w / math.log2(2 + order.index(name)) for w, name in zip(weights, gold))
    return float(order[0] == gold[0]), dcg
