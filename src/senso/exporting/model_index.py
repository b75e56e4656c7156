"""`senso export RUN ... --model-index`: the `model-index:` block of a model card (the YAML the Hub reads to
show evaluation results), one result per task, built and checked with huggingface_hub's own helpers
(`EvalResult`, `eval_results_to_model_index`, and `ModelCard`, which parses the block back as the Hub does).

Each result names the task, the data set (its checksum as `revision`: the sha256 of the data file the run
read), and each metric's type and value; the 95% bootstrap CI is an extra field of the metric (`ci`), which
the Hub keeps and ignores.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from senso.core.errors import SensoError
from senso.core.records import config_data_files
from senso.exporting.tables import model_or_system
from senso.core.run_folder import RunFolder
from senso.reporting.run_folder import load_run
from senso.reporting.run_page import metric_label

CI_METHOD = "95% percentile bootstrap over items"


def metric_type(run: RunFolder, name: str) -> str:
    """The Hub's name for a metric where its task declares one (`Metric.hub_type`), else senso's own name."""
    metric = run.task_def.metric(name)
    return (metric.hub_type if metric is not None else None) or name


def _config(run: RunFolder) -> str:
    """The data set's config of a run, as its task says (default: the task's name; AdMIRe: admire-a-en)."""
    config = run.task_def.export.config
    return config(run) if config is not None else run.task


def _dataset(run: RunFolder) -> dict[str, Any]:
    info = run.task_def.export
    files = config_data_files(run.config)
    name = info.dataset_name(run) if info.dataset_name is not None else run.task
    return {"dataset_type": info.dataset_type or run.task, "dataset_name": name,
            "dataset_config": _config(run), "dataset_split": run.split_key,
            "dataset_revision": f"sha256:{files[0]['sha256']}" if files and files[0].get("sha256") else None}


def eval_results(run: RunFolder) -> tuple[list[Any], list[str]]:
    """The run's metrics as huggingface_hub EvalResults, and a note for each metric left out (no value)."""
    from huggingface_hub import EvalResult

    results, notes = [], []
    for name, estimate in (run.results.get("metrics") or {}).items():
        if not isinstance(estimate, dict) or estimate.get("value") is None:
            reason = (estimate or {}).get("reason", "no value")
            notes.append(f"{run.path}: {name} is left out of the model-index: it has no value ({reason})")
            continue
        results.append(EvalResult(task_type=run.task_def.export.hub_task_type, task_name=run.task, **_dataset(run),
                                  metric_type=metric_type(run, name), metric_name=metric_label(name, run.task_def),
                                  metric_value=estimate["value"]))
    return results, notes


def _check_runs(runs: Sequence[RunFolder], model_name: str | None) -> str:
    models = {model_or_system(run) for run in runs}
    if model_name is None and len(models) > 1:
        raise SensoError(f"a model card's model-index is one model's: these runs are of {', '.join(sorted(models))}; "
                         "give the runs of one model (or name it with --model-name)")
    seen: dict[str, Path] = {}
    for run in runs:
        key = f"{_config(run)}, split {run.split_key}"
        if key in seen:
            raise SensoError(f"{run.path} and {seen[key]} are both runs of {key}: "
                             "the model-index holds one result per task; give one of them")
        seen[key] = run.path
    return model_name or models.pop()


def _with_ci(index: list[dict[str, Any]], runs: Sequence[RunFolder]) -> None:
    """The CI of each metric as an extra field, matched by the result's data set (config, split) and metric type."""
    by_config = {(_config(run), run.split_key): run for run in runs}
    for result in index[0]["results"]:
        run = by_config[(result["dataset"]["config"], result["dataset"]["split"])]
        by_type = {metric_type(run, name): e for name, e in run.results["metrics"].items()}
        for metric in result["metrics"]:
            estimate = by_type[metric["type"]]
            if estimate.get("ci_low") is not None:
                metric["ci"] = {"low": estimate["ci_low"], "high": estimate["ci_high"], "method": CI_METHOD}


def model_index(run_dirs: Sequence[str | Path], model_name: str | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """The model-index of the runs (one model; one run per task) and the notes of metrics left out."""
    from huggingface_hub.repocard_data import eval_results_to_model_index

    runs = [load_run(path) for path in run_dirs]
    if not runs:
        raise SensoError("give at least one run folder")
    name = _check_runs(runs, model_name)
    per_run = [(run, *eval_results(run)) for run in runs]
    notes = [note for _, _, run_notes in per_run for note in run_notes]
    usable = [(run, results) for run, results, _ in per_run if results]
    if not usable:
        raise SensoError("no metric of these runs has a value: there is nothing to put in a model-index")
    index = eval_results_to_model_index(name, [r for _, results in usable for r in results])
    _with_ci(index, [run for run, _ in usable])
    return index, notes


def model_index_yaml(index: list[dict[str, Any]]) -> str:
    """The block as YAML, checked by parsing it back the way the Hub does (huggingface_hub's ModelCard):
    every metric read back with its value."""
    import yaml
    from huggingface_hub import ModelCard

    text = yaml.safe_dump({"model-index": index}, sort_keys=False, allow_unicode=True)
    parsed = ModelCard(f"---\n{text}---\n").data.eval_results or []
    expected = [(m["type"], m["value"]) for result in index[0]["results"] for m in result["metrics"]]
    if [(r.metric_type, r.metric_value) for r in parsed] != expected:
        raise SensoError("the model-index block does not read back as written (huggingface_hub's ModelCard); "
                         "please report this")
    return text


# `.eval_results/*.yaml` (the Hub's newer evaluation results, beside model-index): one file per task and metric
# set, each entry one metric, built and read back with huggingface_hub's own EvalResultEntry helpers. The Hub
# requires `dataset.id` to be a Hub dataset registered as a Benchmark; ABRICOT and AdMIRe have none that senso
# knows, so the user names it (`--benchmark ORG/NAME`). `task_id` is senso's task and metric (abricot-abs/pearson,
# admire-a-en/top1), `dataset.revision` is left out (the Hub wants a git sha of the benchmark repository; the data
# file's sha256 is in `notes`, with the split, the 95% CI and senso's version).
def eval_results_files(run_dirs: Sequence[str | Path], benchmark: str,
                       model_name: str | None = None) -> tuple[dict[str, str], list[str]]:
    """{".eval_results/<config>.yaml": YAML text} for the runs (one model; one run per task), and the notes of
    metrics left out (no value). Each file is checked by parsing it back with huggingface_hub."""
    import yaml
    from huggingface_hub._eval_results import EvalResultEntry, eval_result_entries_to_yaml, parse_eval_result_entries

    if "/" not in benchmark:
        raise SensoError(f"--benchmark {benchmark!r}: give the Hub dataset the results are of, as ORG/NAME")
    runs = [load_run(path) for path in run_dirs]
    if not runs:
        raise SensoError("give at least one run folder")
    _check_runs(runs, model_name)
    files, notes = {}, []
    for run in runs:
        dataset = _dataset(run)
        entries = []
        for name, estimate in (run.results.get("metrics") or {}).items():
            if not isinstance(estimate, dict) or estimate.get("value") is None:
                notes.append(f"{run.path}: {name} is left out of .eval_results: it has no value "
                             f"({(estimate or {}).get('reason', 'no value')})")
                continue
            ci = (f", 95% CI [{estimate['ci_low']:.4f}, {estimate['ci_high']:.4f}] ({CI_METHOD})"
                  if estimate.get("ci_low") is not None else "")
            entries.append(EvalResultEntry(
                dataset_id=benchmark, task_id=f"{_config(run)}/{name}", value=estimate["value"],
                date=run.results.get("created"),
                notes=(f"senso {(run.results.get('versions') or {}).get('senso')}, system {run.system}, split "
                       f"{run.split_key}, n {run.results.get('n')}{ci}; data {dataset['dataset_revision']}")))
        if entries:
            text = yaml.safe_dump(eval_result_entries_to_yaml(entries), sort_keys=False, allow_unicode=True)
            back = parse_eval_result_entries(yaml.safe_load(text))
            if [(e.task_id, e.value) for e in back] != [(e.task_id, e.value) for e in entries]:
                raise SensoError(".eval_results does not read back as written (huggingface_hub); please report this")
            files[f".eval_results/{_config(run)}.yaml"] = text
    if not files:
        raise SensoError("no metric of these runs has a value: there is nothing to put in .eval_results")
    return files, notes
