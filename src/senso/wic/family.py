"""The word-in-context family's tasks as values (`senso.core.task.Task`): two usages of one word, the same
meaning or not (binary) and how related (graded). The built-in tasks are the shipped pairs task files in
`tasks/` (wic-en, wicita-binary, wicita-ranking, dwug-en); any other is a task file of kind "pairs". The wing's
modules are imported when a hook is first called, so the table of tasks stays light."""

from __future__ import annotations

from typing import Any

from senso.core.task import DataSet, ExportInfo, Family, FileScoring, Section, SystemEntry, Task, template_of
from senso.wic.metrics import METRICS, metrics_of
from senso.wic.options import AnswerFlags
from senso.wic.taskfile import FILE_KIND, shipped_task

FAMILY = "wic"
BUILTIN = ("wic-en", "wicita-binary", "wicita-ranking", "dwug-en")


def _call(module: str, name: str):
    """A function of a module of this wing, imported when first called."""
    def call(*args: Any, **kwargs: Any) -> Any:
        import importlib

        return getattr(importlib.import_module(f"senso.wic.{module}"), name)(*args, **kwargs)

    call.__name__ = name
    return call


def systems() -> list[SystemEntry]:
    from senso.wic.run import registered
    from senso.wic.systems.registry import DEFAULT_SYSTEM

    return [SystemEntry(row.name, row.description, row.params, row.name == DEFAULT_SYSTEM, row)
            for row in registered().values()]


def catalog() -> list[tuple[str, str, str]]:
    return [("word in context (wic-en, wicita-*, dwug-en, pairs files)", e.name, e.description) for e in systems()]


def systems_help() -> str:
    default = next(entry.name for entry in systems() if entry.default)
    return (f"word-in-context tasks ({', '.join(BUILTIN)}, pairs files): {', '.join(e.name for e in systems())} "
            f"(default {default}).")


def summary_name(run: Any) -> str:
    return f"{run.task} ({run.results.get('split')})"


ANSWERS = FileScoring(
    AnswerFlags, needs=("FILE",), noun="file of answers", options=_call("commands", "answers_options"),
    to_json=_call("commands", "answers_json"), page=True,
    missing="senso score {task} needs a FILE of answers (a WiC-ITA submission zip, WiC's T/F lines)",
    help="word-in-context answers as the organisers take them (WiC-ITA's zip, WiC's T/F lines)",
    file_help="A file of word-in-context answers: WiC-ITA's submission zip, a .jsonl of {id, label|score}, or one "
              "answer a line.")
WIC = Family(FAMILY, title="word-in-context", reads=("split", "gold"), commands=_call("commands", "register_commands"),
             catalog=catalog, systems_help=systems_help, gold_keys=("gold_same", "gold_score"),
             calibration_of="P(same meaning)", distributions=_call("page", "distributions"),
             evaluation=lambda run: str(run.results.get("evaluation") or "—"), summary_name=summary_name,
             placement=_call("published", "wic_placement"), best_published=_call("published", "best_published"),
             scoring=ANSWERS,
             data_sets=(DataSet("wic", stats=_call("commands", "stats"), fetch=_call("commands", "fetch")),))
EXPORT = ExportInfo(hub_task_type="text-classification", dataset_type="wic")
COMMON = dict(family=WIC, kind=FAMILY, check=_call("run", "check"), prepare=_call("run", "prepare"),
              show=_call("tables", "print_result"), item_key="id", group_keys=("langs",), systems=systems,
              export=EXPORT, page=Section(template_of("senso.wic", "_run.html.j2"), _call("page", "run_section")),
              comparison=Section(template_of("senso.wic", "_compare.html.j2"), _call("page", "disagreements")))


def _builtin(name: str) -> Task:
    task = shipped_task(name)
    return Task(name, description=task.description, metrics=metrics_of(task.metric_names),
                choices={"split": tuple(task.splits)}, **COMMON)


PAIRS_FILE = Task("path/to/word-pairs.toml", description="any pairs task file (kind = \"pairs\"): two usages of one word, "
                                                    "the same meaning or how related, binary or graded",
                  metrics=tuple(METRICS.values()), file_kind=FILE_KIND, called="a pairs task file", **COMMON)
TASKS = (*(_builtin(name) for name in BUILTIN), PAIRS_FILE)
