"""`senso data stats wic`: the word-in-context data sets' card. Per built-in task and split: pairs, lemmas, the
language pairs, the gold (the share judged the same meaning, or the distribution of the graded scores), and the
split's lemmas shared with the task's training split (the unseen-lemma headline's share); a figure of the graded
scores."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from senso.core.errors import DataNotFound, SensoError
from senso.core.output import atomic_file
from senso.wic.items import WicPair
from senso.wic.taskfile import PairsTask

FIGURE = "wic_scores.png"


@dataclass(frozen=True)
class SplitStats:
    """One split of a task: counts, gold and lemma overlap with the task's training split (None: no training
    split, or this is it)."""

    task: str
    split: str
    pairs: int
    lemmas: int
    langs: dict[str, int]
    labelled: int  # pairs with a gold value
    same: int  # binary: pairs judged the same meaning
    scores: tuple[float, ...]  # graded: the gold scores
    seen_lemmas: int | None
    unseen_pairs: int | None


def split_stats(task: PairsTask, split: str, pairs: Sequence[WicPair], train_lemmas: set[str] | None) -> SplitStats:
    langs: dict[str, int] = {}
    for pair in pairs:
        langs[pair.langs] = langs.get(pair.langs, 0) + 1
    lemmas = {pair.lemma for pair in pairs}
    gold = [pair.label for pair in pairs if pair.label is not None] if task.binary else \
        [pair.score for pair in pairs if pair.score is not None]
    overlap = train_lemmas is not None and split != task.train
    return SplitStats(task.name, split, len(pairs), len(lemmas), langs, len(gold),
                      sum(1 for label in gold if label == 1) if task.binary else 0,
                      () if task.binary else tuple(float(s) for s in gold),
                      len(lemmas & train_lemmas) if overlap else None,
                      sum(1 for pair in pairs if pair.lemma not in train_lemmas) if overlap else None)


def task_stats(task: PairsTask, data_dir: Any) -> list[SplitStats]:
    """Every split of `task` read from the data folder (the training split first, for the overlap)."""
    from senso.wic.data import read_split

    read = {split: read_split(task, split, data_dir) for split in task.splits}
    train = {pair.lemma for pair in read[task.train]} if task.train in read else None
    return [split_stats(task, split, pairs, train) for split, pairs in read.items()]


def _share(part: int, whole: int) -> str:
    return f"{part} ({100 * part / whole:.1f} %)" if whole else "—"


def gold_cell(row: SplitStats, task: PairsTask) -> str:
    """The gold of a split in a few words: the share of `same` (binary), or the scores' mean, quartiles and
    thirds of the scale (graded); "no gold" for a split given without it."""
    if not row.labelled:
        return "no gold"
    if task.binary:
        return f"same {_share(row.same, row.labelled)}"
    scores = np.asarray(row.scores)
    q1, median, q3 = np.quantile(scores, [0.25, 0.5, 0.75])
    return f"mean {scores.mean():.2f}; quartiles {q1:.2f} / {median:.2f} / {q3:.2f}"


def print_table(rows: list[SplitStats], task: PairsTask, console: Any) -> None:
    from rich.table import Table

    from senso.core.tables import folded

    table = Table(title=f"{task.name}: {task.description}")
    for column in ("split", "pairs", "lemmas", "languages", "gold", f"lemmas in {task.train or 'train'}",
                   "pairs of unseen lemmas"):
        table.add_column(column, justify="left" if column in ("split", "languages", "gold") else "right")
    for row in rows:
        langs = ", ".join(f"{name} {n}" for name, n in sorted(row.langs.items()))
        seen = "—" if row.seen_lemmas is None else _share(row.seen_lemmas, row.lemmas)
        unseen = "—" if row.unseen_pairs is None else _share(row.unseen_pairs, row.pairs)
        table.add_row(row.split, str(row.pairs), str(row.lemmas), langs, gold_cell(row, task), seen, unseen)
    console.print(folded(table))


def plot_scores(graded: list[tuple[PairsTask, list[SplitStats]]], path: Path) -> Path:
    """One panel per graded task: a histogram of its gold scores, one series per split with gold."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(graded), figsize=(4.5 * len(graded), 3.5), squeeze=False)
    for ax, (task, rows) in zip(axes[0], graded):
        low, high = task.scale or (min(min(r.scores) for r in rows if r.scores), max(max(r.scores) for r in rows if r.scores))
        for row in rows:
            if row.scores:
                ax.hist(row.scores, bins=12, range=(low, high), histtype="step", density=True,
                        label=f"{row.split} (n={len(row.scores)})")
        ax.set_title(task.name)
        ax.set_xlabel("gold score")
        ax.legend(fontsize=8)
    axes[0][0].set_ylabel("density")
    fig.tight_layout()
    with atomic_file(path, "--out", binary=True) as fh:
        fig.savefig(fh, format="png", dpi=110)
    plt.close(fig)
    return path


def print_wic_card(data_dir: str | Path | None, out_dir: Path, console: Any, tasks: Sequence[str] | None = None) -> Path | None:
    """`senso data stats wic`: a table per built-in task on `console` (a task whose data is not in the data folder
    gets a line saying so), the figure of graded scores under `out_dir`; its path, None when no graded task was
    read. SensoError when no task's data is there."""
    from senso.wic.family import BUILTIN
    from senso.wic.taskfile import shipped_task

    graded, missing = [], []
    for name in tasks or BUILTIN:
        task = shipped_task(name)
        try:
            rows = task_stats(task, data_dir)
        except DataNotFound as exc:
            missing.append(str(exc))
            console.print(f"{name}: not in the data folder ({exc})", soft_wrap=True)
            continue
        print_table(rows, task, console)
        if not task.binary and any(row.scores for row in rows):
            graded.append((task, rows))
    if len(missing) == len(tasks or BUILTIN):
        raise SensoError("no word-in-context data in the data folder: `senso data fetch wic` downloads it, or "
                         "--data-dir DIR points at a folder holding wic/")
    return plot_scores(graded, out_dir / FIGURE) if graded else None
