"""Everything a `senso run` can be asked, as one plain record (the CLI builds it; so can Python users)."""

from __future__ import annotations

from dataclasses import dataclass, field, asdict
from pathlib import Path
from typing import Any

from senso.core.errors import SensoError

DEFAULT_BATCH_SIZE = 8  # items per model call, for every model kind (--batch-size)


def check_batch_size(batch_size: int) -> int:
    """`batch_size` itself when it is a whole number of at least 1; else a SensoError saying so."""
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise SensoError(f"batch size must be a whole number of at least 1, got {batch_size!r}; "
                         f"pass --batch-size N with N >= 1 (default {DEFAULT_BATCH_SIZE})")
    return batch_size


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
    lang: str = "en"
    split: str = "dev"
    gold: Path | None = None
    caption_lang: str | None = None
    allow_partial: bool = False
    system_options: dict[str, Any] = field(default_factory=dict)  # --sense, --meaning, --members, ...

    def __post_init__(self) -> None:
        check_batch_size(self.batch_size)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        return {k: (str(v) if isinstance(v, Path) else v) for k, v in data.items()}
