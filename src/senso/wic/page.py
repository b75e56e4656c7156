"""A word-in-context run's part of its report page: the two sentences of each pair with the target marked, the
pairs the system gets most wrong (the most confident wrong decisions; graded: the widest rank gaps), and, on a
comparison page, the pairs on which the runs disagree. The reliability diagram of P(same meaning) is the common
calibration section's (`scoring.calibration`)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from markupsafe import Markup, escape

SHOWN = 40  # pairs listed in a run page's disagreements


def marked(text: str, span: Sequence[int]) -> Markup:
    """HTML of `text` with text[start:end] (end exclusive) in a <mark>, the rest escaped."""
    start, end = int(span[0]), int(span[1])
    return escape(text[:start]) + Markup("<mark>") + escape(text[start:end]) + Markup("</mark>") + escape(text[end:])


def _row(sample: dict[str, Any]) -> dict[str, Any]:
    return {"id": sample["id"], "lemma": sample["lemma"], "langs": sample["langs"],
            "first": marked(sample["sentence1"], sample["span1"]), "second": marked(sample["sentence2"], sample["span2"]),
            "gold": sample["gold_same"] if sample["gold_same"] is not None else sample["gold_score"],
            "answer": sample["p_same"] if sample["p_same"] is not None else sample["relatedness"],
            "decision": sample["decision"], "seen": sample.get("seen")}


def _ranks(values: Sequence[float]) -> np.ndarray:
    from scipy.stats import rankdata

    return rankdata(values) / len(values)


def run_section(run: Any, thumbnails: bool = True) -> dict[str, Any]:
    """The run's worst pairs: binary, the wrong decisions, most confident first; graded, the widest gaps between
    the system's rank and the gold's."""
    samples = list(run.samples)
    binary = any(s.get("decision") is not None for s in samples)
    if binary:
        wrong = [s for s in samples if s.get("gold_same") is not None and s["decision"] != s["gold_same"]]
        wrong.sort(key=lambda s: (-abs(s["p_same"] - 0.5), str(s["id"])))
        what = f"{len(wrong)} of {len(samples)} pairs decided wrongly; the most confident first"
    else:
        graded = [s for s in samples if s.get("gold_score") is not None]
        gaps = np.abs(_ranks([s["relatedness"] for s in graded]) - _ranks([s["gold_score"] for s in graded])) \
            if len(graded) > 1 else np.zeros(len(graded))
        wrong = [graded[k] for k in np.argsort(-gaps, kind="stable")]
        what = "the pairs whose relatedness rank is furthest from the gold's"
    return {"what": what, "binary": binary, "rows": [_row(s) for s in wrong[:SHOWN]]}


def disagreements(runs: Sequence[Any], thumbnails: bool = True) -> list[dict[str, Any]]:
    """Pairs on which the runs' decisions differ (binary), or (graded) whose relatedness ranks differ most."""
    from senso.core.run_folder import aligned

    samples = aligned(runs)
    if not samples[0]:
        return []
    if samples[0][0].get("decision") is not None:
        rows = [{**_row(first), "answers": [side[k]["decision"] for side in samples]}
                for k, first in enumerate(samples[0]) if len({side[k]["decision"] for side in samples}) > 1]
        return rows[:SHOWN]
    ranks = [_ranks([s["relatedness"] for s in side]) for side in samples]
    spread = np.ptp(np.vstack(ranks), axis=0)
    order = np.argsort(-spread, kind="stable")[:SHOWN]
    rows = [{**_row(samples[0][k]), "answers": [round(float(r[k]), 3) for r in ranks]} for k in order]
    return rows[:SHOWN]


def distributions(run: Any, samples: Sequence[dict[str, Any]]) -> tuple[np.ndarray, list[int]] | None:
    """(each pair's two-label distribution [P(different), P(same)], its gold label) for paired calibration; None
    when the run has no calibration."""
    from senso.core.calibration import binary_distribution

    if "metrics" not in (run.results.get("calibration") or {}):
        return None
    if any(s.get("p_same") is None or s.get("gold_same") is None for s in samples):
        return None
    return binary_distribution([s["p_same"] for s in samples]), [int(s["gold_same"]) for s in samples]
