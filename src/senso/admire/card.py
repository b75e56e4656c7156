"""The AdMIRe dataset card: items per subtask, language, split and sense; caption lengths; a PNG figure."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from senso.core.output import atomic_file
from senso.admire.items import SENTENCE_TYPES, AdmireAItem, AdmireBItem


def caption_words(text: str) -> int:
    """Words in a caption (the files write newlines as a literal backslash-n, counted as a space)."""
    return len(text.replace("\\n", " ").split())


@dataclass(frozen=True)
class SplitSummary:
    """One split of one subtask and language: item counts by gold sense (no_gold: not in this copy),
    image files found on disk, and the length in words of every caption."""

    subtask: str  # "a" or "b"
    lang: str
    split: str
    n: int
    idiomatic: int
    literal: int
    no_gold: int
    images_on_disk: int | None  # None: only a targets file (no inputs, so no images to look for)
    source: str
    caption_words: tuple[int, ...]

    @property
    def name(self) -> str:
        return f"{self.subtask.upper()} {self.lang} {self.split}"


def _summary(subtask: str, lang: str, split: str, source: str, types: Sequence[str | None], captions: Sequence[str],
             images_on_disk: int | None) -> SplitSummary:
    counts = {t: sum(1 for x in types if x == t) for t in SENTENCE_TYPES}
    return SplitSummary(subtask, lang, split, len(types), **counts, no_gold=sum(1 for x in types if x is None),
                        images_on_disk=images_on_disk, source=source,
                        caption_words=tuple(caption_words(c) for c in captions))


def summarise_a(items: Sequence[AdmireAItem], lang: str, split: str, source: str) -> SplitSummary:
    captions = [image.caption for item in items for image in item.images]
    on_disk = sum(1 for item in items for image in item.images if image.path is not None)
    return _summary("a", lang, split, source, [i.sentence_type for i in items], captions, on_disk)


def summarise_b(items: Sequence[AdmireBItem], lang: str, split: str, source: str) -> SplitSummary:
    captions = [c for item in items for c in (*item.sequence_captions, *(x.caption for x in item.candidates))]
    on_disk = sum(1 for item in items for c in item.candidates if c.path is not None)
    on_disk += sum(2 for item in items if item.sequence_paths)
    return _summary("b", lang, split, source, [i.sentence_type for i in items], captions, on_disk)


def collect_admire(data_dir: str | Path | None) -> tuple[list[SplitSummary], list[str]]:
    """Every split found under the AdMIRe folder, read as a run reads it, and notes on what is absent.

    Inputs (Subtask A: the files its shipped task files name; B: `subtask_b/en/<split>/*.tsv`) come first; a split
    present only as an organisers' targets file (`reference/a_pt_train_targets.tsv`, ...) is counted from it. Gold
    missing from the inputs is taken from a targets file of the same split when there is one."""
    from senso.admire import data as loader
    from senso.admire.rankfile import shipped_task
    from senso.admire.task import SPLITS, TASK_NAMES, targets_name
    from senso.core.errors import DataNotFound

    root = loader.locate_admire(data_dir)
    summaries: list[SplitSummary] = []
    absent: list[str] = []
    for subtask, lang in (("a", "en"), ("a", "pt"), ("b", "en")):  # Subtask B is English only
        task = shipped_task(TASK_NAMES["a"], lang) if subtask == "a" else None
        for split in SPLITS:
            gold = root / "reference" / targets_name(subtask, lang, split)
            gold = gold if gold.is_file() else None
            if task is not None:  # Subtask A's inputs: where its shipped task file's [[data]] entry says
                path = task.where(next(d for d in task.data if d.split == split), "file", root.parent, required=False)
            else:
                try:
                    path = loader.split_file(root.parent, subtask, lang, split)
                except DataNotFound:
                    path = None
            if path is not None:
                summaries.append(_inputs(subtask, lang, split, path, gold, task, root.parent))
            elif gold is not None:
                types = [t.sentence_type for t in loader.read_targets(gold)]
                summaries.append(_summary(subtask, lang, split, f"{gold} (targets only)", types, (), None))
            else:
                absent.append(f"{subtask.upper()} {lang} {split}")
    return summaries, absent


def _inputs(subtask: str, lang: str, split: str, path: Path, gold: Path | None, task: Any, data_dir: Path) -> SplitSummary:
    """A split read from its inputs as a run reads them, gold they lack joined from the organisers' targets file."""
    from senso.admire import data as loader
    from senso.admire.rankdata import split_items

    if subtask == "a":
        items = split_items(task, split, data_dir)[0]
        items = loader.join_gold_a(items, gold, path) if gold and any(i.sentence_type is None for i in items) else items
        return summarise_a(items, lang, split, str(path))
    items_b = loader.read_subtask_b(path, lang=lang)
    items_b = loader.join_gold_b(items_b, gold, path) if gold and any(i.sentence_type is None for i in items_b) else items_b
    return summarise_b(items_b, lang, split, str(path))


def caption_stats(words: Sequence[int]) -> dict[str, float] | None:
    """Mean, median, min and max words per caption; None without captions."""
    if not words:
        return None
    arr = np.asarray(words, dtype=float)
    return {"n": int(arr.size), "mean": float(arr.mean()), "median": float(np.median(arr)),
            "min": float(arr.min()), "max": float(arr.max())}


def plot_admire_card(summaries: Sequence[SplitSummary], path: Path) -> Path:
    """Left: items per split, stacked by gold sense. Right: words per caption, one box per split with captions."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.2), gridspec_kw={"width_ratios": [1.1, 1]})
    names = [s.name for s in summaries]
    bottom = np.zeros(len(summaries))
    for key, colour, label in (("idiomatic", "#8172b3", "idiomatic"), ("literal", "#4c72b0", "literal"),
                               ("no_gold", "#c8c8c8", "no gold in this copy")):
        values = np.array([getattr(s, key) for s in summaries], dtype=float)
        left.bar(names, values, bottom=bottom, color=colour, label=label)
        bottom += values
    for x, total in enumerate(bottom):
        left.text(x, total, f"{int(total)}", ha="center", va="bottom", fontsize=8)
    left.set_ylabel("items")
    left.set_title("AdMIRe items per subtask, language and split")
    left.legend(frameon=False, fontsize=8)
    left.tick_params(axis="x", rotation=45, labelsize=8)
    with_captions = [s for s in summaries if s.caption_words]
    if with_captions:
        right.boxplot([s.caption_words for s in with_captions], showfliers=True, flierprops={"markersize": 2})
        right.set_xticks(range(1, len(with_captions) + 1))
        right.set_xticklabels([s.name for s in with_captions], rotation=45, fontsize=8)
    right.set_ylabel("words per caption")
    right.set_title("Caption lengths (A: the 5 image captions; B: 2 sequence + 4 candidates)")
    right.title.set_fontsize(10)
    fig.tight_layout()
    with atomic_file(path, "--out", binary=True) as fh:
        fig.savefig(fh, format="png", dpi=110)
    plt.close(fig)
    return path


def print_admire_card(data_dir: str | Path | None, out_dir: Path, console) -> Path:
    """`senso data stats admire`: the tables on `console` and the figure under `out_dir` (its path printed last)."""
    from rich.table import Table

    from senso.core.errors import SensoError

    summaries, absent = collect_admire(data_dir)
    if not summaries:
        raise SensoError("no AdMIRe split found (nothing to describe)")
    table = Table(title="AdMIRe items per subtask, language, split and gold sense; words per caption")
    for column in ("split", "items", "idiomatic", "literal", "no gold", "images on disk", "words mean", "median", "min-max"):
        table.add_column(column, justify="left" if column == "split" else "right")
    for s in summaries:
        stats = caption_stats(s.caption_words)
        table.add_row(
            s.name, str(s.n), str(s.idiomatic), str(s.literal), str(s.no_gold),
            "-" if s.images_on_disk is None else str(s.images_on_disk),
            f"{stats['mean']:.1f}" if stats else "-", f"{stats['median']:.0f}" if stats else "-",
            f"{stats['min']:.0f}-{stats['max']:.0f}" if stats else "-")
    console.print(table)
    for s in summaries:
        console.print(f"{s.name}: {s.source}", highlight=False, soft_wrap=True)
    if absent:
        console.print(f"absent from this copy: {', '.join(absent)}", highlight=False, soft_wrap=True)
    figure = plot_admire_card(summaries, out_dir / "admire_card.png")
    console.print(f"figure: {figure}")
    return figure
