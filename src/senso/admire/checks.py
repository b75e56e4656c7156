"""The checks of a run of admire-b or admire-sense (the tasks with a plan of their own: `sequence/`, `sense/`),
before anything slow and before a run folder, and the system they start from."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from senso.admire.options import check_gold_file
from senso.admire.systems.registry import (AdmireSystem, check_system, chosen_row, system_context, system_params,
                                           wordnet_warnings)
from senso.admire.task import DEFAULT_LANG, DEFAULT_SPLIT, RUN_TASKS, AdmireTask, check_splits
from senso.core.errors import SensoError
from senso.core.evaluation import RunContext
from senso.core.options import RunOptions


@dataclass(frozen=True)
class Checked:
    """What the checks found: the task, the options with AdMIRe's defaults filled in, the splits, the system's
    row and its options' typed values, and warnings for the terminal and results.json."""

    task: AdmireTask
    options: RunOptions
    splits: list[str]
    row: AdmireSystem
    params: dict[str, Any]
    warnings: list[str]


def check_options(options: RunOptions, system_object: Any = None) -> Checked:
    """The AdMIRe checks, before anything slow and before a run folder: options no AdMIRe task reads, the
    language, the splits (each once; --gold for one), the caption language, and the system (registered, or
    the researcher's `system_object`): the model flags and options it reads, their values."""
    options.check_family("admire")
    check_gold_file(options)
    task = RUN_TASKS.get(options.task)
    if task is None:
        raise SensoError(f"unknown AdMIRe task {options.task!r}; choose from {', '.join(RUN_TASKS)}")
    options = replace(options, lang=options.lang or DEFAULT_LANG, split=options.split or DEFAULT_SPLIT)
    splits = check_splits(task, options.lang, options.split, options.gold)
    if options.caption_lang not in (None, *task.caption_langs):
        raise SensoError(f"--caption-lang {options.caption_lang!r}: {task.name} has "
                         f"{' or '.join(task.caption_langs)} captions")
    row = chosen_row(options, system_object, task.subtask, task.default_system)
    params = check_system(row, options)
    return Checked(task, options, splits, row, params, wordnet_warnings(row, options))


def check(options: RunOptions, system_object: Any = None) -> Checked:
    """Every option of an AdMIRe run, checked before anything slow, once."""
    options.validate()
    return check_options(options, system_object)


def start(options: RunOptions, context: RunContext) -> tuple[Checked, Any, dict[str, Any]]:
    """What an admire-b or admire-sense run starts from: the checked options, the system `options.system`
    (default: the task's) or the researcher's `context.system` built, and config.json's record of them."""
    checked = context.checked or check(options, context.system)
    chosen = chosen_by_default(checked.options, options)
    options, row = checked.options, checked.row
    system = row.build(system_context(row, options, context.cache, context.models, checked.params))
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
