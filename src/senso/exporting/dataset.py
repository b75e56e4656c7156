"""`senso export RUN ... --to DIR`: run folders as a folder that `datasets.load_dataset(DIR, CONFIG)` reads.

Layout (the dataset card's YAML `configs:` block names every file):
- `data/<task>.parquet`  the per-item records of every run of that task (columns `run`, `task`, `system`,
                         `model`, `split`, `lang`, then the run's samples.jsonl fields); config `<task>`
- `data/results.parquet` one row per run, metric and group: value, ci_low, ci_high (or the reason it has no
                         value), n, senso version, created, command; config `results`
- `README.md`            the dataset card: the tasks, the models and each run's senso version and command
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from senso.core.errors import SensoError
from senso.core.output import atomic_file, check_output_folder, write_text
from senso.core.records import write_parquet
from senso.core.version import __version__
from senso.exporting.tables import (RESULTS_CONFIG, config_name, model_of, model_or_system, result_rows, run_labels,
                                 sample_rows)
from senso.core.run_folder import RunFolder
from senso.reporting.run_folder import load_run

SPLIT = "latest"  # every config's one split (as lm-evaluation-harness names its latest results on the Hub)
DATA_FOLDER = "data"
RESULTS_TEXT = "one row per run, metric and group (value, ci_low, ci_high: 95% bootstrap CI)"
RECORDS_TEXT = "the per-item records of every run of this task (column `run`)"


@dataclass
class DatasetExport:
    """What an export holds: its tables (config -> rows) and the runs, as the card describes them."""

    runs: list[RunFolder]
    labels: list[str]
    tables: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @property
    def configs(self) -> list[str]:
        return list(self.tables)


def build_export(run_dirs: Sequence[str | Path]) -> DatasetExport:
    """Every run folder read (errors name the folder) and its rows put in its task's table and the results'."""
    if not run_dirs:
        raise SensoError("give at least one run folder to export")
    runs = [load_run(path) for path in run_dirs]
    seen: dict[Path, Path] = {}
    for run, path in zip(runs, run_dirs):
        key = run.path.resolve()
        if key in seen:
            raise SensoError(f"{path}: the run folder is given twice; give each run once")
        seen[key] = Path(path)
    export = DatasetExport(runs=runs, labels=run_labels(runs))
    for run, label in zip(runs, export.labels):
        export.tables.setdefault(config_name(run), []).extend(sample_rows(run, label))
    export.tables[RESULTS_CONFIG] = [row for run, label in zip(runs, export.labels) for row in result_rows(run, label)]
    return export


def data_path(config: str) -> str:
    return f"{DATA_FOLDER}/{config}.parquet"


def _cell(value: Any) -> str:
    return "—" if value in (None, "") else str(value).replace("|", "\\|").replace("\n", " ")


def card_text(export: DatasetExport) -> str:
    """The dataset card (README.md): YAML metadata with the `configs:` block, then what the runs are."""
    from huggingface_hub import DatasetCard, DatasetCardData

    tasks = sorted({run.task for run in export.runs})
    models = sorted({model_or_system(run) for run in export.runs})
    data = DatasetCardData(
        pretty_name=f"senso results: {', '.join(tasks)}", tags=["senso", "evaluation", *tasks],
        configs=[{"config_name": c, "data_files": [{"split": SPLIT, "path": data_path(c)}]} for c in export.configs])
    first = next(c for c in export.configs if c != RESULTS_CONFIG)
    rows = [f"| {_cell(label)} | {_cell(run.task)} | {_cell(run.system)} | {_cell(model_of(run))} | "
            f"{_cell(run.results.get('n'))} | {_cell((run.results.get('versions') or {}).get('senso'))} | "
            f"{_cell(run.results.get('created'))} | `{_cell(run.results.get('command'))}` |"
            for run, label in zip(export.runs, export.labels)]
    body = "\n".join([
        f"# senso results: {', '.join(tasks)}", "",
        f"Evaluation results written by senso {__version__} (`senso export`) from "
        f"{len(export.runs)} run folder(s). Tasks: {', '.join(tasks)}. Models: {', '.join(models)}.", "",
        "```python", "from datasets import load_dataset", "",
        f'records = load_dataset("<this folder or ORG/NAME>", "{first}", split="{SPLIT}")  # one row per item and run',
        f'results = load_dataset("<this folder or ORG/NAME>", "{RESULTS_CONFIG}", split="{SPLIT}")  # one row per '
        "run, metric and group", "```", "",
        "## Configs", "",
        *(f"- `{c}`: {RESULTS_TEXT if c == RESULTS_CONFIG else RECORDS_TEXT}" for c in export.configs), "",
        "## Runs", "",
        "| run | task | system | model | n | senso version | created | command |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |", *rows, ""])
    return str(DatasetCard(f"---\n{data.to_yaml()}\n---\n\n{body}"))


def check_target(folder: str | Path, flag: str = "--to") -> Path:
    """The export's folder: new or empty (an export never mixes with other files), writable; checked first."""
    folder = Path(folder)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        what = "a file" if not folder.is_dir() else "not empty"
        raise SensoError(f"{flag} {folder} is {what}: give a new or empty folder for the export")
    check_output_folder(folder, flag)
    return folder


def write_export(export: DatasetExport, folder: str | Path, flag: str = "--to") -> Path:
    """The tables as Parquet and the dataset card, in `folder` (new or empty)."""
    folder = check_target(folder, flag)
    for config, rows in export.tables.items():
        with atomic_file(folder / data_path(config), flag, binary=True) as fh:
            write_parquet(rows, fh)
    write_text(folder / "README.md", card_text(export), flag)
    return folder
