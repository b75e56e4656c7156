"""`senso run path/to/task.toml` for a ranking task file (`kind = "ranking"`; admire-a is its shipped files): the
same loop, run folder and records as every task, on the file's data, in its languages. `--lang` and `--split`
(each joined by `+`) choose the `[[data]]` files; without `--system` the default is chosen on the file's training
rows (`ranking.select`). What a run writes: docs/ranking_task_files.md ("What a run writes")."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any, Sequence

from senso.admire.checks import AdmirePlan, check_answers, chosen_by_default
from senso.admire.items import SENTENCE_TYPES
from senso.admire.options import check_gold_file
from senso.admire.data import items_from_targets_a, join_gold_a
from senso.admire.rankdata import RankingItem, load_entries
from senso.admire.scoring import Sample
from senso.admire.ranking.default import check_row
from senso.admire.rankfile import (SHIPPED, DataFile, RankingTask, check_data_files, load_ranking_task,
                                   shipped_task)
from senso.admire.ranking.fit import Fitted, run_fitted
from senso.admire.metrics import item_metrics
from senso.admire.ranking.select import Candidate, Checked, choose_default
from senso.admire.submission import format_order, submission_text_filled, submission_text_ranked
from senso.admire.systems.base import Ranking
from senso.admire.systems.fitting import is_fittable, training_rows
from senso.admire.systems.registry import check_system, chosen_row, system_params, wordnet_warnings
from senso.admire.task import ONE_GOLD, TASK_NAMES, fingerprints, targets_note
from senso.core.errors import SensoError
from senso.core.evaluation import RunContext, Scored
from senso.core.options import RunOptions


@dataclass
class RankingSample(Sample):
    """A line of samples.jsonl (`scoring.Sample`); of the item's language (a multilingual task), the system's
    sentence type (a task that asks for it) and where a task file's item was read (its `[[data]]` file as the task
    file names it and its row: what comparisons key an item by, as a file may repeat an expression and sentence),
    only those the run has (the others are `hidden`)."""

    compound: str
    subset: str
    sentence: str
    images: list[str]
    scores: dict[str, float | None]
    predicted_order: list[str]
    gold_order: list[str] | None
    sentence_type: str | None
    predicted_sentence_type: str | None
    lang: str | None
    data_file: str | None
    data_row: int | None
    metrics: dict[str, float]
    extra: dict[str, Any]
    hidden: tuple[str, ...]
    overlap: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in super().to_json().items() if k not in (*self.hidden, "hidden")}


def check(options: RunOptions, system_object: Any = None) -> Checked:
    options.validate()
    shipped = options.task in SHIPPED  # a registered ranking task: its shipped file in --lang
    task = shipped_task(options.task, options.lang or "en") if shipped else load_ranking_task(options.task)
    name = options.task if shipped else task.name
    options.check_family("admire", name)
    check_gold_file(options)
    entries, languages, split = task.chosen(options.lang, options.split)
    check_data_files(task, entries, lang_given=options.lang is not None)
    if options.gold is not None and len(entries) > 1:
        raise SensoError(ONE_GOLD)
    task = task.with_captions(options.caption_lang)
    options = replace(options, split=split, lang="+".join(languages))
    row = chosen_row(options, system_object, "a", task.default_system)
    if row is None:
        return Checked(name, task, options, entries, languages, None)
    user = system_object is not None  # a researcher's system reads no option of senso's systems
    own = (options, check_system(row, options), []) if user else check_row(task, row, options, languages)
    chosen = Candidate(row.name, {}, row, *own)
    return Checked(name, task, options, entries, languages, chosen, wordnet_warnings(row, chosen.options))


def _items(checked: Checked, options: RunOptions,
           system: Any) -> tuple[list[RankingItem], list[Path], list[str], list[str]]:
    """The run's items (gold joined from --gold, or from an entry's organisers' targets file when its data file
    carries none), the files read, a note for each targets file and the data's warnings (repeated rows)."""
    task, notes = checked.task, []
    if options.gold is not None and not getattr(system, "reads_data", True):
        gold = Path(options.gold)  # a submission: scored against the targets alone, as the official scorer is
        return _targets_items(checked.entries[0], gold), [gold], [], []
    uses_images = bool(getattr(system, "uses_images", False))
    if uses_images and task.subtask == "captions":
        raise SensoError(f"{task.reference} ranks captions only: {system.name} reads the pictures")
    items, paths, warnings = load_entries(task, checked.entries, options.data_dir, uses_images)
    if options.gold is not None:
        items = join_gold_a(items, Path(options.gold), paths[0])
        paths.append(Path(options.gold))
    elif items and all(i.expected_order is None for i in items):
        items, paths, notes = _official_targets(checked, options, items, paths)
    return items, paths, notes, warnings


def _targets_items(entry: DataFile, gold: Path) -> list[RankingItem]:
    """The items a targets file names (no captions or pictures: nothing that scores a submission reads them)."""
    return [RankingItem(**vars(item), group=item.compound, pair=item.compound, split=entry.split, file=str(gold),
                        row=row)
            for row, item in enumerate(items_from_targets_a(gold, entry.language), start=1)]


def _official_targets(checked: Checked, options: RunOptions, items: list[RankingItem],
                      paths: list[Path]) -> tuple[list[RankingItem], list[Path], list[str]]:
    targets = [checked.task.where(d, "targets", options.data_dir, required=False) for d in checked.entries]
    if not all(t is not None and t.is_file() for t in targets):
        return items, paths, []
    joined, notes = [], []
    for entry, path, target in zip(checked.entries, paths, targets):
        joined += join_gold_a([i for i in items if i.split == entry.split and i.lang == entry.language], target, path)
        notes.append(targets_note(entry.language, entry.split, target))
    return joined, [*paths, *targets], notes


def prepare(options: RunOptions, context: RunContext) -> "RankingPlan":
    checked = context.checked or check(options, context.system)
    task = checked.task
    training = cache(lambda: training_rows(task, checked.options.data_dir))  # read when a fitted system first asks
    chosen = checked.system or choose_default(checked, context, training)
    row, params, run_options = chosen.row, chosen.params, chosen.options
    system = chosen.build(context, training)
    items, paths, gold_notes, data_warnings = _items(checked, run_options, system)
    n_data = len(items)
    if hasattr(system, "select_items"):  # a system that answers a part of the split (a submission file)
        items = system.select_items(items)
    items = items[: run_options.limit]
    config = {"lang": run_options.lang, "split": run_options.split,
              "chosen_by_default": chosen_by_default(run_options, options),
              "ranking_task": task.describe(),
              "ranking_entries": [d.index for d in checked.entries],
              "system_options": system_params(row, run_options).to_json(params),
              "system_description": system.describe()}
    return RankingPlan(task=checked.name, system=row.name, items=items,
                       data_files=paths, config=config, warnings=[*checked.warnings, *data_warnings], ranking=task,
                       entries=checked.entries, languages=checked.languages, predictor=system, options=run_options,
                       kind=TASK_NAMES["a"], notes=[*gold_notes, *chosen.notes], choice=chosen.record or None,
                       params=row.typed(params), training=training, n_data=n_data)


def check_rankings(system: str, items: Sequence[Any], rankings: Sequence[Ranking]) -> None:
    """One ranking per item, each a permutation of the item's images (a wrong one named by its file and row)."""
    check_answers(system, rankings, items, "rankings")
    for item, ranking in zip(items, rankings):
        if sorted(ranking.order) != sorted(item.image_names):
            raise SensoError(f"system {system!r} ranked {list(ranking.order)} for {item.compound!r} ({item.file}, "
                             f"row {item.row}), not a permutation of its images {list(item.image_names)}")


def predicted_type(ranking: Ranking) -> str | None:
    """The sentence type a system decided for an item: its `extra` "sentence_type" or "sense", else P(idiomatic)
    at 0.5; None for a system that decides none."""
    for key in ("sentence_type", "sense"):
        if ranking.extra.get(key) in SENTENCE_TYPES:
            return ranking.extra[key]
    p = ranking.extra.get("p_idiomatic")
    return None if not isinstance(p, (int, float)) else ("idiomatic" if p >= 0.5 else "literal")


@dataclass
class RankingPlan(AdmirePlan):
    """A ranking task file's run prepared: items with gold where the files carry it, the system built."""

    ranking: RankingTask
    entries: list[DataFile]
    languages: list[str]
    notes: list[str] = field(default_factory=list)
    choice: dict[str, Any] | None = None
    params: Any = None  # the system's typed options (an object of its options class)
    training: Any = None  # the file's training rows, read when a fitted system first asks
    n_data: int = 0  # the items of the data files, before --limit
    fitted: Fitted | None = None

    def predict(self) -> list[Ranking]:
        """Rankings, checked against the items; a fitted system is fit honestly first (`ranking.fit`)."""
        if is_fittable(self.predictor):
            self.fitted = run_fitted(self)
            self.notes += self.fitted.notes
        rankings = self.fitted.rankings if self.fitted is not None else self.predictor.rank(self.items)
        check_rankings(self.system, self.items, rankings)
        return rankings

    def score(self, answers: list[Ranking]) -> Scored:
        from senso.admire.ranking.tally import official_record, tally

        task, options = self.ranking, self.options
        types = [predicted_type(a) if task.sentence_type else None for a in answers]
        orders = [item.expected_order is not None for item in self.items]
        if any(orders) and not all(orders):
            raise SensoError(f"only {sum(orders)} of {len(self.items)} items carry a gold order (--split "
                             f"{options.split}): score the splits with gold and those without separately")
        scored = bool(orders) and all(orders)
        samples = [self._sample(i, a, t, scored) for i, a, t in zip(self.items, answers, types)]
        files = self._submissions(answers, types)
        record, metrics, by_group, notes, warnings = tally(self, samples, scored, types)
        record.update({"submission": next(iter(files)), "submissions": list(files),
                       "fingerprints": self._fingerprints()})
        record.update(official_record(self, samples, answers, scored))
        cross_validated = bool(self.fitted and self.fitted.fitting.get("cross_validated"))
        warnings += [] if cross_validated else self.hygiene()
        warnings += [] if self.n_official is None else self.partial(self.n_official, self.n_data)
        return Scored(samples=samples, metrics=metrics, metrics_by_group=by_group, record=record,
                      warnings=warnings, notes=[*self.notes, *notes], files=files)

    def _fingerprints(self) -> dict[str, str]:
        """Each data file's, named by its split (and language, in a multilingual run), and each gold file's."""
        entries = self.entries
        one_language = len({d.language for d in entries}) == 1
        keys = [d.split if one_language else f"{d.language}_{d.split}" for d in entries]
        return fingerprints(list(zip(keys, self.data_files)), self.data_files[len(entries):], self.options.use_cache)

    @property
    def n_official(self) -> int | None:
        """The official rows of the run's files (`rows` of its [[data]]); None when one does not say."""
        counts = [d.rows for d in self.entries]
        return None if any(n is None for n in counts) else sum(counts)

    def _sample(self, item: RankingItem, answer: Ranking, kind: str | None, scored: bool) -> RankingSample:
        task = self.ranking
        metrics = item_metrics(task.metrics, answer.order, item.expected_order, task.gains, task.ndcg_k, kind,
                               item.sentence_type) if scored else {}
        named = {str(path): d.file for d, path in zip(self.entries, self.data_files)}
        read_from = None if self.options.task in SHIPPED else named.get(item.file, Path(item.file).name)
        hidden = [*(() if task.sentence_type else ("predicted_sentence_type",)),
                  *(() if len(task.languages) > 1 else ("lang",)), *(() if read_from else ("data_file", "data_row"))]
        return RankingSample(item.compound, item.subset, item.sentence, list(item.image_names), answer.scores,
                             list(answer.order), list(item.expected_order) if item.expected_order else None,
                             item.sentence_type, kind, item.lang, read_from, item.row, metrics, answer.extra,
                             tuple(hidden))

    def _submissions(self, answers: Sequence[Ranking], types: Sequence[str | None]) -> dict[str, str]:
        """One submission file per data file: Subtask A's columns (with sentence and sentence_type as needed), or
        the data file itself with its order filled in (`submission_columns = "data-file"`)."""
        files: dict[str, str] = {}
        names = [d.submission for d in self.entries]
        for entry, path in zip(self.entries, self.data_files):
            rows = [(i, a.order, t) for i, a, t in zip(self.items, answers, types) if i.file == str(path)]
            if rows:
                name = entry.submission if names.count(entry.submission) == 1 else f"{entry.split}_{entry.submission}"
                files[name if name not in files else f"{path.stem}_{name}"] = self._submission_text(path, rows)
        return files

    def _submission_text(self, path: Path, rows: Sequence[tuple[RankingItem, Sequence[str], str | None]]) -> str:
        task = self.ranking
        if task.submission_columns == "data-file":
            filled = {i.row: {task.column("expected_order"): format_order(order),
                              **({task.column("sentence_type"): kind or ""} if task.sentence_type else {})}
                      for i, order, kind in rows}
            return submission_text_filled(path, task.delimiter_for(path), filled)
        ranked = [(i.compound, i.sentence, order, kind) for i, order, kind in rows]
        return submission_text_ranked(ranked, len({r[0] for r in ranked}) < len(ranked), task.sentence_type)
