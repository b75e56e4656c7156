"""The Likert page's figure: each item's prediction against its human mean, one colour per lemma."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from senso.core.figures import PALETTE, plt, to_data_uri


def _lemma_colours(lemmas: Sequence[str]) -> dict[str, tuple]:
    names = sorted(set(lemmas))
    cmap = plt.get_cmap("tab20" if len(names) <= 20 else "gist_ncar")
    return {name: cmap(k / max(len(names) - 1, 1) if len(names) > 20 else k) for k, name in enumerate(names)}


def likert_scatter(samples: Sequence[dict], task: str, labels: Sequence[int], edges: Sequence[float],
                   gold_range: Sequence[float], group_noun: str) -> str:
    """Two panels against the raw gold (ABRICOT: the human mean), coloured by group (`group_noun`, e.g. lemma): the predicted
    label (jittered) and the probability-weighted expected score; dotted lines mark where the gold label changes."""
    colours = _lemma_colours([s["lemma"] for s in samples])
    rng = np.random.default_rng(0)  # fixed jitter, so the same run always draws the same picture
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    panels = (("prediction", "predicted label (jittered)"), ("expected", "expected score Σ p·k"))
    for ax, (key, title) in zip(axes, panels):
        for lemma, colour in colours.items():
            group = [s for s in samples if s["lemma"] == lemma and s.get(key) is not None]
            if not group:
                continue
            x = np.array([s["gold_mean"] for s in group])
            y = np.array([float(s[key]) for s in group])
            if key == "prediction":
                y = y + rng.uniform(-0.15, 0.15, size=len(y))
            ax.scatter(x, y, s=28, color=colour, label=lemma, alpha=0.85, edgecolors="white", linewidths=0.4)
        for edge in edges:
            ax.axvline(edge, color="#999999", linestyle=":", linewidth=0.8)
        low, high = gold_range
        pad = 0.02 * (high - low)
        ax.set_xlim(low - pad, high + pad)
        ax.set_ylim(labels[0] - 0.5, labels[-1] + 0.5)
        ax.set_yticks(list(labels))
        ax.set_xlabel(f"human mean ({task})")
        ax.set_title(title, fontsize=11)
        ax.grid(axis="y", color="#eeeeee")
    axes[0].set_ylabel(f"score {labels[0]}–{labels[-1]}")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8, frameon=False,
               title=group_noun, ncol=1 if len(labels) <= 22 else 2)
    fig.tight_layout()
    return to_data_uri(fig)
