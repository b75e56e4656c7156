"""Plots for the report pages, rendered with matplotlib (Agg) and inlined as base64 PNG data URIs."""

from __future__ import annotations

import base64
import io
from typing import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

PALETTE = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c")


def to_data_uri(fig) -> str:
    """The figure as a `data:image/png;base64,...` URI; closes the figure."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def metric_bars(title: str, labels: Sequence[str], values: Sequence[float | None],
                lows: Sequence[float | None], highs: Sequence[float | None], reference: float | None = None,
                reference_label: str = "") -> str:
    """One metric across runs (or groups): points with 95% CI error bars; undefined values are written, not drawn."""
    fig, ax = plt.subplots(figsize=(max(3.8, 1.15 * len(labels) + 1.3), 2.7))
    xs = np.arange(len(labels))
    for x, value, low, high, colour in zip(xs, values, lows, highs, PALETTE * 10):
        if value is None:
            ax.text(x, 0.5, "undefined", transform=ax.get_xaxis_transform(), ha="center", va="center",
                    color="#c44e52", fontsize=9, rotation=90)
            continue
        ax.bar(x, value, width=0.55, color=colour, alpha=0.35)
        if low is not None and high is not None:
            ax.errorbar(x, value, yerr=[[value - low], [high - value]], fmt="o", color=colour, capsize=6, lw=1.6)
        else:
            ax.plot(x, value, "o", color=colour)
        ax.annotate(f"{value:.3f}", (x, value), textcoords="offset points", xytext=(9, 0), fontsize=8, va="center")
    if reference is not None:
        ax.axhline(reference, color="#777777", linestyle="--", linewidth=0.9)
        ax.annotate(reference_label, (0.01, reference), xycoords=("axes fraction", "data"), fontsize=7.5,
                    ha="left", va="bottom", color="#444444",
                    bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none", "alpha": 0.8})
    ax.axhline(0, color="#444444", linewidth=0.6)
    ax.set_xticks(xs)
    ax.set_xticklabels(labels, rotation=15 if len(labels) > 3 else 0, ha="right" if len(labels) > 3 else "center",
                       fontsize=9)
    ax.set_title(title, fontsize=11)
    ax.grid(axis="y", color="#eeeeee")
    ax.set_axisbelow(True)
    fig.tight_layout()
    return to_data_uri(fig)


def reliability_diagram(bins: Sequence[dict], title: str, xlabel: str) -> str:
    """A reliability diagram from results.json's bins (`senso.core.calibration.reliability_bins`): per non-empty
    bin, the share of events that happened against the mean predicted probability (the diagonal is perfect
    calibration), the bin's count written beside it; below, how many probabilities fell in each bin."""
    filled = [b for b in bins if b["n"]]
    fig, (ax, hist) = plt.subplots(2, 1, figsize=(4.6, 5.2), sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    ax.plot([0, 1], [0, 1], color="#999999", linestyle="--", linewidth=0.9, label="calibrated")
    xs = [b["confidence"] for b in filled]
    ys = [b["frequency"] for b in filled]
    ax.plot(xs, ys, "-o", color=PALETTE[0], label="this run")
    for b in filled:
        ax.annotate(str(b["n"]), (b["confidence"], b["frequency"]), textcoords="offset points", xytext=(5, -9), fontsize=7)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_ylabel("observed frequency")
    ax.set_title(title, fontsize=11)
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    ax.grid(color="#eeeeee")
    hist.bar([(b["low"] + b["high"]) / 2 for b in bins], [b["n"] for b in bins],
             width=[b["high"] - b["low"] for b in bins], color=PALETTE[0], alpha=0.35, edgecolor="white")
    hist.set_xlabel(xlabel)
    hist.set_ylabel("count")
    fig.tight_layout()
    return to_data_uri(fig)
