"""The ABRICOT dataset card: per-lemma statistics (the paper's Table 1) and score distributions (its Figure 3)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from senso.core.output import atomic_file
from senso.likert.data import AbricotItem
from senso.likert.task import TASKS, gold_label

BIN_EDGES = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


@dataclass(frozen=True)
class LemmaStats:
    """Across the lemma's contexts: count, mean and sample standard deviation (ddof=1) of both scores."""

    lemma: str
    n: int
    abs_mean: float
    abs_std: float
    inc_mean: float
    inc_std: float


def _std(values: Sequence[float]) -> float:
    return float(np.std(values, ddof=1)) if len(values) > 1 else float("nan")


def lemma_stats(items: Sequence[AbricotItem]) -> list[LemmaStats]:
    by_lemma: dict[str, list[AbricotItem]] = {}
    for item in items:
        by_lemma.setdefault(item.target_lemma, []).append(item)
    rows = []
    for lemma, group in sorted(by_lemma.items()):
        abs_values = [i.score("abs") for i in group]
        inc_values = [i.score("inc") for i in group]
        rows.append(LemmaStats(lemma, len(group), float(np.mean(abs_values)), _std(abs_values),
                               float(np.mean(inc_values)), _std(inc_values)))
    return rows


def distributions(items: Sequence[AbricotItem]) -> dict[str, dict[str, list[int]]]:
    """Per dimension: counts of raw means in the 5 bins of width 0.2 (last bin closed), and of gold labels 1-5."""
    result = {}
    for dim in ("abs", "inc"):
        values = np.asarray([i.score(dim) for i in items])
        counts, _ = np.histogram(values, bins=BIN_EDGES)
        labels = [sum(1 for v in values if gold_label(float(v)) == k) for k in TASKS["abricot-abs"].labels]
        result[dim] = {"mean_bins": counts.tolist(), "gold_labels": labels}
    return result


def plot_distributions(items: Sequence[AbricotItem], path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.5), sharey=True)
    for ax, dim, title in zip(axes, ("abs", "inc"), ("abstractness", "inclusiveness")):
        ax.hist([i.score(dim) for i in items], bins=20, range=(0, 1), color="#4c72b0", edgecolor="white")
        ax.set_title(f"ABRICOT {title} (n={len(items)})")
        ax.set_xlabel("human mean (0 = concrete/specific, 1 = abstract/inclusive)")
    axes[0].set_ylabel("items")
    fig.tight_layout()
    with atomic_file(path, "--out", binary=True) as fh:
        fig.savefig(fh, format="png", dpi=110)
    plt.close(fig)
    return path


def print_abricot_card(data_dir: str | Path | None, out_dir: Path, console) -> Path:
    """`senso data stats abricot`: per-lemma statistics and the distributions on `console`, the figure under
    `out_dir`; returns the figure's path."""
    from rich.table import Table

    from senso.core.tables import folded
    from senso.likert.data import load_abricot, locate_abricot

    path = locate_abricot(data_dir)
    items = load_abricot(path)
    table = Table(title=f"ABRICOT per lemma ({len(items)} items, {path})")
    for column in ("lemma", "n", "abs mean", "abs std", "inc mean", "inc std"):
        table.add_column(column, justify="left" if column == "lemma" else "right")
    for row in lemma_stats(items):
        table.add_row(row.lemma, str(row.n), f"{row.abs_mean:.3f}", f"{row.abs_std:.3f}",
                      f"{row.inc_mean:.3f}", f"{row.inc_std:.3f}")
    console.print(folded(table))
    dist = distributions(items)
    dist_table = Table(title="Items per bin of the raw mean (width .2), and per gold label 1-5")
    dist_table.add_column("dim")
    for header in ("<.2", ".2-.4", ".4-.6", ".6-.8", ">=.8", "L1", "L2", "L3", "L4", "L5"):
        dist_table.add_column(header, justify="right")
    for dim in ("abs", "inc"):
        dist_table.add_row(dim, *map(str, dist[dim]["mean_bins"]), *map(str, dist[dim]["gold_labels"]))
    console.print(folded(dist_table))
    return plot_distributions(items, out_dir / "abricot_distributions.png")
