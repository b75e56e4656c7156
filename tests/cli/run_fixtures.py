"""Run folders as `senso run` writes them, with fixed numbers (no model, no data): what the terminal tables and
the summary are drawn from in the layout tests."""

from __future__ import annotations

import json
from pathlib import Path

CONSTANT = "the predicted labels are constant (every item has value 1), so the correlation is undefined"


def estimate(value, low=None, high=None, reason=None):
    if value is None:
        return {"value": None, "reason": reason or CONSTANT}
    return {"value": value, "ci_low": low, "ci_high": high}


def likert_results(task: str = "abricot-abs", system: str = "likert-lm", pearson=None) -> dict:
    supervised = system != "likert-lm"
    metrics = {"pearson": estimate(*pearson) if pearson else estimate(None),
               "spearman": estimate(*pearson) if pearson else estimate(None),
               "pearson_expected_vs_gold": estimate(-0.018, -0.205, 0.150),
               "pearson_expected_vs_mean": estimate(-0.020, -0.200, 0.145),
               "accuracy": estimate(0.055, 0.016, 0.094)}
    by_domain = {domain: dict(metrics) for domain in ("opensub", "wikihow")}
    return {"task": task, "system": system, "n": 127, "family": "likert", "task_kind": "likert",
            "protocol": "supervised, leave-one-group-out cross-validation (groups: lemma)" if supervised
            else "calamita", "shots": 0, "supervised": supervised, "likert_task": {"group_noun": "lemma"},
            "metrics": metrics, "metrics_by_group": by_domain, "warnings": [], "limit": None,
            "timings": {"total_s": 1.0}}


def admire_results() -> dict:
    return {"task": "admire-a", "system": "fitted-pipeline", "n": 15, "n_official": 15, "family": "admire",
            "task_kind": "admire-a", "lang": "en", "split": "dev", "track": "text-only",
            "metrics": {"top1": estimate(0.6, 0.333, 0.867), "dcg": estimate(3.09, 2.8, 3.4)},
            "metrics_by_group": {}, "warnings": [], "submission": "submission_EN.tsv",
            "fitting": {"cross_validated": True, "folds": 5, "grouped_by": "compound"}, "timings": {"total_s": 1.0}}


def write_run(folder: Path, results: dict) -> Path:
    folder.mkdir(parents=True)
    (folder / "results.json").write_text(json.dumps(results), encoding="utf-8")
    (folder / "samples.jsonl").write_text("", encoding="utf-8")
    (folder / "config.json").write_text("{}", encoding="utf-8")
    return folder


def main_job_runs(parent: Path) -> list[Path]:
    """The five runs of the main job, as fixtures: 0-shot (undefined r), supervised (defined r), AdMIRe."""
    return [write_run(parent / "abricot-abs", likert_results()),
            write_run(parent / "abricot-inc", likert_results("abricot-inc")),
            write_run(parent / "abricot-abs-embedding-ridge",
                      likert_results(system="embedding-ridge", pearson=(0.795, 0.742, 0.840))),
            write_run(parent / "abricot-inc-embedding-ridge",
                      likert_results("abricot-inc", "embedding-ridge", pearson=(0.612, 0.5, 0.7))),
            write_run(parent / "admire-a-fitted-pipeline", admire_results())]
