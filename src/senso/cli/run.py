"""`senso run` and `senso showcase`: tasks through `senso.api.evaluate_many`, each run's tables (its task's
`show`), placement beside published results and, for several runs, one summary table."""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import typer

from senso import catalog
from senso.catalog import SHOWCASE, task_for, tasks_help
from senso.cli.app import DATA_DIR_HELP, LiveCommand, _parse_set, app, console, family_flags, flagged_values, out
from senso.core.errors import SensoError
from senso.core.tables import folded
from senso.core.terminal import labelled

SET_HELP = "Any other option of the system, KEY=VALUE (repeatable); `senso systems NAME` lists them."
MODEL_ARGS_HELP = ("A setting of the served (openai) model, KEY=VALUE (repeatable): scoring, top_logprobs, api_key_env, "
                   "concurrency, timeout, max_retries, backoff; a served VLM also judge_scoring, image_detail "
                   "(docs/at_scale.md).")


DISPLAY_OPTIONS = {
    "quiet": ("--quiet", "Print only each run's summary line and its run folder (warnings still on stderr)."),
    "as_json": ("--json", "Print the results (the fields of results.json; a list for several tasks) on stdout, "
                          "for scripts; progress, summary lines and notes go to stderr."),
    "by_domain": ("--by-domain", "Per-group figures too (each task's groups: a domain, a gold sentence type): as "
                                 "columns where they fit the terminal, else one table per group (the report page has "
                                 "them all)."),
}


RUN_EXAMPLES = """Examples:

  senso run abricot-abs                    # CALAMITA 0-shot, built-in model
  senso run abricot-inc --protocol paper   # the paper's 3-shot protocol
  senso run abricot-abs --system embedding-ridge  # leave-one-lemma-out
  senso run admire-a --split dev --quiet   # AdMIRe's default, one line
  senso run abricot-abs --limit 16 --json | python -m json.tool
  senso systems fitted-pipeline            # a system's options (--set)
  senso showcase                           # the main job (make run)"""


@dataclass(frozen=True)
class Display:
    """How `senso run` prints its results (DISPLAY_OPTIONS)."""

    quiet: bool = False
    as_json: bool = False
    by_domain: bool = False


def _run_parameters() -> list[inspect.Parameter]:
    """`senso run`'s options, from their one declaration each: the table's RunOptions fields (flag, help, panel,
    type, default) and the families' system options that have a flag of their own (`Family.flags`)."""
    keyword = inspect.Parameter.KEYWORD_ONLY
    help = f"One or more of {tasks_help()} (`senso tasks`); several tasks share one model load"
    params = [inspect.Parameter("tasks", keyword, annotation=list[str], default=typer.Argument(..., help=help))]
    for spec in catalog.RUN_FIELDS.values():
        option = typer.Option(spec.default, spec.flag, help=spec.help, rich_help_panel=spec.panel)
        params.append(inspect.Parameter(spec.name, keyword, annotation=spec.type, default=option))
    params += family_flags()
    params.append(inspect.Parameter("set_options", keyword, annotation=list[str],
                                    default=typer.Option([], "--set", help=SET_HELP, rich_help_panel="system")))
    params.append(inspect.Parameter("model_args", keyword, annotation=list[str], default=typer.Option(
        [], "--model-args", help=MODEL_ARGS_HELP, rich_help_panel="model")))
    for name, (flag, help) in DISPLAY_OPTIONS.items():
        params.append(inspect.Parameter(name, keyword, annotation=bool,
                                        default=typer.Option(False, flag, help=help, rich_help_panel="output")))
    return _in_panel_order(params)


def _in_panel_order(params: list[inspect.Parameter]) -> list[inspect.Parameter]:
    """`params` with the options grouped by help panel, in PANELS order, the families' panels after "protocol"
    (the tasks argument first)."""
    from senso.core.options import PANELS

    after = PANELS.index("protocol") + 1
    order = [*PANELS[:after], *dict.fromkeys(f.flags_panel for f in catalog.families() if f.flags_panel), *PANELS[after:]]

    def panel(param: inspect.Parameter) -> int:
        name = getattr(param.default, "rich_help_panel", None)
        return order.index(name) if name in order else -1

    return sorted(params, key=panel)


def _run(tasks: list[str], set_options: list[str], model_args: list[str], **values) -> None:
    """Run one or more tasks with a system; each writes its run folder."""
    from dataclasses import replace

    from senso.api import Job

    if len(set(tasks)) != len(tasks):
        raise SensoError(f"a task is named twice in {' '.join(tasks)}: name each task once")
    display = Display(**{name: values.pop(name) for name in DISPLAY_OPTIONS})
    system_options = flagged_values(values)
    flags = catalog.flag_names()
    for key, value in _parse_set(set_options).items():
        if key in system_options:
            flag = next(flag for flag, name in flags.items() if name == key)
            raise SensoError(f"--set {key} and {flag} set the same option: give one of them")
        system_options[key] = value
    options = catalog.RunOptions(task=tasks[0], system_options=system_options,
                                 model_args=_parse_set(model_args, "--model-args"),
                                 **{k: values[k] for k in catalog.RUN_FIELDS})
    parent = options.out if len(tasks) > 1 else None
    jobs = [Job(task_for(task), replace(options, task=task, out=parent / run_folder(task) if parent else options.out))
            for task in tasks]
    results = _evaluate(jobs, display)
    if display.as_json:
        data = [result.results for result in results]
        out.print_json(data=data[0] if len(data) == 1 else data)
    elif not display.quiet:
        _print_placements([result.run_dir for result in results])
        if len(results) > 1:
            _print_summary([result.run_dir for result in results], title="Summary")


def run_folder(task: str, system: str | None = None) -> str:
    """A run's folder inside a parent folder: the task (a task file: its stem), then the system if named."""
    from senso.api import run_folder_name

    return run_folder_name(task) + (f"-{system}" if system else "")


def _evaluate(jobs, display: Display) -> list:
    """The jobs through `evaluate_many`, each result printed as `display` says as it finishes."""
    from senso.api import evaluate_many
    from senso.core.records import default_run_dir

    return evaluate_many(jobs, progress=not display.quiet, out=lambda plan: default_run_dir(plan.task, plan.system),
                         on_result=functools.partial(_show_result, display=display))


def _show_result(job, result, display: Display = Display()) -> None:
    """One finished run: its warnings (stderr), then its tables, or (--quiet, --json) its summary line, and
    its run folder; with --json all of it on stderr (stdout holds the JSON alone)."""
    for warning in result.warnings:
        console.print(labelled("WARNING:", "bold red", warning), soft_wrap=True)
    if display.quiet or display.as_json:
        _print_summary_line(result.run_dir, console if display.as_json else out)
        return
    job.entry.show(result, by_group=display.by_domain)
    out.print(f"run folder: {result.run_dir}", soft_wrap=True)


def _print_summary_line(run_dir: Path, where) -> None:
    """A run in one line (`senso.reporting.summary`), its footnote if a value is undefined, and its run folder:
    three lines at most, each one fact however long (a script reads them line by line)."""
    from senso.core.tables import Footnotes, print_footnotes
    from senso.reporting.run_folder import load_run
    from senso.reporting.summary import summary_line, summary_row

    footnotes = Footnotes()
    where.print(summary_line(summary_row(load_run(run_dir)), footnotes), soft_wrap=True)
    print_footnotes(where, footnotes, soft_wrap=True)
    where.print(f"run folder: {run_dir}", soft_wrap=True)


def _print_summary(run_dirs: list[Path], title: str) -> None:
    """The runs in one table (`senso.reporting.summary`): what each number can be compared with, footnotes,
    where the folders are."""
    from senso.core.tables import Footnotes, print_footnotes
    from senso.reporting.summary import describe_runs, summary_notes, summary_rows, summary_table

    footnotes, rows = Footnotes(), summary_rows(run_dirs)
    out.print(summary_table(rows, footnotes, title=title))
    for note in summary_notes(rows):
        out.print(note)
    print_footnotes(out, footnotes)
    out.print(describe_runs(rows), style="dim")


run = app.command("run", epilog=RUN_EXAMPLES)(LiveCommand(_run, _run_parameters))
MAIN_JOB = SHOWCASE  # the main job (`senso showcase`, `make run`), from the table of tasks


@app.command("showcase")
def showcase(
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help=DATA_DIR_HELP),
    out_dir: Optional[Path] = typer.Option(None, "--out", help="Parent folder of the runs (default "
                                           "runs/<time>-showcase/)."),
    no_cache: bool = typer.Option(False, "--no-cache", help=catalog.RUN_FIELDS["no_cache"].help),
) -> None:
    """The main job (`make run`): ABRICOT's published 0-shot protocol on the built-in model, senso's supervised
    Likert system (leave-one-lemma-out) and AdMIRe's default system on EN dev, then one summary table."""
    import time

    from senso.api import Job, evaluate_many
    from senso.catalog import RunOptions

    parent = out_dir or Path("runs") / f"{time.strftime('%Y%m%d-%H%M%S')}-showcase"
    jobs = [Job(task_for(task), RunOptions(task=task, system=system, data_dir=data_dir, no_cache=no_cache,
                                             out=parent / run_folder(task, system), **options))
            for task, system, options in MAIN_JOB]  # read when called: a test may swap it

    def done(job, result) -> None:
        for warning in result.warnings:
            console.print(labelled("WARNING:", "bold red", warning), soft_wrap=True)
        console.print(f"{result.task} · {result.system}: done in {result.results['timings']['total_s']:.0f} s")

    results = evaluate_many(jobs, progress=True, on_result=done)
    _print_summary([result.run_dir for result in results], title="senso showcase")


def _print_placements(run_dirs: list[Path]) -> None:
    """Where each run stands beside the published results (ABRICOT's figures, AdMIRe's leaderboards), when it
    can be placed: each board, its rule and its sources once (short labels in the table, explained under it)."""
    from rich import box
    from rich.table import Table

    from senso.reporting.placement import placement_for
    from senso.reporting.run_folder import load_run

    for run_dir in run_dirs:
        placement = placement_for(load_run(run_dir))
        for board in placement.boards:
            table = Table(title=board.title, title_justify="left", box=box.SIMPLE_HEAD, show_edge=False,
                          pad_edge=False)
            for k, column in enumerate(board.columns):
                table.add_column(column, justify="right" if k in board.numeric else "left", overflow="fold")
            for row in board.rows:
                style = "bold" if row.is_run else ("dim" if row.is_reference else None)
                table.add_row(*(f"{c:.2f}" if isinstance(c, float) else str(c) for c in row.cells), style=style)
            out.print(folded(table))
            out.print(board.note, style="dim")
            if board.source:
                out.print(f"Sources: {board.source}", style="dim")
        for note in placement.notes:
            out.print(note, style="dim")
