"""A finished run folder as pages, comparisons and exports read it (results, samples, config, a header), and
the data files a run recorded, found again wherever they are now. `RunFolder.task_def` is the run's task
(`senso.core.task.Task`, attached by `senso.reporting.run_folder.load_run` from the table of tasks): how its items
are keyed and where they come from are the task's to say."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from senso.core.errors import SensoError
from senso.core.records import config_data_files, config_option


@dataclass
class RunFolder:
    """What a run wrote: `results.json`, `samples.jsonl` and `config.json` (missing config: empty dict), and its
    task (`task_def`)."""

    path: Path
    results: dict[str, Any]
    samples: list[dict[str, Any]]
    config: dict[str, Any] = field(default_factory=dict)
    task_def: Any = None

    @property
    def task(self) -> str:
        return self.results["task"]

    @property
    def kind(self) -> str:
        return self.task_def.kind

    @property
    def system(self) -> str:
        return self.results.get("system") or self.config.get("system") or "?"

    @property
    def label(self) -> str:
        """A short name for this run on comparison pages: the folder name."""
        return self.path.resolve().name

    @property
    def lang(self) -> str:
        return self.task_def.family.scope(self).lang

    @property
    def split(self) -> str:
        return self.task_def.family.scope(self).split

    @property
    def split_key(self) -> str:
        """The split as comparisons match it (a Likert task has a single one: a --limit changes items, not split)."""
        return self.task_def.family.scope(self).split_key

    def item_id(self, sample: dict[str, Any]) -> str:
        """The key that identifies an item across runs of the same task (the task's `item_key`)."""
        keys = (self.task_def.item_key,) if isinstance(self.task_def.item_key, str) else self.task_def.item_key
        missing = [k for k in keys if k not in sample]
        if missing:
            raise SensoError(f"{self.path}: an item of samples.jsonl has no {', '.join(missing)} (what runs of "
                             f"{self.task} are matched by; an earlier senso wrote it): run it again to compare it")
        return " | ".join(str(sample[k]) for k in keys)


NOT_FOUND_HINT = (" (nor a copy under the data folders: set SENSO_DATA_DIR to the folder holding the data sets' "
                  "folders)")


def recorded_data_files(config: dict[str, Any]) -> list[tuple[str, str | None]]:
    """(path, sha256) of each data file a run recorded (`core.records.config_data_files`)."""
    return [(str(f["path"]), f.get("sha256")) for f in config_data_files(config)]


def locate_data_file(recorded: str, sha256: str | None, run_dir: Path | None = None) -> tuple[Path | None, list[str]]:
    """The file a run read, wherever it is now, and notes saying whether it moved or changed.

    Looked for at the recorded path (relative ones: from here and from the run folder's project), then under the
    data folders (--data-dir's defaults) by each tail of its path, longest first. With a recorded sha256 a file
    found elsewhere with the same content has "moved"; different content has "changed"."""
    from senso.core.fingerprint import file_sha256
    from senso.core.paths import data_dir_candidates

    raw = Path(recorded)
    candidates = [raw] if raw.is_absolute() else [raw, *((run_dir.resolve().parent.parent / raw,) if run_dir else ())]
    parts = raw.parts  # the recorded path's tails, longest first, under each data folder
    candidates += [base / Path(*parts[k:]) for k in range(1, len(parts)) for base in data_dir_candidates(None)]
    found = [c for c in dict.fromkeys(candidates) if c.is_file()]
    if not found:
        return None, [f"the run's data file {recorded} is not there any more"]
    if sha256 is None:
        moved = [] if found[0] == raw else [f"the run's data file {recorded} was read from {found[0]} (no sha256 "
                                            "recorded: it cannot be checked to be the same file)"]
        return found[0], moved
    same = [c for c in found if file_sha256(c) == sha256]
    if same:
        note = [] if same[0] == raw else [f"the run's data file moved: {recorded} is now read from {same[0]} "
                                          "(same sha256)"]
        return same[0], note
    return found[0], [f"{found[0]} changed since the run (sha256 differs from the one recorded for {recorded}): "
                      "sentences, captions and images may not match"]


def data_files_again(config: dict[str, Any], run_dir: Path | None, unshown: str, count: int = 1,
                     besides: str | None = None) -> tuple[list[Path | None], list[str]]:
    """The data files a run read (its first `count` recorded, but `besides`: a gold file), each found again where
    it is now (None: not found), and notes on finding them, for a page to read its items again; no files, and
    notes ending with `unshown` (what the page cannot show), when none is found."""
    recorded = [(raw, sha) for raw, sha in recorded_data_files(config)[:count] if raw != besides]
    if not recorded:
        return [], [f"config.json records no data file: {unshown}"]
    located = [locate_data_file(raw, sha, run_dir=run_dir) for raw, sha in recorded]
    notes = [note for _, found in located for note in found]
    if all(path is None for path, _ in located):
        return [], [f"{note}: {unshown}{NOT_FOUND_HINT}" for note in notes]
    return [path for path, _ in located], notes


def model_lines(description: Any, prefix: str = "") -> list[tuple[str, str]]:
    """(role, "spec · fingerprint") for every model a system description names.

    Two shapes are recorded by the runners: a nested `{"spec": ..., "fingerprint": ...}` dict under a
    role key (the likert LM), and a `ROLE` / `ROLE_fingerprint` pair of strings (embedders).
    """
    lines: list[tuple[str, str]] = []
    if not isinstance(description, dict):
        return lines
    if "spec" in description:
        text = str(description["spec"])
        if description.get("fingerprint"):
            text += f" · {description['fingerprint']}"
        lines.append((prefix or "model", text))
    for key, value in description.items():
        if isinstance(value, dict):
            lines.extend(model_lines(value, key))
        elif isinstance(value, str) and f"{key}_fingerprint" in description:
            lines.append((key, f"{value} · {description[f'{key}_fingerprint']}"))
    return lines


def header_rows(run: RunFolder) -> list[tuple[str, str]]:
    """The page header, in order: what ran, on what, with what (its family's own rows: `Family.header`), when, and
    the exact command."""
    results = run.results
    models = model_lines(results.get("model", {})) or [("model", "—")]
    rows = [
        ("task", run.task),
        ("split", run.split),
        ("language", run.lang),
        ("system", run.system),
        *((f"{role} (spec · fingerprint)", text) for role, text in models),
        *run.task_def.family.header(run),
        ("n", str(results.get("n", len(run.samples)))),
        ("date", results.get("created", "—")),
        ("senso version", results.get("versions", {}).get("senso", "—")),
        ("command", results.get("command", "—")),
    ]
    return rows


def aligned(runs: Sequence[RunFolder]) -> list[list[dict[str, Any]]]:
    """Per run, its samples in the first run's item order."""
    order = [runs[0].item_id(s) for s in runs[0].samples]
    out = []
    for run in runs:
        by_id = {run.item_id(s): s for s in run.samples}
        out.append([by_id[i] for i in order])
    return out
