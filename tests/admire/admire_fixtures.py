"""Small AdMIRe files written by the tests themselves (official columns and layout)."""

from __future__ import annotations

import csv
from pathlib import Path

from senso.admire.data import B_COLUMNS

A_COLUMNS = ("compound", "subset", "sentence_type", "sentence", "expected_order") + tuple(
    c for n in range(1, 6) for c in (f"image{n}_name", f"image{n}_caption"))


def a_row(compound: str, first: int = 10, sentence_type: str = "idiomatic", gold: bool = True, pt: bool = False,
          sentence: str | None = None) -> dict[str, str]:
    names = [f"{first + i}.png" for i in range(5)]
    row = {"compound": compound, "subset": "Train", "sentence_type": sentence_type if gold else "",
           "sentence": sentence or f"A sentence that uses {compound} somehow.",
           "expected_order": repr(names[::-1]) if gold else ""}
    for n, name in enumerate(names, start=1):
        row[f"image{n}_name"] = name
        row[f"image{n}_caption"] = f"English caption {n} of {compound}"
        if pt:
            row[f"image{n}_caption_pt"] = f"Legenda {n} de {compound}"
    return row


def write_tsv(path: Path, rows: list[dict[str, str]], columns: list[str] | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    columns = columns or list(rows[0])
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns, delimiter="\t", lineterminator="\n", extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


def write_a_split(root: Path, lang: str, split: str, rows: list[dict[str, str]], images: bool = True,
                  folder_style: str = "underscore") -> Path:
    """Write admire/subtask_a/<lang>/<split>/subtask_a_<stem>.tsv (+ 1-byte image files); returns the data dir."""
    stem = {"xeval": "xp" if lang == "pt" else "xe"}.get(split, split)
    split_dir = root / "admire" / "subtask_a" / lang / split
    columns = list(A_COLUMNS) + ([f"image{n}_caption_pt" for n in range(1, 6)] if any("image1_caption_pt" in r for r in rows) else [])
    write_tsv(split_dir / f"subtask_a_{stem}.tsv", rows, columns)
    if images:
        for row in rows:
            folder = row["compound"].replace("'", "_") if folder_style == "underscore" else row["compound"]
            for n in range(1, 6):
                (split_dir / folder).mkdir(parents=True, exist_ok=True)
                (split_dir / folder / row[f"image{n}_name"]).write_bytes(b"\x89PNG")
    return root


def b_row(compound: str, first: int = 50, sentence_type: str = "literal", gold: bool = True) -> dict[str, str]:
    names = [f"{first + i}.png" for i in range(4)]
    row = {"compound": compound, "subset": "Train", "sentence_type": sentence_type if gold else "",
           "expected_item": names[2] if gold else "", "sequence_caption1": "first picture", "sequence_caption2": "second picture"}
    for n, name in enumerate(names, start=1):
        row[f"image{n}_name"] = name
        row[f"image{n}_caption"] = f"candidate {n} of {compound}"
    return row


def write_b_split(root: Path, split: str, rows: list[dict[str, str]], images: bool = True) -> Path:
    stem = {"xeval": "xe"}.get(split, split)
    split_dir = root / "admire" / "subtask_b" / "en" / split
    write_tsv(split_dir / f"subtask_b_{stem}.tsv", rows, list(B_COLUMNS))
    if images:
        for row in rows:
            folder = split_dir / row["compound"].replace("'", "_")
            folder.mkdir(parents=True, exist_ok=True)
            for name in ["s1.png", "s2.png"] + [row[f"image{n}_name"] for n in range(1, 5)]:
                (folder / name).write_bytes(b"\x89PNG")
    return root


def write_a_targets(path: Path, rows: list[dict[str, str]]) -> Path:
    return write_tsv(path, rows, ["compound", "subset", "sentence_type", "sentence", "expected_order"])


def load_a(data_dir, lang="en", split="dev", gold=None, caption_lang=None, need_images=False):
    """Subtask A items as `senso run admire-a` reads them: its shipped task file's rows in `lang` and `split`,
    with an organisers' targets file joined when `gold` names one."""
    from senso.admire.data import join_gold_a
    from senso.admire.rankdata import split_items
    from senso.admire.rankfile import shipped_task

    task = shipped_task("admire-a", lang).with_captions(caption_lang)
    items, paths, _ = split_items(task, split, data_dir, need_images)
    return join_gold_a(items, gold, paths[0]) if gold is not None else items


def write_submission_a(path: Path, predictions: list[tuple[str, list[str]]]) -> Path:
    """(compound, predicted order) pairs as an official Subtask A submission file, as a run writes it."""
    from senso.admire.submission import submission_text_ranked

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(submission_text_ranked([(c, "", order, None) for c, order in predictions], False, False).encode())
    return path


def write_submission_b(path: Path, predictions: list[tuple[str, str, str]]) -> Path:
    """(compound, sentence_type, expected_item) triples as an official Subtask B submission file, as a run writes it."""
    from senso.admire.submission import submission_text_b

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(submission_text_b(predictions).encode())
    return path
