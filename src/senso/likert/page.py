"""What a Likert run page (ABRICOT's, or any task file's) shows, as plain data: the task's scale, confusion
matrix, per-group table, largest errors, and how far a supervised model travels."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from markupsafe import Markup

from senso.core.errors import SensoError
from senso.core.page import differing, mark_span
from senso.core.stats import UndefinedMetric, pearson
from senso.likert.items import LikertItem
from senso.likert.tables import travel_rows
from senso.likert.task import LikertTask, get_task
from senso.likert.taskfile import gold_edges


@dataclass(frozen=True)
class Scale:
    """The run's answer labels, its gold range and where the gold label steps up (scatter guides)."""

    labels: tuple[int, ...]
    gold_range: tuple[float, float]
    edges: tuple[float, ...]


def run_scale(results: dict[str, Any]) -> Scale:
    """From the `likert_task` a run recorded."""
    recorded = results["likert_task"]
    scale, gold_range = tuple(recorded["scale"]), tuple(recorded["gold_range"])
    return Scale(tuple(recorded["labels"]), gold_range, gold_edges(scale, gold_range, recorded["gold_to_label"]))


def run_group_noun(results: dict[str, Any]) -> str:
    """What the run's task calls a group (its task file's `group_noun`: ABRICOT "lemma", default "group"), from
    the `likert_task` the run recorded."""
    return str(results["likert_task"]["group_noun"])


def confusion_matrix(gold: Sequence[int], predicted: Sequence[int], labels: Sequence[int]) -> list[list[int]]:
    """K x K counts over the scale's labels: row i, column j holds the items with gold labels[i] predicted as labels[j]."""
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold labels but {len(predicted)} predictions")
    index = {label: k for k, label in enumerate(labels)}
    matrix = [[0] * len(labels) for _ in labels]
    for g, p in zip(gold, predicted):
        if g not in index or p not in index:
            raise ValueError(f"labels must be {labels[0]}-{labels[-1]}, got gold {g!r} and prediction {p!r}")
        matrix[index[g]][index[p]] += 1
    return matrix


@dataclass(frozen=True)
class LemmaRow:
    """Per lemma: n, mean gold label, mean human mean, mean predicted label, mean expected score, and
    Pearson r of predicted vs gold label within the lemma (None, with `r_text` saying why, when undefined)."""

    lemma: str
    n: int
    mean_gold: float
    mean_human: float
    mean_prediction: float
    mean_expected: float | None
    r: float | None
    r_text: str


def lemma_rows(samples: Sequence[dict[str, Any]]) -> list[LemmaRow]:
    by_lemma: dict[str, list[dict[str, Any]]] = {}
    for sample in samples:
        by_lemma.setdefault(sample["lemma"], []).append(sample)
    rows = []
    for lemma, group in sorted(by_lemma.items()):
        gold = [s["gold"] for s in group]
        pred = [s["prediction"] for s in group]
        expected = [s["expected"] for s in group if s.get("expected") is not None]
        try:
            r: float | None = pearson(pred, gold)
            r_text = f"{r:.3f}"
        except UndefinedMetric:
            r = None
            if len(group) < 2:
                r_text = "undefined (one item)"
            elif len(set(pred)) == 1 and len(set(gold)) == 1:
                r_text = "undefined (constant predictions and gold)"
            elif len(set(pred)) == 1:
                r_text = "undefined (constant predictions)"
            else:
                r_text = "undefined (constant gold)"
        rows.append(LemmaRow(
            lemma=lemma, n=len(group), mean_gold=float(np.mean(gold)),
            mean_human=float(np.mean([s["gold_mean"] for s in group])), mean_prediction=float(np.mean(pred)),
            mean_expected=float(np.mean(expected)) if len(expected) == len(group) else None, r=r, r_text=r_text,
        ))
    return rows


@dataclass(frozen=True)
class ErrorRow:
    id: str
    lemma: str
    domain: str
    sentence: Markup  # target highlighted; a note when the sentence could not be found
    gold: int
    gold_mean: float
    prediction: int
    expected: float | None
    error: int  # |prediction - gold|


def largest_errors(samples: Sequence[dict[str, Any]], items: dict[str, LikertItem] | None,
                   k: int = 15) -> list[ErrorRow]:
    """The k items whose predicted label is furthest from gold; ties broken by how far the expected
    score is from gold, then by item id. Sentences come from `items` (None: not available)."""
    def distance(s: dict[str, Any]) -> tuple:
        expected_gap = abs(s["expected"] - s["gold"]) if s.get("expected") is not None else 0.0
        return (-abs(s["prediction"] - s["gold"]), -expected_gap, str(s["id"]))

    rows = []
    for s in sorted(samples, key=distance)[:k]:
        item = items.get(str(s["id"])) if items is not None else None
        if item is not None:
            sentence = mark_span(item.text, item.begin, item.end)
        elif items is None:
            sentence = Markup('<span class="missing">sentence not available (data file not read)</span>')
        else:
            sentence = Markup('<span class="missing">item not in the data file</span>')
        rows.append(ErrorRow(id=str(s["id"]), lemma=s["lemma"], domain=s.get("domain", ""), sentence=sentence,
                             gold=s["gold"], gold_mean=s["gold_mean"], prediction=s["prediction"],
                             expected=s.get("expected"), error=abs(s["prediction"] - s["gold"])))
    return rows


def _run_task(results: dict[str, Any]) -> LikertTask:
    """The run's task: a built-in one by name, else its task file (SensoError when that cannot be read)."""
    recorded = results["likert_task"]
    return get_task(results["task"] if recorded["builtin"] else recorded["task_file"])


def load_items(results: dict[str, Any], config: dict[str, Any],
               run_dir: Path | None = None) -> tuple[dict[str, LikertItem] | None, list[str]]:
    """The run's items by id, read from the data file the run recorded (`data_files`; found again if it moved)
    through its task's columns, and notes for the page (file gone, moved, changed since the run). (None, notes)
    when the file cannot be read."""
    from senso.core.run_folder import data_files_again

    paths, notes = data_files_again(config, run_dir, "sentences are not shown")
    if not paths:
        return None, notes
    try:
        items = _run_task(results).load_items(paths[0])
    except SensoError as exc:
        return None, [f"could not read the run's data file: {exc}"]
    return {item.id: item for item in items}, notes


def check_samples(samples: Sequence[dict[str, Any]], where: Path) -> None:
    """Refuse, naming the line and field, samples a Likert page cannot be drawn from."""
    for line, s in enumerate(samples, 1):
        for field in ("id", "lemma", "gold", "gold_mean", "prediction"):
            if s.get(field) is None:
                raise SensoError(f"{where}, line {line}: field '{field}' missing (not a Likert sample)")


@dataclass(frozen=True)
class TravelBlock:
    """The travel measures a supervised run recorded (`generalisation` in results.json): one row per measure,
    (what it measures, {"value", "ci_low", "ci_high"} or {"value": None, "reason"})."""

    system: str
    n: int | None
    rows: list[tuple[str, dict[str, Any]]]
    definitions: str


def travel_block(results: dict[str, Any]) -> TravelBlock | None:
    """The run's travel block, or None when it recorded none (unsupervised systems, older runs)."""
    report = results.get("generalisation")
    if not report:
        return None
    return TravelBlock(system=report.get("system", results.get("system", "")), n=report.get("n"),
                       rows=travel_rows(report), definitions=report.get("definitions", ""))


def run_section(run: Any, thumbnails: bool = True) -> dict[str, Any]:
    """The Likert part of a run page: scatter against the raw gold, confusion matrix, per-group table, the
    largest errors and the travel measures."""
    from senso.likert.figures import likert_scatter

    check_samples(run.samples, run.path / "samples.jsonl")
    scale = run_scale(run.results)
    group_noun = run_group_noun(run.results)
    items, notes = load_items(run.results, run.config, run.path)
    gold = [s["gold"] for s in run.samples]
    predicted = [s["prediction"] for s in run.samples]
    matrix = confusion_matrix(gold, predicted, scale.labels)
    return {
        "notes": notes,
        "scatter": likert_scatter(run.samples, run.task, scale.labels, scale.edges, scale.gold_range, group_noun),
        "group_noun": group_noun,
        "confusion": matrix,
        "confusion_row_totals": [sum(row) for row in matrix],
        "confusion_max": max(max(row) for row in matrix) or 1,
        "lemmas": lemma_rows(run.samples),
        "errors": largest_errors(run.samples, items),
        "labels": scale.labels,
        "gold_headers": [f"gold {k}" for k in scale.labels],
        "pred_headers": [f"pred {k}" for k in scale.labels],
        "travel": travel_block(run.results),
    }


def disagreements(runs: Sequence[Any], thumbnails: bool = True) -> list[dict[str, Any]]:
    """Items whose predicted labels are not all equal, widest spread first (then item id)."""
    items, _ = load_items(runs[0].results, runs[0].config, runs[0].path)
    rows = []
    for _, at in differing(runs, lambda s: s["prediction"]):
        first, predictions = at[0], [s["prediction"] for s in at]
        item = items.get(str(first["id"])) if items else None
        rows.append({"id": first["id"], "lemma": first["lemma"], "gold": first["gold"], "gold_mean": first["gold_mean"],
                     "sentence": mark_span(item.text, item.begin, item.end) if item else None,
                     "predictions": predictions, "spread": max(predictions) - min(predictions),
                     "correct": [p == first["gold"] for p in predictions]})
    rows.sort(key=lambda r: (-r["spread"], str(r["id"])))
    return rows


def distributions(run: Any, samples: Sequence[dict[str, Any]]) -> tuple[np.ndarray, list[int]] | None:
    """(each item's probability distribution, its gold label index) as the run's calibration saw them: the softmax
    of the choices' log-probs, or the distribution a researcher's system answered. None when the run has no
    calibration or some sample lacks both."""
    from senso.core.calibration import softmax

    if "metrics" not in (run.results.get("calibration") or {}):
        return None
    labels = list(run.results["likert_task"]["labels"])
    rows = []
    for s in samples:
        if s.get("logprobs") is not None:
            rows.append(softmax(s["logprobs"]))
        elif s.get("distribution") is not None:
            rows.append(np.asarray(s["distribution"], dtype=float))
        else:
            return None
    return np.asarray(rows), [labels.index(s["gold"]) for s in samples]
