"""Published figures of the word-in-context tasks, and where a run stands beside them (leakage-aware: a run of a
system fitted on rows sharing lemmas with the scored pairs says so, and its unseen-lemma figure is placed).

Sources: WiC, Pilehvar and Camacho-Collados (NAACL 2019) and its task page (test accuracy; human 80.0);
WiC-ITA, Cassotti et al. (EVALITA 2023) overview (test macro F1 and Spearman, it-it); DWUG EN,
LSCDBenchmark's WiC leaderboard (pair-level Spearman)."""

from __future__ import annotations

from typing import Any

from senso.core.placement import Placement, PlacementBoard, PlacementRow, run_cell

# board -> (metric, split the figures are on, rows: (system, value, human reference?))
PUBLISHED: dict[str, tuple[str, str, tuple[tuple[str, float, bool], ...]]] = {
    "wic-en": ("accuracy", "test", (("human annotators", 0.800, True), ("PaLM-540B, fine-tuned", 0.788, False),
                                    ("SenseBERT-large", 0.721, False))),
    "dwug-en": ("spearman", "all pairs", (("LSCDBenchmark's best (WiC, dwug_en)", 0.63, False),)),
}
SOURCES = {
    "wic-en": "WiC task page (pilehvar.github.io/wic), SuperGLUE; test split",
    "dwug-en": "LSCDBenchmark WiC leaderboard, dwug_en, pair-level Spearman",
}


def _value(run: Any, metric: str) -> tuple[float | None, str]:
    """The run's figure to place: the unseen-lemma one when the system saw some of the scored lemmas."""
    unseen = run.results.get("unseen")
    if unseen and (unseen.get(metric) or {}).get("value") is not None:
        return unseen[metric]["value"], f"its pairs of lemmas unseen in training (n={unseen['n']})"
    value = (run.results.get("metrics", {}).get(metric) or {}).get("value")
    return value, "all its pairs"


def wic_placement(run: Any) -> Placement:
    board_name = (run.results.get("wic_task") or {}).get("published")
    if board_name not in PUBLISHED:
        return Placement(notes=[f"No published results for {run.task}: this run is shown on its own."])
    metric, split, rows = PUBLISHED[board_name]
    value, which = _value(run, metric)
    if value is None:
        return Placement(notes=[f"{run.task}: the run has no {metric} (no gold in its split), so it is not placed."])
    board_rows = [PlacementRow((name, f"{figure:.3f}"), is_reference=human) for name, figure, human in rows]
    board_rows.append(PlacementRow((f"this run ({run.system})", run_cell(value, value)), is_run=True))
    board_rows.sort(key=lambda row: -float(row.cells[1].split()[0]))
    notes = [f"The run's {metric} is on {run.results.get('split')}, {which}; the published figures are on {split}."]
    board = PlacementBoard(f"{run.task}: {metric}", ("system", metric), (1,), board_rows, source=SOURCES[board_name])
    return Placement(boards=[board], notes=notes)


def best_published(run: Any) -> tuple[str | None, str | None]:
    board_name = (run.results.get("wic_task") or {}).get("published")
    if board_name not in PUBLISHED:
        return None, None
    metric, split, rows = PUBLISHED[board_name]
    best = max(figure for _, figure, human in rows if not human)
    return f"{best:.2f}", f"{SOURCES[board_name]} ({split})"
