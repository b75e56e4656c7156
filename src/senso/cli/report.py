"""`senso report` (a run's page, or a comparison page) and `senso export` (a Hugging Face dataset folder or
repository, a model-index block)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from senso.cli.app import app, console, out
from senso.core.errors import SensoError
from senso.core.terminal import labelled

@app.command()
def report(
    run_dirs: list[Path] = typer.Argument(..., help="A run folder (its page), or several runs of one task and split (a comparison)."),
    out_file: Optional[Path] = typer.Option(None, "-o", "--out", help="HTML file to write (default RUN_DIR/report.html; required for a comparison)."),
    no_thumbnails: bool = typer.Option(False, "--no-thumbnails", help="Show captions instead of image thumbnails (a task whose items have images)."),
) -> None:
    """A self-contained HTML page for a run, or a comparison page for several; prints its path."""
    from senso.reporting import write_report

    path = write_report(run_dirs, out=out_file, thumbnails=not no_thumbnails)
    out.print(str(path), soft_wrap=True)


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
    from senso.exporting.publish import export_runs

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
        from senso.exporting.model_index import model_index as build_index, model_index_yaml

        index, notes = build_index(run_dirs, model_name=model_name)
        sys.stdout.write(model_index_yaml(index))
        for note in notes:
            console.print(labelled("note:", "yellow", note), soft_wrap=True)
    if eval_results is not None:
        _write_eval_results(run_dirs, eval_results, benchmark, model_name)


def _write_eval_results(run_dirs: list[Path], folder: Path, benchmark: str, model_name: Optional[str]) -> None:
    """The Hub's .eval_results/<task>.yaml files of the runs, in the model folder `folder`."""
    from senso.core.output import write_text
    from senso.exporting.model_index import eval_results_files

    files, _ = eval_results_files(run_dirs, benchmark, model_name=model_name)
    for name, text in files.items():
        write_text(folder / name, text, "--eval-results")
        console.print(f"wrote {folder / name}", soft_wrap=True)
