"""Everything a `senso run` can be asked, as one plain record (the CLI builds it; so can Python users).

`RunOptions.validate()` checks every generic field (limit, batch size, dtype, device, shots, data folder)
before anything slow starts or any run folder is written; task- and system-specific checks live in the
wings (`senso.likert.run.check_options`, `senso.admire.run.check_options`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, asdict
from pathlib import Path
from typing import Any, Iterable

from senso.core.errors import SensoError
from senso.core.output import check_output_folder
from senso.core.paths import check_data_dir
from senso.core.run_lock import check_free

DTYPES = ("float32", "bfloat16", "float16", "auto")  # --dtype; "auto": the checkpoint's own dtype (transformers)
DEFAULT_BATCH_SIZE = 8  # items per model call, for every model kind (--batch-size)
_DEVICE_RE = re.compile(r"^(cpu|mps|cuda(:\d+)?)$")


def check_batch_size(batch_size: Any, flag: str = "--batch-size") -> int:
    """`batch_size` itself when it is a whole number of at least 1; else a SensoError saying so."""
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise SensoError(f"{flag} must be a whole number of at least 1, got {batch_size!r}; "
                         f"pass {flag} N with N >= 1 (default {DEFAULT_BATCH_SIZE})")
    return batch_size


def check_limit(limit: int | None) -> None:
    if limit is not None and limit < 1:
        raise SensoError(f"--limit must be at least 1 (the number of items to score), got {limit}; "
                         "leave it out to score every item")


def check_dtype(dtype: str) -> None:
    if dtype not in DTYPES:
        raise SensoError(f"--dtype {dtype!r} is not supported; choose from {', '.join(DTYPES)}")


def check_device(device: str) -> None:
    """The device's name, and that it exists (torch is asked only for a device other than the CPU)."""
    if not _DEVICE_RE.match(device):
        raise SensoError(f"--device {device!r} is not a device; use cpu, cuda, cuda:N or mps")
    if device == "cpu":
        return
    import torch

    if device.startswith("cuda"):
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        index = int(device.split(":")[1]) if ":" in device else 0
        if index >= count:
            raise SensoError(f"--device {device}: this machine has {count or 'no'} CUDA device(s) visible to torch; "
                             "use --device cpu" + (f" or cuda:0..cuda:{count - 1}" if count else ""))
    elif device == "mps" and not torch.backends.mps.is_available():
        raise SensoError("--device mps: Apple's Metal backend is not available here; use --device cpu")


def check_keys(given: Iterable[str], valid: Iterable[str], what: str) -> None:
    """Unknown --set keys are an error that lists the valid ones."""
    valid = sorted(set(valid))
    unknown = sorted(set(given) - set(valid))
    if unknown:
        listed = ", ".join(valid) if valid else "none"
        raise SensoError(f"unknown --set key(s) {', '.join(unknown)} for {what}; valid keys: {listed}")


def parse_bool(value: str, flag: str) -> bool:
    """true/false, yes/no, 1/0, on/off (any case)."""
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise SensoError(f"{flag} expects true or false, got {value!r}")

# `allow_partial` stays a field (sweep files and older callers name it), but no run reads it.
ALLOW_PARTIAL_IN_RUN = (
    "--allow-partial is an AdMIRe option of `senso score`, `senso submission pack` and `senso leaderboard` (which "
    "refuse a partial file without it); `senso run` does not use it: a run on part of a split (--limit, or a data "
    "file shorter than the official split) is scored anyway and marked PARTIAL. Leave it out")


@dataclass
class RunOptions:
    task: str
    data_dir: Path | None = None
    out: Path | None = None
    system: str | None = None  # None: the task's published protocol / default system
    model: str | None = None  # BACKEND:NAME spec of the scored LM
    embedder: str | None = None
    generator: str | None = None
    image_model: str | None = None
    backend: str | None = None  # default backend for bare model names ("hf", "openai")
    base_url: str | None = None
    protocol: str | None = None
    shots: int | None = None
    batch_size: int = DEFAULT_BATCH_SIZE
    limit: int | None = None
    use_cache: bool = True
    seed: int = 0
    dtype: str = "float32"
    device: str = "cpu"
    chat_template: bool = False
    lang: str | None = None  # AdMIRe only (None: en)
    split: str | None = None  # AdMIRe only (None: dev)
    gold: Path | None = None
    caption_lang: str | None = None
    allow_partial: bool = False
    system_options: dict[str, Any] = field(default_factory=dict)  # --sense, --meaning, --members, ...

    def __post_init__(self) -> None:
        check_batch_size(self.batch_size)

    def validate(self) -> None:
        """Every generic option, checked before anything slow starts; SensoError naming the option and the fix."""
        check_limit(self.limit)
        check_batch_size(self.batch_size)
        check_dtype(self.dtype)
        if self.shots is not None and self.shots < 0:
            raise SensoError(f"--shots must be 0 or more, got {self.shots}")
        check_data_dir(self.data_dir)
        if self.gold is not None and not Path(self.gold).is_file():
            raise SensoError(f"--gold {self.gold}: no such file; give the organisers' targets file "
                             "(e.g. a_en_dev_targets.tsv)")
        if self.out is not None:
            check_output_folder(self.out, "--out")
            check_free(self.out, "--out")
        if self.allow_partial:
            raise SensoError(ALLOW_PARTIAL_IN_RUN)
        check_device(self.device)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        return {k: (str(v) if isinstance(v, Path) else v) for k, v in data.items()}
