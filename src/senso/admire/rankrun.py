"""`senso run path/to/task.toml` for a ranking task file (`kind = "ranking"`): the same loop, run folder and
records as `admire-a`, on the file's data, in its languages.

`--lang` (codes joined by `+`) and `--split` (splits joined by `+`; default `test` when the file has one, else its
first) choose the `[[data]]` files. Without `--system` the default is chosen on the file's own training items
(`rankselect.py`). The run writes one submission file per data file (with sentence types when the task asks),
samples.jsonl (with `lang` when the task has several languages, `predicted_sentence_type` when it asks for them)
and results.json: the metrics overall, per gold sentence type and per language, each with a 95% CI, and the
paired comparison of each two languages on the expressions they share.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

from senso.admire.items import SENTENCE_TYPES
from senso.admire.languages import LanguageCodeError, check_language
from senso.admire.rankdata import RankingItem, load_entries
from senso.admire.rankdefault import adapt
from senso.admire.rankfile import DataFile, RankingTask, load_ranking_task
from senso.admire.rankmetrics import item_metrics
from senso.admire.rankselect import Candidate, choose_default
from senso.admire.run import AdmireASample, check_rankings
from senso.admire.submission import (format_order, submission_text_a, submission_text_filled,
                                     submission_text_ranked)
from senso.admire.systems.base import Ranking
from senso.admire.systems.fitting import is_fittable
from senso.admire.systems.registry import (AdmireSystem, check_system, get_system, member_rows, system_context,
                                           system_params, user_row)
from senso.admire.task import RUN_TASKS, hygiene_warnings
from senso.core.errors import SensoError
from senso.core.evaluation import RunContext, Scored
from senso.core.fingerprint import path_fingerprint
from senso.core.options import RunOptions

ADMIRE_A = RUN_TASKS["admire-a"]


@dataclass
class RankingSample(AdmireASample):
    """A line of samples.jsonl: admire-a's, with the item's language (a multilingual task) and the system's
    sentence type (a task that asks for it)."""

    lang: str | None = None
    predicted_sentence_type: str | None = None
    show_lang: bool = False
    show_type: bool = False

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        if not (self.show_lang or self.show_type):
            return data
        out = {}
        for key, value in data.items():
            out[key] = value
            if key == "sentence_type":
                out.update({"predicted_sentence_type": self.predicted_sentence_type} if self.show_type else {})
                out.update({"lang": self.lang} if self.show_lang else {})
        return out


def _chosen(task: RankingTask, options: RunOptions) -> tuple[list[DataFile], list[str], str]:
    """The `[[data]]` files of --lang and --split, the languages and the split text."""
    default = "test" if "test" in task.splits else task.splits[0]
    splits = (options.split or default).split("+")
    try:
        langs = [check_language(code) for code in options.lang.split("+")] if options.lang else list(task.languages)
    except LanguageCodeError as exc:
        raise SensoError(f"--lang: {exc}") from None
    for name, given, have in (("--split", splits, task.splits), ("--lang", langs, task.languages)):
        unknown = [g for g in given if g not in have]
        if unknown or len(set(given)) != len(given):
            raise SensoError(f"{name} {'+'.join(given)}: {task.source} has {', '.join(have)}; join several with +")
    entries = [d for d in task.data if d.split in splits and d.language in langs]
    if not entries:
        raise SensoError(f"{task.source} has no data file for --lang {'+'.join(langs)} and --split "
                         f"{'+'.join(splits)}")
    return entries, list(dict.fromkeys(d.language for d in entries)), "+".join(splits)


@dataclass(frozen=True)
class Checked:
    task: RankingTask
    options: RunOptions
    entries: list[DataFile]
    languages: list[str]
    row: AdmireSystem | None  # None: the default, chosen in `prepare`
    params: dict[str, Any]
    notes: list[str]


def _check_row(task: RankingTask, row: AdmireSystem, options: RunOptions,
               languages: Sequence[str]) -> tuple[RunOptions, dict[str, Any], list[str]]:
    """The options `row` runs with on `languages` (the multilingual alternatives in place), checked."""
    if row.name == "fitted-pipeline":
        raise SensoError("--system fitted-pipeline fits on AdMIRe's English train+dev of the data folder, not on "
                         "this task file: run it as `senso run admire-a`, or choose sense-pipeline")
    given = dict(options.system_options)
    own = row.typed(row.params.resolve({k: v for k, v in given.items() if k in row.params}, f"--system {row.name}"))
    if task.subtask == "captions" and own.reads_images:
        raise SensoError(f"{task.source} ranks captions only (subtask = \"captions\": no pictures): --system "
                         f"{row.name} with what it was given reads the pictures")
    members = member_rows(row, own.members, options) if row.composed else []
    adapted = adapt(row.name, row.options, given, options.embedder, languages,
                    [(entry, member.options) for entry, member, _ in members])
    options = replace(options, system_options=adapted.system_options, embedder=adapted.embedder)
    return options, check_system(row, options), adapted.notes


def check_options(options: RunOptions, system_object: Any = None) -> Checked:
    task = load_ranking_task(options.task)
    options.check_family("admire", task.name)
    for flag, value in (("--gold", options.gold), ("--caption-lang", options.caption_lang)):
        if value is not None:
            raise SensoError(f"{flag} is not read by a ranking task file: its gold and captions are its files' "
                             "columns ([columns] maps them)")
    entries, languages, split = _chosen(task, options)
    options = replace(options, split=split, lang="+".join(languages))
    if system_object is not None:
        if options.system is not None:
            raise SensoError("--system names a registered system, but a system object was given too: give one of them")
        row = user_row(system_object, ADMIRE_A)
        return Checked(task, options, entries, languages, row, check_system(row, options), [])
    if options.system is None:
        return Checked(task, options, entries, languages, None, {}, [])
    row = get_system(ADMIRE_A, options.system)
    options, params, notes = _check_row(task, row, options, languages)
    return Checked(task, options, entries, languages, row, params, notes)


def check(options: RunOptions, system_object: Any = None) -> None:
    options.validate()
    check_options(options, system_object)


def _build(row: AdmireSystem, options: RunOptions, params: dict[str, Any], context: RunContext) -> Any:
    system = row.build(system_context(row, options, context.cache, context.models, params))
    if is_fittable(system):
        raise SensoError(f"--system {row.name} fits parts on AdMIRe's English data at run time (a learned sense or "
                         "roles): not on a ranking task file; choose training-free parts")
    return system


def prepare(options: RunOptions, context: RunContext) -> "RankingPlan":
    options.validate()
    checked = check_options(options, context.system)
    task, options = checked.task, checked.options
    row, params, notes, choice = checked.row, checked.params, list(checked.notes), None
    if row is None:
        choice = _default(task, checked, context)
        row, options, params, notes = choice.row, choice.options, choice.params, choice.notes
    system = _build(row, options, params, context)
    uses_images = bool(getattr(system, "uses_images", False))
    if uses_images and task.subtask == "captions":
        raise SensoError(f"{task.source} ranks captions only: {row.name} reads the pictures")
    items, paths, warnings = load_entries(task, checked.entries, options.data_dir, uses_images)
    if options.limit is not None:
        items = items[: options.limit]
    config = {"lang": options.lang, "split": options.split, "ranking_task": task.describe(),
              "system_options": system_params(row, options).to_json(params),
              "system_description": system.describe()}
    return RankingPlan(task=task.name, system=row.name, items=items, data_files=paths, config=config,
                       warnings=warnings, ranking=task, entries=checked.entries, languages=checked.languages,
                       predictor=system, options=options, notes=notes,
                       choice=choice.record if choice is not None else None)


def _default(task: RankingTask, checked: Checked, context: RunContext) -> Candidate:
    """The best candidate that serves the languages, on the file's training items (`rankselect`): every file of
    split "train", in whichever language (AdMIRe 2 trains on AdMIRe 1's English)."""
    train = [d for d in task.data if d.split == "train"]
    items = load_entries(task, train, checked.options.data_dir, False)[0] if train else []
    items = [i for i in items if i.expected_order is not None]

    def candidate(name: str, given: dict[str, Any]) -> Candidate:
        row = get_system(ADMIRE_A, name)
        options = replace(checked.options, system=name, system_options={**checked.options.system_options, **given})
        options, params, notes = _check_row(task, row, options, checked.languages)
        return Candidate(name, given, row, options, params, notes)

    def rank(c: Candidate, train_items: list[RankingItem]) -> list[Ranking]:
        return _build(c.row, c.options, c.params, context).rank(train_items)

    return choose_default(task, checked.languages, items, candidate, rank, seed=checked.options.seed)


def predicted_type(ranking: Ranking) -> str | None:
    """The sentence type a system decided for an item: its `extra` "sentence_type" or "sense", else P(idiomatic)
    at 0.5; None for a system that decides none."""
    for key in ("sentence_type", "sense"):
        if ranking.extra.get(key) in SENTENCE_TYPES:
            return ranking.extra[key]
    p = ranking.extra.get("p_idiomatic")
    return None if not isinstance(p, (int, float)) else ("idiomatic" if p >= 0.5 else "literal")


@dataclass
class RankingPlan:
    """A ranking task file's run prepared: items with gold where the files carry it, the system built."""

    task: str
    system: str
    items: list[RankingItem]
    data_files: list[Path]
    config: dict[str, Any]
    warnings: list[str]
    ranking: RankingTask
    entries: list[DataFile]
    languages: list[str]
    predictor: Any
    options: RunOptions
    notes: list[str] = field(default_factory=list)
    choice: dict[str, Any] | None = None
    family: str = "admire"
    kind: str = "admire-a"

    def describe_system(self) -> dict[str, Any]:
        return self.predictor.describe()

    def predict(self) -> list[Ranking]:
        rankings = self.predictor.rank(self.items)
        check_rankings(self.system, self.items, rankings)
        return rankings

    def score(self, answers: list[Ranking]) -> Scored:
        from senso.admire.ranktally import tally

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
        warnings += hygiene_warnings(self.predictor, [i.compound for i in self.items], options.split)
        return Scored(samples=samples, metrics=metrics, metrics_by_group=by_group, record=record,
                      warnings=warnings, notes=[*self.notes, *notes], files=files)

    def _fingerprints(self) -> dict[str, Any]:
        keys = [f"data_{d.language}_{d.split}" for d in self.entries]
        return {key if keys.count(key) == 1 else f"{key}_{path.stem}": path_fingerprint(path, memo=self.options.use_cache)
                for key, path in zip(keys, self.data_files)}

    def _sample(self, item: RankingItem, answer: Ranking, kind: str | None, scored: bool) -> RankingSample:
        task = self.ranking
        metrics = item_metrics(task.metrics, answer.order, item.expected_order, task.gains, task.ndcg_k, kind,
                               item.sentence_type) if scored else {}
        return RankingSample(item.compound, item.subset, item.sentence, list(item.image_names), answer.scores,
                             list(answer.order), list(item.expected_order) if item.expected_order else None,
                             item.sentence_type, metrics, answer.extra, lang=item.lang, predicted_sentence_type=kind,
                             show_lang=len(self.ranking.languages) > 1, show_type=task.sentence_type)

    def _submissions(self, answers: Sequence[Ranking], types: Sequence[str | None]) -> dict[str, str]:
        """One submission file per data file: Subtask A's columns (with sentence and sentence_type as needed)."""
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
        if len({r[0] for r in ranked}) < len(ranked) or task.sentence_type:
            return submission_text_ranked(ranked, len({r[0] for r in ranked}) < len(ranked), task.sentence_type)
        return submission_text_a([(r[0], r[2]) for r in ranked])
