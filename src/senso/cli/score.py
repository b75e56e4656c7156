"""`senso score`: a file of a system's answers (a submission) exactly as the official scorer does (the task's
`file_scoring`), or a harness's logged answers (the task's `logged_answers` system) as a run."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from senso.catalog import all_tasks, task_for
from senso.cli.app import DATA_DIR_HELP, app, out
from senso.cli.run import _print_placements, _show_result
from senso.core.errors import SensoError

LMEVAL_SAMPLES_HELP = ("lm-evaluation-harness's per-sample log of a task it logs (lm_eval --log_samples: "
                       "samples_<task>_<date>.jsonl): senso scores its choices' log-likelihoods.")


LMEVAL_RESULTS_HELP = "lm-eval's results file of the same run (results_<date>.json): version, model and model args recorded."


def _titles(tasks) -> str:
    """The families of `tasks`, as messages name them."""
    return " or ".join(dict.fromkeys(task.family.called for task in tasks))


def _file_tasks() -> list:
    return [task for task in all_tasks() if task.file_scoring is not None]


def _logged_tasks() -> list:
    return [task for task in all_tasks() if task.family.logged_answers is not None]


@app.command()
def score(
    task: str = typer.Argument(..., help=f"{' or '.join(t.name for t in _file_tasks())}; with --lmeval-samples: "
                                         f"{', '.join(t.called or t.name for t in _logged_tasks())}"),
    file: Optional[Path] = typer.Argument(None, help="A submission file (submission_EN.tsv ...)."),
    gold: Optional[Path] = typer.Option(None, "--gold", help="The organisers' targets file, e.g. a_en_dev_targets.tsv."),
    allow_partial: bool = typer.Option(False, "--allow-partial", help="Score a submission with fewer rows than the official split."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    seed: int = typer.Option(0, "--seed", help="Bootstrap seed."),
    lmeval_samples: Optional[Path] = typer.Option(None, "--lmeval-samples", help=LMEVAL_SAMPLES_HELP),
    lmeval_results: Optional[Path] = typer.Option(None, "--lmeval-results", help=LMEVAL_RESULTS_HELP),
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help=DATA_DIR_HELP),
    out_dir: Optional[Path] = typer.Option(None, "--out", help="The run folder to write (default runs/<time>-<task>-<system>/)."),
    limit: Optional[int] = typer.Option(None, "--limit", help="With --lmeval-samples: score the first N items (a log of lm_eval --limit N)."),
) -> None:
    """Score a submission file exactly as the official scorer does (its task's official metrics); or, with
    --lmeval-samples, lm-evaluation-harness's logged answers of a task: a senso run folder."""
    if lmeval_samples is not None or task_for(task).family.logged_answers is not None:
        _score_lmeval(task, lmeval_samples, lmeval_results, data_dir, out_dir, limit, seed,
                      [flag for flag, value in (("FILE", file), ("--gold", gold), ("--allow-partial", allow_partial),
                                                ("--json", as_json)) if value])
        return
    if file is None or gold is None:
        raise SensoError(f"senso score {task} needs a submission FILE and --gold TARGETS")
    for flag, value in (("--lmeval-results", lmeval_results), ("--limit", limit)):
        if value is not None:
            raise SensoError(f"{flag} is for lm-eval logs (--lmeval-samples of a {_titles(_logged_tasks())} task), not "
                             f"a {_titles(_file_tasks())} submission")
    _score_submission(task, file, gold, allow_partial, as_json, seed, data_dir, out_dir)


def _score_submission(task: str, file: Path, gold: Path, allow_partial: bool, as_json: bool, seed: int,
                      data_dir: Optional[Path], out_dir: Optional[Path]) -> None:
    """`senso score TASK FILE --gold TARGETS`: a run of the task's file-scoring system, written as any run."""
    from senso.api import Job, evaluate_many
    from senso.catalog import RunOptions
    from senso.core.records import default_run_dir

    entry = task_for(task)
    if entry.file_scoring is None:
        raise SensoError(f"senso score FILE: {task} scores no file of answers; "
                         f"{' and '.join(t.name for t in _file_tasks())} do")
    options = RunOptions(task=task, data_dir=data_dir, out=out_dir, seed=seed, no_cache=True,
                         **entry.file_scoring.options(file, gold, allow_partial))
    [result] = evaluate_many([Job(entry, options)], out=lambda plan: default_run_dir(plan.task, plan.system),
                             on_result=None if as_json else _show_result)  # --json: stdout holds the JSON alone
    if as_json:
        out.print_json(data=entry.file_scoring.to_json(result, file, gold))


def _score_lmeval(task: str, samples: Optional[Path], results: Optional[Path], data_dir: Optional[Path],
                  out_dir: Optional[Path], limit: Optional[int], seed: int, file_only: list[str]) -> None:
    """`senso score TASK --lmeval-samples FILE`: a run of the lmeval-samples system, written as any run."""
    from senso.api import Job, evaluate_many
    from senso.catalog import RunOptions
    from senso.core.records import default_run_dir
    from senso.reporting import write_report

    entry = task_for(task)
    if entry.family.logged_answers is None:
        logged = ", ".join(t.called or t.name for t in _logged_tasks())
        raise SensoError(f"--lmeval-samples is for {_titles(_logged_tasks())} tasks ({logged}), not {task}")
    if samples is None:
        raise SensoError(f"senso score {task} scores lm-eval's logged answers: give --lmeval-samples FILE")
    if file_only:
        raise SensoError(f"{', '.join(file_only)}: {_titles(_file_tasks())} submission options; leave them out with "
                         "--lmeval-samples")
    options = RunOptions(task=task, system=entry.family.logged_answers, data_dir=data_dir, out=out_dir, limit=limit, seed=seed, no_cache=True,
                         system_options={"samples": samples, **({"results": results} if results else {})})
    [result] = evaluate_many([Job(entry, options)], out=lambda plan: default_run_dir(plan.task, plan.system),
                             on_result=_show_result)
    out.print(f"report: {write_report([result.run_dir])}", soft_wrap=True)
    _print_placements([result.run_dir])
