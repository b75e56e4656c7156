"""The checks of a run of admire-b or admire-sense (the tasks with a plan of their own: `sequence/`, `sense/`),
before anything slow and before a run folder, and the system they start from; what they know of their task they
read from its one declaration (`family.py`'s `Task`): its name, languages (its captions' too), metrics and
default system. Also the steps every AdMIRe plan shares: its shape, split hygiene, PARTIAL, the overlap with a
fitted system's training data, the answer count."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any, ClassVar, Sequence

from senso.admire.leaderboard import unranked_reason
from senso.admire.options import check_gold_file
from senso.admire.overlap import TrainingIndex
from senso.admire.scoring import overlap_record
from senso.admire.systems.fitting import shipped_training
from senso.admire.systems.registry import (AdmireSystem, check_system, chosen_row, system_context, system_params,
                                           wordnet_warnings)
from senso.admire.task import DEFAULT_LANG, DEFAULT_SPLIT, ONE_GOLD, TASK_NAMES, split_names
from senso.core.errors import SensoError
from senso.core.evaluation import Partial, RunContext
from senso.core.options import RunOptions, check_choices
from senso.core.task import Task


@dataclass
class AdmirePlan:
    """What the plan of an AdMIRe run holds (`core.evaluation.Plan`): the task's and the system's names, the
    items, the files read, config.json's record, the warnings, the built system (`predictor`), the options with
    AdMIRe's defaults filled in, and the shape of its records (`kind`)."""

    task: str
    system: str
    items: list[Any]
    data_files: list[Path]
    config: dict[str, Any]
    warnings: list[str]
    predictor: Any
    options: RunOptions
    kind: str
    family: ClassVar[str] = "admire"

    def describe_system(self) -> dict[str, Any]:
        return self.predictor.describe()

    def overlap(self, samples: Sequence[Any], rows: Sequence[dict[str, Any]] | None, index: TrainingIndex | None,
                metric_names: Sequence[str], on_board: bool = False,
                overlaps: Sequence[dict[str, Any]] | None = None) -> dict[str, Any]:
        """A fitted system's `overlap` with its training data (`index`), `unseen` (with the items' scored `rows`)
        and, `on_board` (a split a published leaderboard covers), the `placement` sentence
        (`leaderboard.unranked_reason`); each sample's `overlap`. Nothing for a training-free system."""
        if index is None:
            return {}
        record = overlap_record(self.items, rows, index, metric_names, self.options.seed, overlaps, samples)[1]
        reason = unranked_reason(record) if on_board else None
        return {**record, **({"placement": reason} if reason else {})}

    def hygiene(self) -> list[str]:
        """A loud warning when the system was fit on compounds of the split it is scored on."""
        compounds = [item.compound for item in self.items]
        seen = sorted(frozenset(getattr(self.predictor, "fitted_compounds", frozenset())) & set(compounds))
        if not seen:
            return []
        return [f"SPLIT HYGIENE: system {self.predictor.name!r} was fit on {len(seen)} of the {len(compounds)} "
                f"compounds of this {self.options.split} split ({', '.join(seen[:5])}{', ...' if len(seen) > 5 else ''}"
                "); its scores here overstate what it does on unseen compounds (xeval shares every compound, with "
                "identical captions, with train/dev/test)"]

    def partial(self, n_official: int | None, n_data: int) -> list[str]:
        """PARTIAL when the run scores other than the `n_official` items of the official split (its data files hold
        `n_data`): why (--limit, else the part the system answers: a submission with fewer rows), or that the data
        file itself differs; without an official size (admire-sense), when --limit cut the items."""
        options, n_items, where = self.options, len(self.items), f"{self.options.lang} {self.options.split}"
        if options.limit is not None:
            reason = f"--limit {options.limit}"
        else:
            reason = getattr(self.predictor, "partial_reason", None) if n_items < n_data else None
        if n_official is None:
            return [Partial(f"PARTIAL: the first {n_items} items ({reason}) of {where}")] if reason else []
        if n_items == n_official:
            return []
        if reason:
            return [Partial(f"PARTIAL: {n_items} of the {n_official} items of the official {where} split ({reason}); "
                            "not comparable to the leaderboard")]
        return [Partial(f"PARTIAL: the data file has {n_data} items, the official split {n_official}; not comparable "
                        "to the leaderboard")]


@dataclass(frozen=True)
class Checked:
    """What the checks found: the options with AdMIRe's defaults filled in, the splits, the system's row and its
    options' typed values, and warnings for the terminal and results.json."""

    options: RunOptions
    splits: list[str]
    row: AdmireSystem
    params: dict[str, Any]
    warnings: list[str]


def check(task: Task, options: RunOptions, system_object: Any = None) -> Checked:
    """Every option of the run, checked before anything slow, once: options no AdMIRe task reads, the language,
    the splits (each once; --gold for one), the caption language, and the system (registered, or the
    researcher's `system_object`): the model flags and options it reads, their values."""
    options.validate()
    options.check_family("admire")
    check_gold_file(options)
    options = replace(options, lang=options.lang or DEFAULT_LANG, split=options.split or DEFAULT_SPLIT)
    check_choices(options, task.choices, task.name)
    splits = split_names(options.split)
    if len(splits) > 1 and options.gold:
        raise SensoError(ONE_GOLD)
    langs = task.choices["lang"]
    if options.caption_lang not in (None, *langs):
        raise SensoError(f"--caption-lang {options.caption_lang!r}: {task.name} has {' or '.join(langs)} captions")
    subtask = next(key for key, name in TASK_NAMES.items() if name == task.name)
    row = chosen_row(options, system_object, subtask, next(e.name for e in task.systems() if e.default))
    params = check_system(row, options)
    return Checked(options, splits, row, params, wordnet_warnings(row, options))


def start(task: Task, options: RunOptions, context: RunContext) -> tuple[Checked, Any, dict[str, Any]]:
    """What an admire-b or admire-sense run starts from: the checked options, the system `options.system`
    (default: the task's) or the researcher's `context.system` built, and config.json's record of them."""
    checked = context.checked or check(task, options, context.system)
    chosen = chosen_by_default(checked.options, options)
    options, row = checked.options, checked.row
    training = cache(lambda: shipped_training(options.data_dir))  # AdMIRe 1's, read when a fitted part first asks
    system = row.build(system_context(row, options, context.cache, context.models, checked.params, training))
    config = {"lang": options.lang, "split": options.split, "chosen_by_default": chosen,
              "system_options": system_params(row, options).to_json(checked.params)}
    return checked, system, config


def chosen_by_default(options: RunOptions, given: RunOptions) -> dict[str, str]:
    """The language and split a run chose because they were not given (said once, recorded in config.json)."""
    chosen = {**({"lang": options.lang} if given.lang is None else {}),
              **({"split": options.split} if given.split is None else {})}
    if chosen:
        from senso.core.progress import note

        note(f"{options.task}: {', '.join(f'{k} {v}' for k, v in chosen.items())} (not given: the default)")
    return chosen


def check_answers(system: str, answers: Sequence[Any], items: Sequence[Any], noun: str) -> None:
    """One answer (`noun`: rankings, answers, decisions) per item from a system, else its error."""
    if len(answers) != len(items):
        raise SensoError(f"system {system!r} returned {len(answers)} {noun} for {len(items)} items")
