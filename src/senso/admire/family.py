"""The AdMIRe family's tasks as values (`senso.core.task.Task`): Subtask A (rank images), Subtask B (complete a
sequence) and the sense classification alone, each with everything the rest of senso asks of it. The wing's
modules are imported when a hook is first called, so the table of tasks (`senso.catalog`) stays light."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from senso.admire.metrics import METRICS
from senso.admire.options import AdmireOptions, SubmissionFlags
from senso.admire.task import (OFFICIAL_METRICS, RANKING_FILE_KIND, SPLITS, SUBTASK_B_LANGS, TASK_NAMES,
                               shipped_languages)
from senso.core.errors import SensoError
from senso.core.task import (DataSet, ExportInfo, Family, FileScoring, Scope, Section, SystemEntry, Task, TaskCommand,
                             template_of)

FAMILY = "admire"
A, B, SENSE = TASK_NAMES["a"], TASK_NAMES["b"], TASK_NAMES["sense"]
DATASET = ExportInfo(hub_task_type="zero-shot-image-classification", dataset_type="admire",
                     dataset_name=lambda run: "AdMIRe (SemEval-2025 Task 1)", config=lambda run: f"{run.task}-{run.lang}")


# The wing's modules a hook calls into, each imported when a hook first needs it: `_commands().fit` is
# `senso.admire.commands.fit`.
def _commands():
    from senso.admire import commands

    return commands


def _page():
    from senso.admire import page

    return page


def _published():
    from senso.admire import published

    return published


def _tables():
    from senso.admire import tables

    return tables


def _ranking():
    from senso.admire.ranking import run

    return run


def show(*args: Any, **kwargs: Any) -> None:
    _tables().print_result(*args, **kwargs)


def compare(*args: Any, **kwargs: Any) -> Any:
    """`senso compare` of two runs or submission files, typed."""
    from senso.admire.paired import compare as paired

    return paired(*args, **kwargs)


def system_catalog() -> list[tuple[str, str, str]]:
    from senso.admire.systems.registry import system_catalog as rows

    return rows()


def part_users(name: str) -> Any:
    """What a system part is and which systems use it (`senso systems PART`)."""
    from senso.admire.systems.registry import part_users as users

    return users(name)


def check(options: Any, system_object: Any = None) -> Any:
    """admire-b's and admire-sense's checks, given their Task (what the plan reads of it)."""
    from senso.admire.checks import check as plan_check

    return plan_check(_task(options), options, system_object)


def prepare_sequence(options: Any, context: Any) -> Any:
    from senso.admire.sequence.run import prepare

    return prepare(_task(options), options, context)


def prepare_sense(options: Any, context: Any) -> Any:
    from senso.admire.sense.run import prepare

    return prepare(_task(options), options, context)


def _task(options: Any) -> Task:
    """The Task a plan of its own (admire-b: `sequence/`, admire-sense: `sense/`) is run for."""
    return next(task for task in BUILT_IN if task.name == options.task)


def scope(run: Any) -> Scope:
    """The language and split the run recorded (its options when results.json predates them)."""
    from senso.core.records import config_option

    lang = run.results.get("lang") or config_option(run.config, "lang") or "?"
    split = run.results.get("split") or config_option(run.config, "split") or "?"
    return Scope(str(lang), str(split), str(split))


def _systems(subtask: str, default: str | None = None):
    """A task's registered systems, its `default` marked (admire-a: the one its shipped task file names)."""
    def systems() -> list[SystemEntry]:
        from senso.admire.rankfile import shipped_task
        from senso.admire.systems.registry import SYSTEMS

        chosen = default or str(shipped_task(TASK_NAMES["a"], "en").default_system)
        return [SystemEntry(r.name, r.summary, r.params, r.name == chosen, r) for r in SYSTEMS[subtask].values()]

    return systems


def systems_help() -> str:
    tasks = ". ".join(f"{task.name}: {', '.join(e.name for e in task.systems())}" for task in BUILT_IN)
    return f"{tasks} (the classifier --sense names)."


def check_name(name: str) -> None:
    """A task name of AdMIRe's form (admire-...) that is none of its tasks: AdMIRe's own error, listing them."""
    if name.startswith("admire-"):
        raise SensoError(f"unknown AdMIRe task {name!r}; choose from {', '.join(t.name for t in BUILT_IN)}")


def flags() -> Any:
    """The system parts' options with a `senso run` flag of their own (`--sense`, `--meaning` ...)."""
    from senso.admire.systems.parts import FLAGGED

    return FLAGGED


ALLOW_PARTIAL_IN_RUN = (
    "--allow-partial is an AdMIRe option of `senso score`, `senso submission pack` and `senso leaderboard` (which "
    "refuse a partial file without it); `senso run` does not use it: a run on part of a split (--limit, or a data "
    "file shorter than the official split) is scored anyway and marked PARTIAL. Leave it out")
ADMIRE_DATA = DataSet("admire", stats=lambda *args, **kwargs: _commands().stats(*args, **kwargs),
                      fetch=lambda *args, **kwargs: _commands().fetch(*args, **kwargs))
SUBMISSIONS = FileScoring(
    SubmissionFlags, needs=("FILE", "--gold"), noun="submission", tasks=(A, B),
    missing="senso score {task} needs a submission FILE and --gold TARGETS",
    help="a submission file exactly as the official scorer does (its task's official metrics)",
    file_help="A submission file (submission_EN.tsv ...).",
    options=lambda *args, **kwargs: _commands().submission_options(*args, **kwargs),
    to_json=lambda *args, **kwargs: _commands().submission_json(*args, **kwargs))
ADMIRE = Family(FAMILY, title="AdMIRe", listed=2, options=AdmireOptions, reads=("lang", "split", "gold"), flags=flags,
                flags_panel="AdMIRe system parts", commands=lambda cli: _commands().register_commands(cli),
                run_refuses={"--allow-partial": ALLOW_PARTIAL_IN_RUN}, check_name=check_name,
                catalog=system_catalog, part_users=part_users,
                systems_help=systems_help, data_sets=(ADMIRE_DATA,), scope=scope,
                gold_keys=("gold_order", "sentence_type"), calibration_of="P(idiomatic)",
                distributions=lambda *args, **kwargs: _page().distributions(*args, **kwargs),
                evaluation=lambda run: _published().admire_evaluation(run),
                summary_name=lambda run: f"{run.task} ({run.results.get('lang')} {run.results.get('split')})",
                header=lambda run: [("track", run.results.get("track") or "—")],
                placement=lambda run: _published().admire_placement(run),
                best_published=lambda run: _published().best_published(run),
                scoring=SUBMISSIONS,
                fit=TaskCommand(lambda *args, **kwargs: _commands().fit(*args, **kwargs), tasks=(A,)),
                overlap=TaskCommand(lambda *args, **kwargs: _commands().overlap(*args, **kwargs), tasks=(A, B)))
COMMON = dict(family=ADMIRE, check=check, show=show, item_key="compound",
              group_keys=("sentence_type",), export=DATASET)
STYLES = template_of("senso.admire", "admire.css")  # its sections' items: sentences, images ranked
# admire-a and any ranking task file: one engine
RANKING = dict(check=lambda *args, **kwargs: _ranking().check(*args, **kwargs),
               prepare=lambda *args, **kwargs: _ranking().prepare(*args, **kwargs), show=show)

BUILT_IN = (
    Task(A, description="AdMIRe Subtask A (SemEval-2025 Task 1): rank 5 images/captions by how well they show the "
                        "compound's sense in the sentence", kind=A,
         metrics=(METRICS["top1"], METRICS["dcg"], METRICS["official_name_corr"]), systems=_systems("a"),
         choices={"lang": shipped_languages(A), "split": SPLITS},
         page=Section(template_of("senso.admire", "_run_a.html.j2"),
                      lambda *args, **kwargs: _page().run_section_a(*args, **kwargs), styles=STYLES),
         comparison=Section(template_of("senso.admire", "_compare_a.html.j2"),
                            lambda *args, **kwargs: _page().disagreements_a(*args, **kwargs),
                            helpers=lambda: {"caption_preview": _page().caption_preview}, styles=STYLES),
         compare=compare, **{**COMMON, **RANKING}),
    Task(B, description="AdMIRe Subtask B: complete an image sequence, and say whether the compound is used "
                        "literally or idiomatically", kind=B,
         metrics=tuple(METRICS[name] for name in OFFICIAL_METRICS["b"]), systems=_systems("b", default="random"),
         choices={"lang": SUBTASK_B_LANGS, "split": SPLITS},
         prepare=prepare_sequence,
         page=Section(template_of("senso.admire", "_run_b.html.j2"),
                      lambda *args, **kwargs: _page().run_section_b(*args, **kwargs), styles=STYLES),
         comparison=Section(template_of("senso.admire", "_compare_b.html.j2"),
                            lambda *args, **kwargs: _page().disagreements_b(*args, **kwargs), styles=STYLES),
         compare=compare, **COMMON),
    # The sense classifier alone, scored on Subtask A's gold sentence types (its languages; no leaderboard, no
    # submission file).
    Task(SENSE, description="AdMIRe sense classification alone: is the compound literal or idiomatic in this "
                            "sentence", kind=SENSE, metrics=(METRICS["sense_accuracy"],),
         systems=_systems("sense", default="sense-classifier"),
         choices={"lang": shipped_languages(A), "split": SPLITS}, prepare=prepare_sense,
         page=Section(template_of("senso.admire", "_run_sense.html.j2"),
                      lambda *args, **kwargs: _page().run_section_sense(*args, **kwargs), styles=STYLES),
         **{**COMMON, "export": replace(DATASET, hub_task_type="text-classification")}),
)
RANKING_FILE = Task(
    "path/to/ranking.toml", description="any ranking task file (kind = \"ranking\"): rank 5 images or captions for an "
                                        "expression in a sentence, in any language",
    kind=A, file_kind=RANKING_FILE_KIND, called="a ranking task file",
    metrics=BUILT_IN[0].metrics, page=BUILT_IN[0].page, comparison=BUILT_IN[0].comparison,
    **{**COMMON, "item_key": ("data_file", "data_row"), "group_keys": ("sentence_type", "lang"), **RANKING})
TASKS = (*BUILT_IN, RANKING_FILE)  # what the entry point `admire` of the group senso.families names
