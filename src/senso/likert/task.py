"""Likert tasks: prompts, gold labels and few-shot exemplars for any task file, ABRICOT's exactly as published.

A task is a TOML file (`senso.likert.taskfile`); `abricot-abs` and `abricot-inc` are two built-in ones
(`senso/likert/tasks/`) that reproduce the CALAMITA prompts byte for byte. As in lm-evaluation-harness
multiple choice, the continuations `" lo"` ... `" hi"` are scored after the prompt; the few-shot protocol
(ABRICOT: `paper`) prepends solved exemplars of other groups.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from senso.core.errors import SensoError
from senso.core.prompting import (
    DEFAULT_SHOTS, ChoicePrompt, exemplar_positions, few_shot, shots_of, solved,
)
from senso.likert.data import ABRICOT_RELATIVE, AbricotItem, locate_abricot
from senso.likert.items import LikertItem
from senso.likert.taskfile import BUILTIN_DIR, TEMPLATE_FIELDS, LikertTask, load_task_file
# A LikertPrompt built without a task (backend tests) answers on a 1-5 scale; every task passes its own.
DEFAULT_CHOICES = ("1", "2", "3", "4", "5")
PLACEHOLDER = re.compile(r"\{(" + "|".join(TEMPLATE_FIELDS) + r")\}")  # {word}, {text}: what a template names

# Data files of built-in tasks that senso can download (pinned by checksum) when the data folder lacks them.
DATA_LOCATORS = {ABRICOT_RELATIVE.as_posix(): locate_abricot}


def _builtin_tasks() -> dict[str, LikertTask]:
    tasks = {}
    for path in sorted(BUILTIN_DIR.glob("*.toml")):
        task = dataclasses.replace(load_task_file(path, builtin=True), locators=DATA_LOCATORS)
        tasks[task.name] = task
    return tasks


TASKS: dict[str, LikertTask] = _builtin_tasks()


def get_task(name: str | Path | LikertTask) -> LikertTask:
    """A built-in task by name, or a task file by path (ending .toml)."""
    if isinstance(name, LikertTask):
        return name
    if str(name) in TASKS:
        return TASKS[str(name)]
    if str(name).endswith(".toml"):
        return load_task_file(name)
    raise SensoError(f"unknown Likert task {str(name)!r}; choose from {', '.join(TASKS)}, or give a task file "
                     "(path/to/task.toml)")


def gold_label(mean: float) -> int:
    """ABRICOT's gold label of a human mean in [0, 1], exactly as the official harness: min(round(5*m), 4) + 1
    (the built-in tasks' "bins" rule; Python's round, half to even: 0.5 -> round(2.5) = 2 -> label 3)."""
    return TASKS["abricot-abs"].gold_label(mean)


def as_likert_item(item: LikertItem | AbricotItem, task: LikertTask) -> LikertItem:
    """A LikertItem; a row of ABRICOT's own file (`load_abricot`) is read through the task's [columns]."""
    if isinstance(item, LikertItem):
        return item
    row = {**dataclasses.asdict(item), "ID": item.id}
    value = {f: row.get(task.columns[f]) for f in ("id", "text", "word", "gold", "group", "domain")}
    return LikertItem(id=str(value["id"]), text=value["text"], word=value["word"], begin=item.begin, end=item.end,
                      gold=value["gold"], group=value["group"] if value["group"] is not None else item.id,
                      domain=value["domain"] or "")


def as_likert_items(items: Sequence[LikertItem | AbricotItem], task: LikertTask) -> list[LikertItem]:
    return [as_likert_item(item, task) for item in items]


def require_gold(item: LikertItem) -> float:
    if item.gold is None:
        raise SensoError(f"item {item.id} has no gold value")
    return item.gold


def render_prompt(item: LikertItem | AbricotItem, task: LikertTask) -> str:
    """The task's prompt for one item (ABRICOT: the CALAMITA prompt byte for byte, ending with a newline).

    `{word}` and `{text}` are replaced in one pass over the template, so a value is never read as a template:
    a sentence holding "{word}" (or a word "{text}") stays as written; any other `{...}` is left as it is."""
    item = as_likert_item(item, task)
    values = {"word": item.word, "text": item.text}
    return PLACEHOLDER.sub(lambda match: values[match.group(1)], task.template)


def select_exemplars(items: Sequence[LikertItem | AbricotItem], item: LikertItem | AbricotItem, task: LikertTask,
                     shots: int = DEFAULT_SHOTS) -> list[LikertItem]:
    """Exemplars for `item`: items of other groups, stably sorted by raw gold, at `exemplar_positions`."""
    item = as_likert_item(item, task)
    pool = [other for other in as_likert_items(items, task) if other.group != item.group]
    pool.sort(key=require_gold)
    return [pool[i] for i in exemplar_positions(len(pool), shots)]


def render_exemplar(item: LikertItem, task: LikertTask) -> str:
    return solved(render_prompt(item, task), str(task.gold_label(require_gold(item))))


@dataclass(frozen=True)
class LikertPrompt(ChoicePrompt):
    """What a Likert scorer sees for one item (`core.prompting.ChoicePrompt`): its choices are the task's labels
    as text (a prompt built without a task, as in backend tests, answers on a 1-5 scale)."""

    choices: tuple[str, ...] = DEFAULT_CHOICES

    @property
    def labels(self) -> tuple[int, ...]:
        return tuple(int(c) for c in self.choices)


def build_prompts(items: Sequence[LikertItem | AbricotItem], task: LikertTask, protocol: str | None = None,
                  shots: int | None = None, pool: Sequence[LikertItem | AbricotItem] | None = None) -> list[LikertPrompt]:
    """One LikertPrompt per item under `protocol` (zero-shot, the default; few-shot: `shots` exemplars,
    default 3). ABRICOT names them calamita and paper. Exemplars come from `pool` (default: `items`), always
    from groups other than the item's."""
    kind, _ = task.protocol(protocol)
    shots = shots_of(kind, shots)
    items = as_likert_items(items, task)
    pool = items if pool is None else as_likert_items(pool, task)
    prompts = []
    for item in items:
        prompt = render_prompt(item, task)
        if shots == 0:
            prompts.append(LikertPrompt(item.id, prompt, choices=task.choices))
            continue
        exemplars = select_exemplars(pool, item, task, shots)
        prefix = few_shot([render_exemplar(ex, task) for ex in exemplars])
        prompts.append(LikertPrompt(item.id, prefix + prompt, shared_prefix=prefix,
                                    exemplar_ids=tuple(ex.id for ex in exemplars), choices=task.choices))
    return prompts


@dataclass
class LikertPrediction:
    """One Likert answer: a label on the task's scale, continuous score, and the choices' log-probs when an LM
    produced it. `label` and `expected` are None only for an unparseable generated answer (`likert-generate`)."""

    item_id: str
    label: int | None
    expected: float | None
    logprobs: list[float] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


