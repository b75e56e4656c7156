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


def _call(module: str, name: str):
    """A function of a module of this wing, imported when first called."""
    def call(*args: Any, **kwargs: Any) -> Any:
        import importlib

        return getattr(importlib.import_module(f"senso.admire.{module}"), name)(*args, **kwargs)

    call.__name__ = name
    return call


def scope(run: Any) -> Scope:
    """The language and split the run recorded (its options when results.json predates them)."""
    from senso.core.records import config_option

    lang = run.results.get("lang") or config_option(run.config, "lang") or "?"
    split = run.results.get("split") or config_option(run.config, "split") or "?"
    return Scope(str(lang), str(split), str(split))


def _own(module: str, name: str):
    """A hook of a task with a plan of its own (admire-b: `sequence/`, admire-sense: `sense/`), given the task's
    `Task` below (what the plan reads of it) before the hook's arguments."""
    hook = _call(module, name)

    def call(options: Any, *args: Any) -> Any:
        return hook(next(task for task in TASKS if task.name == options.task), options, *args)

    call.__name__ = name
    return call


def _systems(subtask: str, default: str | None = None):
    """A task's registered systems, its `default` marked (admire-a: the one its shipped task file names)."""
    def systems() -> list[SystemEntry]:
        from senso.admire.rankfile import shipped_task
        from senso.admire.systems.registry import SYSTEMS

        chosen = default or str(shipped_task(TASK_NAMES["a"], "en").default_system)
        return [SystemEntry(r.name, r.summary, r.params, r.name == chosen, r) for r in SYSTEMS[subtask].values()]

    return systems


def systems_help() -> str:
    tasks = ". ".join(f"{task.name}: {', '.join(e.name for e in task.systems())}" for task in TASKS)
    return f"{tasks} (the classifier --sense names)."


def check_name(name: str) -> None:
    """A task name of AdMIRe's form (admire-...) that is none of its tasks: AdMIRe's own error, listing them."""
    if name.startswith("admire-"):
        raise SensoError(f"unknown AdMIRe task {name!r}; choose from {', '.join(t.name for t in TASKS)}")


def flags() -> Any:
    """The system parts' options with a `senso run` flag of their own (`--sense`, `--meaning` ...)."""
    from senso.admire.systems.parts import FLAGGED

    return FLAGGED


ALLOW_PARTIAL_IN_RUN = (
    "--allow-partial is an AdMIRe option of `senso score`, `senso submission pack` and `senso leaderboard` (which "
    "refuse a partial file without it); `senso run` does not use it: a run on part of a split (--limit, or a data "
    "file shorter than the official split) is scored anyway and marked PARTIAL. Leave it out")
SUBMISSIONS = FileScoring(
    SubmissionFlags, needs=("FILE", "--gold"), noun="submission", tasks=(A, B),
    missing="senso score {task} needs a submission FILE and --gold TARGETS",
    help="a submission file exactly as the official scorer does (its task's official metrics)",
    file_help="A submission file (submission_EN.tsv ...).", options=_call("commands", "submission_options"),
    to_json=_call("commands", "submission_json"))
ADMIRE = Family(FAMILY, title="AdMIRe", options=AdmireOptions, reads=("lang", "split", "gold"), flags=flags,
                flags_panel="AdMIRe system parts", commands=_call("commands", "register_commands"),
                run_refuses={"--allow-partial": ALLOW_PARTIAL_IN_RUN}, check_name=check_name,
                catalog=_call("systems.registry", "system_catalog"),
                part_users=_call("systems.registry", "part_users"), systems_help=systems_help,
                data_sets=(DataSet("admire", stats=_call("commands", "stats"), fetch=_call("commands", "fetch")),),
                scope=scope, gold_keys=("gold_order", "sentence_type"), calibration_of="P(idiomatic)",
                distributions=_call("page", "distributions"), evaluation=_call("published", "admire_evaluation"),
                summary_name=lambda run: f"{run.task} ({run.results.get('lang')} {run.results.get('split')})",
                header=lambda run: [("track", run.results.get("track") or "—")],
                placement=_call("published", "admire_placement"), best_published=_call("published", "best_published"),
                scoring=SUBMISSIONS, fit=TaskCommand(_call("commands", "fit"), tasks=(A,)),
                overlap=TaskCommand(_call("commands", "overlap"), tasks=(A, B)))
COMMON = dict(family=ADMIRE, check=_own("checks", "check"), show=_call("tables", "print_result"), item_key="compound",
              group_keys=("sentence_type",), export=DATASET)
COMPARE = _call("paired", "compare")  # `senso compare` of two runs or submission files, typed
RANKING = dict(check=_call("ranking.run", "check"), prepare=_call("ranking.run", "prepare"),
               show=_call("tables", "print_result"))  # admire-a and any ranking task file: one engine

TASKS = (
    Task(A, description="AdMIRe Subtask A (SemEval-2025 Task 1): rank 5 images/captions by how well they show the "
                        "compound's sense in the sentence", kind=A,
         metrics=(METRICS["top1"], METRICS["dcg"], METRICS["official_name_corr"]), systems=_systems("a"),
         choices={"lang": shipped_languages(A), "split": SPLITS},
         page=Section(template_of("senso.admire", "_run_a.html.j2"), _call("page", "run_section_a")),
         comparison=Section(template_of("senso.admire", "_compare_a.html.j2"), _call("page", "disagreements_a"),
                            helpers=lambda: {"caption_preview": _call("page", "caption_preview")}),
         compare=COMPARE, **{**COMMON, **RANKING}),
    Task(B, description="AdMIRe Subtask B: complete an image sequence, and say whether the compound is used "
                        "literally or idiomatically", kind=B,
         metrics=tuple(METRICS[name] for name in OFFICIAL_METRICS["b"]), systems=_systems("b", default="random"),
         choices={"lang": SUBTASK_B_LANGS, "split": SPLITS},
         prepare=_own("sequence.run", "prepare"),
         page=Section(template_of("senso.admire", "_run_b.html.j2"), _call("page", "run_section_b")),
         comparison=Section(template_of("senso.admire", "_compare_b.html.j2"), _call("page", "disagreements_b")),
         compare=COMPARE, **COMMON),
    # The sense classifier alone, scored on Subtask A's gold sentence types (its languages; no leaderboard, no
    # submission file).
    Task(SENSE, description="AdMIRe sense classification alone: is the compound literal or idiomatic in this "
                            "sentence", kind=SENSE, metrics=(METRICS["sense_accuracy"],),
         systems=_systems("sense", default="sense-classifier"),
         choices={"lang": shipped_languages(A), "split": SPLITS}, prepare=_own("sense.run", "prepare"),
         page=Section(template_of("senso.admire", "_run_sense.html.j2"), _call("page", "run_section_sense")),
         **{**COMMON, "export": replace(DATASET, hub_task_type="text-classification")}),
)
RANKING_FILE = Task(
    "path/to/ranking.toml", description="any ranking task file (kind = \"ranking\"): rank 5 images or captions for an "
                                        "expression in a sentence, in any language",
    kind=A, file_kind=RANKING_FILE_KIND, called="a ranking task file",
    metrics=TASKS[0].metrics, page=TASKS[0].page, comparison=TASKS[0].comparison,
    **{**COMMON, "item_key": ("data_file", "data_row"), "group_keys": ("sentence_type", "lang"), **RANKING})
