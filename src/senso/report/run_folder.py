"""A finished run folder as the report pages read it: results, samples, config and a header."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from senso.core.errors import SensoError
from senso.core.records import config_data_files, config_option, load_config, load_results, load_samples


KINDS = ("likert", "admire-a", "admire-b", "admire-sense")  # the shapes of run records a page is made for


def record_kind(results: dict[str, Any]) -> str:
    """The shape of a run's records, as the run recorded it (`task_kind`: "likert", "admire-a", "admire-b" or
    "admire-sense"); runs written before it was recorded are told by their older marks (a Likert run's
    `family`, the AdMIRe task names). SensoError for anything else."""
    kind = results.get("task_kind")
    if kind is None:  # a run folder written before the kind was recorded
        task = str(results.get("task", ""))
        kind = "likert" if results.get("family") == "likert" or task.startswith("abricot-") else task
    if kind not in KINDS:
        raise SensoError(f"no report page for a run of kind {kind!r} (task {results.get('task')!r}; reports cover "
                         "abricot-abs, abricot-inc, Likert task files, admire-a, admire-b, admire-sense)")
    return kind


@dataclass
class RunFolder:
    """What a run wrote: `results.json`, `samples.jsonl` and `config.json` (missing config: empty dict)."""

    path: Path
    results: dict[str, Any]
    samples: list[dict[str, Any]]
    config: dict[str, Any] = field(default_factory=dict)

    @property
    def task(self) -> str:
        return self.results["task"]

    @property
    def kind(self) -> str:
        return record_kind(self.results)

    @property
    def system(self) -> str:
        return self.results.get("system") or self.config.get("system") or "?"

    @property
    def label(self) -> str:
        """A short name for this run on comparison pages: the folder name."""
        return self.path.resolve().name

    @property
    def lang(self) -> str:
        if self.kind == "likert":
            task = self.results.get("likert_task") or {}
            if "language" not in task:  # recorded since the task files say it; before, only ABRICOT had one
                return "it" if self.task.startswith("abricot-") else "—"
            return task["language"] or "—"
        return self.results.get("lang") or config_option(self.config, "lang") or "?"

    @property
    def split(self) -> str:
        """AdMIRe: the split run on. A Likert task has one split (the whole file), or the first N items with --limit."""
        if self.kind == "likert":
            limit = self.results.get("limit") or config_option(self.config, "limit")
            return f"first {limit} items (--limit)" if limit else "all items (the whole file is the benchmark)"
        return self.results.get("split") or config_option(self.config, "split") or "?"

    @property
    def split_key(self) -> str:
        """The split as comparisons match it: a Likert task has a single one (a --limit changes items, not split)."""
        return "all" if self.kind == "likert" else self.split

    def item_id(self, sample: dict[str, Any]) -> str:
        """The key that identifies an item across runs of the same task: Likert `id`, AdMIRe `compound`."""
        return str(sample["id"] if self.kind == "likert" else sample["compound"])


def load_run(run_dir: str | Path) -> RunFolder:
    """Read a finished run folder; SensoError naming the folder and the file when results, samples or config
    are missing or damaged (`core.records`: a truncated results.json is named as such, with the fix)."""
    path = Path(run_dir)
    if not path.is_dir():
        raise SensoError(f"{path}: not a folder (give a run folder written by `senso run`)")
    results = load_results(path)
    if "task" not in results:
        raise SensoError(f"{path / 'results.json'}: no 'task' field (not a senso results file)")
    record_kind(results)
    samples = load_samples(path)
    return RunFolder(path=path, results=results, samples=samples, config=load_config(path) or {})


DATA_ROOTS = ("abricot", "admire")
NOT_FOUND_HINT = (" (nor a copy under the data folders: set SENSO_DATA_DIR to the folder holding abricot/ and "
                  "admire/)")  # the data folder's top-level folders: a recorded path's tail from here


def recorded_data_files(config: dict[str, Any]) -> list[tuple[str, str | None]]:
    """(path, sha256 or None) of each data file a run recorded (`core.records.config_data_files`: today's
    `data_files` [{"path", "sha256"}], or the older keys)."""
    return [(str(f["path"]), f.get("sha256")) for f in config_data_files(config)]


def locate_data_file(recorded: str, sha256: str | None, run_dir: Path | None = None) -> tuple[Path | None, list[str]]:
    """The file a run read, wherever it is now, and notes saying whether it moved or changed.

    Looked for at the recorded path (relative ones: from here and from the run folder's project), then under the
    data folders (--data-dir's defaults) by its path from abricot/ or admire/ on. With a recorded sha256 a file
    found elsewhere with the same content has "moved"; different content has "changed"."""
    from senso.core.fingerprint import file_sha256
    from senso.core.paths import data_dir_candidates

    raw = Path(recorded)
    candidates = [raw] if raw.is_absolute() else [raw, *((run_dir.resolve().parent.parent / raw,) if run_dir else ())]
    parts = raw.parts
    tail = next((Path(*parts[k:]) for k, part in enumerate(parts) if part in DATA_ROOTS), None)
    if tail is not None:
        candidates += [base / tail for base in data_dir_candidates(None)]
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
    """The page header, in order: what ran, on what, with what, when, and the exact command."""
    results = run.results
    models = model_lines(results.get("model", {})) or [("model", "—")]
    protocol = results.get("protocol") or config_option(run.config, "protocol") or "—"
    rows = [
        ("task", run.task),
        ("split", run.split),
        ("language", run.lang),
        ("system", run.system),
        *((f"{role} (spec · fingerprint)", text) for role, text in models),
        ("protocol", str(protocol)),
        ("track", results.get("track") or "—"),
        ("n", str(results.get("n", len(run.samples)))),
        ("date", results.get("created", "—")),
        ("senso version", results.get("versions", {}).get("senso", "—")),
        ("command", results.get("command", "—")),
    ]
    return rows
