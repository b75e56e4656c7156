"""What every family's part of a report page draws the same way: the target word or phrase marked in its sentence,
the items on which runs answer differently, and the run's metrics per group as bar plots. A family's `page`
module builds its sections from these (the run's data files found again: `core.run_folder.data_files_again`)."""

from __future__ import annotations

import re
from typing import Any, Callable, Sequence

from markupsafe import Markup, escape


def mark_span(text: str, begin: int, end: int) -> Markup:
    """HTML of `text` with text[begin:end + 1] (end inclusive, as in ABRICOT) in a <mark>; the rest escaped."""
    if not 0 <= begin <= end < len(text):
        raise ValueError(f"offsets {begin}..{end} outside a text of length {len(text)}")
    return (escape(text[:begin]) + Markup("<mark>") + escape(text[begin:end + 1]) + Markup("</mark>")
            + escape(text[end + 1:]))


def mark_phrase(sentence: str, phrase: str) -> Markup:
    """HTML of `sentence` with every case-insensitive occurrence of `phrase` in a <mark>: its words may be
    joined by spaces or hyphens and the last may carry an inflection (`bad apples`, `devil's advocates`)."""
    words = [re.escape(w) for w in re.split(r"[\s\-]+", phrase.strip()) if w]
    if not words:
        return escape(sentence)
    pattern = re.compile(r"(?<!\w)" + r"[\s\-]+".join(words) + r"[\w'’]*", re.IGNORECASE)
    out, last = Markup(""), 0
    for match in pattern.finditer(sentence):
        out += escape(sentence[last:match.start()]) + Markup("<mark>") + escape(match.group(0)) + Markup("</mark>")
        last = match.end()
    return out + escape(sentence[last:])


def differing(runs: Sequence[Any], answer: Callable[[dict[str, Any]], Any]) -> list[tuple[int, list[dict[str, Any]]]]:
    """(position in the first run, the runs' samples) of each item (matched across the runs by their task's
    `item_key`) whose `answer`s are not all the same: what a comparison page shows as the runs' disagreements."""
    from senso.core.run_folder import aligned

    return [(k, list(at)) for k, at in enumerate(zip(*aligned(runs))) if len({answer(s) for s in at}) > 1]


def group_plots(run: Any, names: Sequence[str]) -> list[str]:
    """One plot per metric of `names` the run has: all items, then each group of its task's `group_keys`, with
    CIs and the metric's random baseline."""
    from senso.core import figures
    from senso.core.task import baseline_label

    results, task = run.results, run.task_def
    groups = list(results.get("metrics_by_group", {}))
    sizes = {g: sum(1 for s in run.samples if g in (s.get(key) for key in task.group_keys)) for g in groups}
    plots = []
    for name in names:
        metric = task.metric(name)
        if name not in results.get("metrics", {}) or metric is None:
            continue
        estimates = [results["metrics"][name]] + [results["metrics_by_group"][g].get(name, {}) for g in groups]
        labels = [f"all (n={len(run.samples)})"] + [f"{g} (n={sizes[g]})" for g in groups]
        reference = metric.random_baseline
        plots.append(figures.metric_bars(
            metric.label, labels, [e.get("value") for e in estimates], [e.get("ci_low") for e in estimates],
            [e.get("ci_high") for e in estimates], reference=reference,
            reference_label=baseline_label(reference) if reference is not None else ""))
    return plots
