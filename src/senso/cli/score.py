"""`senso score` (a submission file exactly as the official scorer does; lm-eval's logged answers as a run) and
`senso submission pack`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from senso.catalog import all_tasks, task_for
from senso.cli.app import DATA_DIR_HELP, app, out
from senso.cli.run import _print_placements, _show_result
from senso.core.errors import SensoError

submission_app = typer.Typer(no_args_is_help=True, help="Official AdMIRe submission files.")
app.add_typer(submission_app, name="submission")

ADMIRE_TASK_HELP = "admire-a or admire-b"
SUBMISSION_SYSTEM = "submission"  # the AdMIRe system that reads a submission file


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
    out_dir: Optional[Path] = typer.Option(None, "--out", help="The run folder to write (default runs/<time>-<task>-<system>/)."),
    limit: Optional[int] = typer.Option(None, "--limit", help="With --lmeval-samples: score the first N items (a log of lm_eval --limit N)."),
) -> None:
    """Score a submission file exactly as the official scorer does (Top-1, DCG; B: image and sentence-type accuracy);
    or, with --lmeval-samples, lm-evaluation-harness's logged answers of a Likert task: a senso run folder."""
    if lmeval_samples is not None or task_for(task).logged_answers is not None:
        _score_lmeval(task, lmeval_samples, lmeval_results, data_dir, out_dir, limit, seed,
                      [flag for flag, value in (("FILE", file), ("--gold", gold), ("--allow-partial", allow_partial),
                                                ("--json", as_json)) if value])
        return
    if file is None or gold is None:
        raise SensoError(f"senso score {task} needs a submission FILE and --gold TARGETS")
    for flag, value in (("--lmeval-results", lmeval_results), ("--limit", limit)):
        if value is not None:
            raise SensoError(f"{flag} is for lm-eval logs (--lmeval-samples of a Likert task), not an AdMIRe submission")
    _score_submission(task, file, gold, allow_partial, as_json, seed, data_dir, out_dir)


def _score_submission(task: str, file: Path, gold: Path, allow_partial: bool, as_json: bool, seed: int,
                      data_dir: Optional[Path], out_dir: Optional[Path]) -> None:
    """`senso score TASK FILE --gold TARGETS`: a run of the submission system on the targets' split, written as
    any run (the language and split are the targets file's, as the organisers name it: a_en_dev_targets.tsv)."""
    from senso.api import Job, evaluate_many
    from senso.catalog import RunOptions
    from senso.core.records import default_run_dir
    from senso.admire.task import parse_targets_name

    parsed = parse_targets_name(gold.name)
    if parsed is None:
        raise SensoError(f"--gold {gold}: the language and split are read from the organisers' name of the targets "
                         "file (<a|b>_<lang>_<split>_targets.tsv, e.g. a_en_dev_targets.tsv); rename it so")
    _, lang, split = parsed
    options = RunOptions(task=task, system=SUBMISSION_SYSTEM, data_dir=data_dir, out=out_dir, seed=seed, lang=lang,
                         split=split, gold=gold, no_cache=True,
                         system_options={"submission": file, "allow_partial": allow_partial})
    [result] = evaluate_many([Job(task_for(task), options)], out=lambda plan: default_run_dir(plan.task, plan.system),
                             on_result=None if as_json else _show_result)  # --json: stdout holds the JSON alone
    if as_json:
        out.print_json(data=submission_json(result, file, gold))


def submission_json(result: Any, file: Path, gold: Path) -> dict[str, Any]:
    """`senso score --json`: the submission's metrics and items, and the run folder they were written to."""
    n_expected = result.record.extra.get("n_official")
    return {"task": result.task, "submission": str(file), "gold": str(gold), "n": result.n, "n_expected": n_expected,
            "partial": result.n != n_expected, "metrics": {k: v.to_json() for k, v in result.metrics.items()},
            "metrics_by_group": {g: {k: v.to_json() for k, v in ms.items()} for g, ms in result.metrics_by_group.items()},
            "per_item": [sample.to_json() for sample in result.samples], "notes": result.notes,
            "warnings": list(result.warnings), "run_dir": str(result.run_dir)}


def _score_lmeval(task: str, samples: Optional[Path], results: Optional[Path], data_dir: Optional[Path],
                  out_dir: Optional[Path], limit: Optional[int], seed: int, admire_only: list[str]) -> None:
    """`senso score TASK --lmeval-samples FILE`: a run of the lmeval-samples system, written as any run."""
    from senso.api import Job, evaluate_many
    from senso.catalog import RunOptions
    from senso.core.records import default_run_dir
    from senso.reporting import write_report

    entry = task_for(task)
    if entry.logged_answers is None:
        logged = ", ".join(t.called or t.name for t in all_tasks() if t.logged_answers is not None)
        raise SensoError(f"--lmeval-samples is for Likert tasks ({logged}), not {task}")
    if samples is None:
        raise SensoError(f"senso score {task} scores lm-eval's logged answers: give --lmeval-samples FILE")
    if admire_only:
        raise SensoError(f"{', '.join(admire_only)}: AdMIRe submission options; leave them out with --lmeval-samples")
    options = RunOptions(task=task, system=entry.logged_answers, data_dir=data_dir, out=out_dir, limit=limit, seed=seed, no_cache=True,
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
