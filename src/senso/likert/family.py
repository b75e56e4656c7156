"""The Likert family's tasks as values (`senso.core.task.Task`): ABRICOT's two tasks and any task file (a path
ending .toml), each with everything the rest of senso asks of it. The wing's modules are imported when a hook is
first called, so the table of tasks (`senso.catalog`) stays light."""

from __future__ import annotations

from typing import Any, Sequence

from senso.core.prompting import PROTOCOL_OPTIONS
from senso.core.task import (DataSet, ExportInfo, Family, FileScoring, Scope, Section, SystemEntry, Task, TaskCommand,
                             template_of)
from senso.likert.metrics import METRICS
from senso.likert.options import LoggedAnswers

FAMILY = "likert"
FILE_KIND = "likert"  # what a Likert task file says in its `kind` key (or leaves out)


def check(options: Any, system_object: Any = None) -> None:
    from senso.likert.run import check as run_check

    run_check(options, system_object)


def prepare(options: Any, context: Any) -> Any:
    from senso.likert.run import prepare as run_prepare

    return run_prepare(options, context)


def show(result: Any, by_group: bool = False) -> None:
    from senso.likert.tables import print_result

    print_result(result, by_group=by_group)


def scope(run: Any) -> Scope:
    """A Likert task's language (its task file says it) and its one split: the whole file, or its first N items
    with --limit."""
    from senso.core.records import config_option

    lang = run.results["likert_task"]["language"] or "—"
    limit = run.results.get("limit") or config_option(run.config, "limit")
    split = f"first {limit} items (--limit)" if limit else "all items (the whole file is the benchmark)"
    return Scope(lang, split, "all")


# The wing's modules a hook calls into, each imported when a hook first needs it: `_commands().fit` is
# `senso.likert.commands.fit`.
def _commands():
    from senso.likert import commands

    return commands


def _page():
    from senso.likert import page

    return page


def _published():
    from senso.likert import published

    return published


def systems() -> list[SystemEntry]:
    from senso.likert.systems.registry import DEFAULT_SYSTEM, LIKERT_SYSTEMS

    return [SystemEntry(s.name, s.description, s.params, s.name == DEFAULT_SYSTEM, s) for s in LIKERT_SYSTEMS.values()]


def catalog() -> list[tuple[str, str, str]]:
    return [("likert (abricot-*, task files)", entry.name, entry.description) for entry in systems()]


def systems_help() -> str:
    default = next(entry.name for entry in systems() if entry.default)
    return (f"Likert tasks (abricot-abs, abricot-inc, task files): {', '.join(e.name for e in systems())} "
            f"(default {default}).")


def _dataset_name(run: Any) -> str:
    return (run.results.get("likert_task") or {}).get("description") or run.task


def header(run: Any) -> list[tuple[str, str]]:
    """The protocol a run was prompted with, in its page's header."""
    from senso.core.records import config_option

    return [("protocol", str(run.results.get("protocol") or config_option(run.config, "protocol") or "—"))]


def summary_note(evaluations: Sequence[str]) -> str:
    """What to compare a supervised run's r with, when a summary holds one."""
    from senso.likert.published import COMPARE_LINE

    return COMPARE_LINE if any(e.startswith("leave-one-") for e in evaluations) else ""


LOGGED_ANSWERS = FileScoring(
    LoggedAnswers, needs=("--lmeval-samples",), noun="lm-eval log", page=True,
    options=lambda *args, **kwargs: _commands().logged_options(*args, **kwargs),
    missing="senso score {task} scores lm-eval's logged answers: give --lmeval-samples FILE",
    help="lm-evaluation-harness's logged answers of a task (--lmeval-samples)")
ABRICOT_DATA = DataSet("abricot", stats=lambda *args, **kwargs: _commands().stats(*args, **kwargs),
                       fetch=lambda *args, **kwargs: _commands().fetch(*args, **kwargs))
LIKERT = Family(FAMILY, title="Likert", listed=1, reads=PROTOCOL_OPTIONS,
                commands=lambda cli: _commands().register_commands(cli),
                catalog=catalog, systems_help=systems_help, summary_note=summary_note, data_sets=(ABRICOT_DATA,),
                scope=scope, gold_keys=("gold", "gold_mean"), calibration_of="the label distributions",
                distributions=lambda *args, **kwargs: _page().distributions(*args, **kwargs),
                evaluation=lambda run: _published().evaluation_label(run), header=header,
                placement=lambda run: _published().abricot_placement(run),
                best_published=lambda run: _published().best_published(run), scoring=LOGGED_ANSWERS,
                fit=TaskCommand(lambda *args, **kwargs: _commands().fit(*args, **kwargs)),
                overlap=TaskCommand(lambda *args, **kwargs: _commands().overlap(*args, **kwargs)))
COMMON = dict(
    family=LIKERT, kind=FAMILY, check=check, prepare=prepare, show=show, metrics=METRICS, item_key="id",
    group_keys=("domain",), systems=systems,
    page=Section(template_of("senso.likert", "_run.html.j2"),
                 lambda *args, **kwargs: _page().run_section(*args, **kwargs),
                 styles=template_of("senso.likert", "likert.css")),
    comparison=Section(template_of("senso.likert", "_compare.html.j2"),
                       lambda *args, **kwargs: _page().disagreements(*args, **kwargs)),
)
ABRICOT = ExportInfo(hub_task_type="text-classification", dataset_type="abricot",
                     dataset_name=lambda run: "ABRICOT (CALAMITA 2024)")

BUILT_IN = (
    Task("abricot-abs", description="ABRICOT abstractness (CALAMITA 2024): how abstract is the noun in this "
                                    "sentence, 1-5", export=ABRICOT, **COMMON),
    Task("abricot-inc", description="ABRICOT inclusiveness (CALAMITA 2024): how inclusive is the noun in this "
                                    "sentence, 1-5", export=ABRICOT, **COMMON),
)
TASK_FILE = Task("path/to/task.toml", description="any Likert task file: the word's rating in context on the file's "
                                                  "scale (README: task files)",
                 file_kind=FILE_KIND, called="a task file", file_default=True,
                 export=ExportInfo(dataset_name=_dataset_name), **COMMON)
TASKS = (*BUILT_IN, TASK_FILE)  # what the entry point `likert` of the group senso.families names
