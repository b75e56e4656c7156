"""What an AdMIRe run page shows, as plain data: where gold ranks landed, per-item rows with thumbnails
or captions (Subtask A), sequences and candidates (Subtask B)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from markupsafe import Markup

from senso.admire.items import N_IMAGES_A, AdmireAItem, AdmireBItem
from senso.admire.task import OFFICIAL_METRICS
from senso.core.errors import SensoError
from senso.core.page import differing, group_plots, mark_phrase
from senso.core.records import config_option
from senso.core.thumbnails import prefetch, thumbnail_uri

CAPTION_PREVIEW = 220


def rank_landing(samples: Sequence[dict[str, Any]]) -> list[list[int]]:
    """5x5 counts: row r, column p holds how many items had their gold rank-(r+1) image at predicted
    position p+1. A perfect system fills the diagonal; rows sum to the number of scored items."""
    matrix = [[0] * N_IMAGES_A for _ in range(N_IMAGES_A)]
    for s in samples:
        gold, predicted = s.get("gold_order"), s["predicted_order"]
        if gold is None:
            continue
        position = {name: p for p, name in enumerate(predicted)}
        if set(position) != set(gold) or len(gold) != N_IMAGES_A:
            raise SensoError(f"{s['compound']!r}: predicted order {predicted} is not a permutation of the gold order {gold}")
        for rank, name in enumerate(gold):
            matrix[rank][position[name]] += 1
    return matrix


@dataclass(frozen=True)
class ImageCell:
    """One image of an item as the page shows it: in predicted order, with its gold rank (1 = best)."""

    name: str
    position: int  # 1-based, predicted
    gold_rank: int | None  # 1-based, None without gold
    score: float | None
    thumbnail: str | None  # data URI, None when the image file is not available
    caption: str | None
    image_note: str | None = None  # why a file that exists shows no thumbnail


@dataclass(frozen=True)
class AdmireARow:
    compound: str
    sentence: Markup
    sentence_type: str | None
    predicted_type: str | None
    top1: float | None
    dcg: float | None
    images: list[ImageCell]


def _thumbnail(path: Path | None, wanted: bool) -> tuple[str | None, str | None]:
    if not wanted or path is None or not Path(path).is_file():
        return None, None
    uri = thumbnail_uri(str(path))
    return uri, (None if uri else f"image file {Path(path).name} could not be decoded")


def _cell(name: str, position: int, gold_rank: int | None, score: float | None, option: Any, caption: str | None,
          thumbnails: bool) -> ImageCell:
    thumb, note = _thumbnail(getattr(option, "path", None), thumbnails)
    return ImageCell(name=name, position=position, gold_rank=gold_rank, score=score, thumbnail=thumb, caption=caption,
                     image_note=note)


def image_cells(order: Sequence[str], gold: Sequence[str] | None, scores: dict[str, float],
                item: AdmireAItem | None, thumbnails: bool) -> list[ImageCell]:
    """Cells for the images named in `order`, in that order: gold rank, score, thumbnail and the caption in
    the language the run used (`item.caption` follows the caption language the item was loaded with)."""
    options = {option.name: option for option in item.images} if item else {}
    return [_cell(name, p, (list(gold).index(name) + 1) if gold else None, scores.get(name), options.get(name),
                  item.caption(name) if name in options else None, thumbnails) for p, name in enumerate(order, 1)]


def predicted_sense(sample: dict[str, Any]) -> str | None:
    """The sense a pipeline system decided on its way to the ranking (its `extra["sense"]`, with
    `p_idiomatic` when recorded), for the item's badge; None for systems that decide none."""
    extra = sample.get("extra") or {}
    label = extra.get("sense")
    if not isinstance(label, str):
        return None
    p = extra.get("p_idiomatic")
    return f"{label} (p_idiomatic {p:.2f})" if isinstance(p, (int, float)) else label


def admire_a_rows(samples: Sequence[dict[str, Any]], items: Sequence[AdmireAItem | None],
                  thumbnails: bool = True) -> list[AdmireARow]:
    """Per item, in the run's order (`items`: each sample's item, None where unknown): sentence with the compound
    highlighted and the five images in predicted order, each with its gold rank, score and thumbnail (or caption
    when there is no file)."""
    if thumbnails:
        prefetch(o.path for i in items if i is not None for o in i.images if o.path is not None and Path(o.path).is_file())
    rows = []
    for s, item in zip(samples, items):
        sentence = s.get("sentence") or (item.sentence if item else "")
        rows.append(AdmireARow(
            compound=s["compound"], sentence=mark_phrase(sentence, s["compound"]),
            sentence_type=s.get("sentence_type"), predicted_type=predicted_sense(s),
            top1=s.get("top1"), dcg=s.get("dcg"),
            images=image_cells(s["predicted_order"], s.get("gold_order"), s.get("scores") or {}, item, thumbnails),
        ))
    return rows


@dataclass(frozen=True)
class AdmireBRow:
    compound: str
    sequence_captions: tuple[str, str] | None
    sequence_thumbnails: tuple[str, str] | None
    candidates: list[ImageCell]  # position = candidate number in the file; gold_rank 1 marks the gold item
    chosen: str
    gold_item: str | None
    predicted_type: str
    sentence_type: str | None
    image_correct: bool | None
    type_correct: bool | None


def admire_b_rows(samples: Sequence[dict[str, Any]], items: Sequence[AdmireBItem | None],
                  thumbnails: bool = True) -> list[AdmireBRow]:
    rows = []
    for s, item in zip(samples, items):
        options = {c.name: c for c in item.candidates} if item else {}
        gold = s.get("gold_item")
        cells = [_cell(name, k, (1 if name == gold else None) if gold else None, (s.get("scores") or {}).get(name),
                       options.get(name), getattr(options.get(name), "caption", None), thumbnails)
                 for k, name in enumerate(s["images"], 1)]
        seq_thumbs = None
        if item is not None and item.sequence_paths:
            pair = tuple(_thumbnail(p, thumbnails)[0] for p in item.sequence_paths)
            seq_thumbs = pair if all(pair) else None
        image_acc, type_acc = s.get("image_accuracy"), s.get("sentence_type_accuracy")
        rows.append(AdmireBRow(
            compound=s["compound"], sequence_captions=tuple(item.sequence_captions) if item else None,
            sequence_thumbnails=seq_thumbs, candidates=cells, chosen=s["predicted_item"], gold_item=gold,
            predicted_type=s["predicted_sentence_type"], sentence_type=s.get("sentence_type"),
            image_correct=None if image_acc is None else bool(image_acc),
            type_correct=None if type_acc is None else bool(type_acc),
        ))
    return rows


def load_items(run: Any) -> tuple[list[Any], list[str]]:
    """Each of the run's samples' item (None where unknown), read again from the data file(s) the run recorded
    (found again if they moved: captions, image paths, Subtask B sequences), and notes on reading them. A sample
    finds its item as the task matches items (`Task.item_key`: a ranking file's data file and row, as one
    expression may have several rows), or by compound where the samples record no such key (an earlier senso)."""
    read, notes = _read_items(run.results, run.config, run.path)
    found = {key["compound"]: item for key, item in read} | {run.item_id(key): item for key, item in read}

    def item_of(sample: dict[str, Any]) -> Any:
        try:
            return found.get(run.item_id(sample))
        except SensoError:
            return found.get(sample["compound"])

    return [item_of(s) for s in run.samples], notes


def _read_items(results: dict[str, Any], config: dict[str, Any],
                run_dir: Path | None) -> tuple[list[tuple[dict[str, Any], Any]], list[str]]:
    """The run's items, each with the fields its samples record it by (compound; a ranking file's data file and
    row), and notes; no items when no file can be read."""
    from senso.admire.data import read_subtask_b
    from senso.core.run_folder import data_files_again

    ranking = config_option(config, "ranking_task")
    entries = list(config_option(config, "ranking_entries") or [])
    gold = config_option(config, "gold")
    gold = str(Path(gold).resolve()) if gold else None
    # data_files lists the data files first (one per split, or per [[data]] file of a ranking run), then any gold
    n_files = len(entries) if ranking else len(str(config_option(config, "split") or "dev").split("+"))
    located, notes = data_files_again(config, run_dir, "captions and images are not shown", n_files, gold)
    if not located:
        return [], notes
    lang = results.get("lang") or config_option(config, "lang") or "en"
    try:
        items = (_ranking_items(ranking, entries, located) if ranking else
                 [({"compound": item.compound}, item) for p in located if p is not None
                  for item in read_subtask_b(p, lang=lang)])
    except SensoError as exc:
        return [], [*notes, f"could not read the run's data file: {exc}"]
    return items, notes


def _ranking_items(described: dict[str, Any], entries: list[int],
                   paths: list[Path | None]) -> list[tuple[dict[str, Any], Any]]:
    """The items of a ranking run's data files, read through its task file with the columns it ran with, each with
    its compound, data file (as the task file names it) and row."""
    from dataclasses import replace

    from senso.admire.rankdata import read_entry
    from senso.admire.rankfile import load_ranking_task

    task = load_ranking_task(described["task_file"])
    task = replace(task, columns={**task.columns, **described.get("columns", {})})
    items = []
    for index, path in zip(entries, paths):
        if path is None:
            continue
        entry = task.data[index - 1]  # its images where they lie beside the data file, found again if it moved
        images = Path(os.path.normpath(path.parent / os.path.relpath(entry.images, Path(entry.file).parent))
                      ) if entry.images else None
        items += [({"compound": item.compound, "data_file": entry.file, "data_row": item.row}, item)
                  for item in read_entry(task, entry, path, images, False)[0]]
    return items


def caption_preview(text: str | None, limit: int = CAPTION_PREVIEW) -> str:
    """A caption on one line (the files write newlines as a literal backslash-n), cut at a word near `limit`."""
    if not text:
        return ""
    flat = " ".join(text.replace("\\n", " ").replace("**", "").split())
    return flat if len(flat) <= limit else flat[:limit].rsplit(" ", 1)[0] + " …"


def _section(run: Any, rows_of: Any, metrics: tuple[str, ...], thumbnails: bool) -> dict[str, Any]:
    """A run page's items (`rows_of` the run's samples and items), the notes on reading them, the group plots."""
    items, notes = load_items(run)
    return {"notes": notes, "group_plots": group_plots(run, metrics), "caption_preview": caption_preview,
            "rows": rows_of(run.samples, items, thumbnails=thumbnails)}


def run_section_a(run: Any, thumbnails: bool = True) -> dict[str, Any]:
    landing = rank_landing(run.samples)
    scored = sum(landing[0])
    return {**_section(run, admire_a_rows, OFFICIAL_METRICS["a"] if scored else (), thumbnails), "landing": landing,
            "landing_scored": scored}


def run_section_b(run: Any, thumbnails: bool = True) -> dict[str, Any]:
    return _section(run, admire_b_rows, OFFICIAL_METRICS["b"], thumbnails)


def admire_sense_rows(samples: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per item: compound, sentence with the compound marked, gold and predicted sense, P(idiomatic)."""
    return [{
        "compound": s["compound"],
        "sentence": mark_phrase(s.get("sentence", ""), s["compound"]),
        "gold": s.get("sentence_type"),
        "predicted": s.get("predicted_sentence_type"),
        "p_idiomatic": s.get("p_idiomatic"),
        "correct": None if s.get("sentence_type") is None else s.get("sentence_type") == s.get("predicted_sentence_type"),
    } for s in samples]


def run_section_sense(run: Any, thumbnails: bool = True) -> dict[str, Any]:
    rows = admire_sense_rows(run.samples)
    # wrong answers first, the most confident mistakes at the top
    rows.sort(key=lambda r: (r["correct"] is not False, -abs((r["p_idiomatic"] or 0.5) - 0.5)))
    return {"group_plots": group_plots(run, ("sense_accuracy",)), "rows": rows}


def disagreements_a(runs: Sequence[Any], thumbnails: bool = True) -> list[dict[str, Any]]:
    """Items where the runs' first-ranked images are not all the same, with each run's first choice."""
    items, _ = load_items(runs[0])
    rows = []
    for k, at in differing(runs, lambda s: s["predicted_order"][0]):
        first, gold, item = at[0], at[0].get("gold_order"), items[k]
        rows.append({"compound": first["compound"], "sentence": mark_phrase(first.get("sentence", ""), first["compound"]),
                     "sentence_type": first.get("sentence_type"), "dcg": [s.get("dcg") for s in at],
                     "choices": [image_cells([s["predicted_order"][0]], gold, s.get("scores") or {}, item, thumbnails)[0]
                                 for s in at],
                     "gold_first": image_cells([gold[0]], gold, {}, item, thumbnails)[0] if gold else None})
    return rows


def disagreements_b(runs: Sequence[Any], thumbnails: bool = True) -> list[dict[str, Any]]:
    """Items where the runs chose different candidates or different sentence types."""
    return [{"compound": at[0]["compound"], "gold_item": at[0].get("gold_item"), "sentence_type": at[0].get("sentence_type"),
             "chosen": [s["predicted_item"] for s in at], "types": [s["predicted_sentence_type"] for s in at]}
            for _, at in differing(runs, lambda s: (s["predicted_item"], s["predicted_sentence_type"]))]


def distributions(run: Any, samples: Sequence[dict[str, Any]]) -> Any:
    """[1 - P(idiomatic), P(idiomatic)] of each item against its gold sentence type, as the run's calibration saw
    them; None when the run has no calibration or some sample lacks a probability or a gold type."""
    from senso.core.calibration import binary_distribution

    if "metrics" not in (run.results.get("calibration") or {}):
        return None
    p = [s.get("p_idiomatic", (s.get("extra") or {}).get("p_idiomatic")) for s in samples]
    if any(v is None for v in p) or any(s.get("sentence_type") is None for s in samples):
        return None
    return binary_distribution(p), [int(s["sentence_type"] == "idiomatic") for s in samples]
