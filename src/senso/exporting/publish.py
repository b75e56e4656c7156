"""`senso export`'s steps in order: the Hub checked (token, network) before anything is written, the runs read,
the folder written (--to DIR, else a temporary one), then uploaded (--push-to-hub)."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from senso.core.errors import SensoError
from senso.exporting.dataset import build_export, check_target, write_export


@dataclass
class Exported:
    configs: list[str]
    folder: Path | None = None  # --to DIR (None when only uploaded)
    url: str | None = None  # the dataset repository's URL after --push-to-hub


def export_runs(run_dirs: Sequence[str | Path], to: str | Path | None = None, push_to_hub: str | None = None,
                private: bool = True) -> Exported:
    """The runs as a dataset folder in `to` and/or uploaded to the dataset repository `push_to_hub`."""
    from senso.exporting.hub import check_hub, push_folder

    if to is None and push_to_hub is None:
        raise SensoError("senso export needs --to DIR, --push-to-hub ORG/NAME or --model-index")
    target = check_hub(push_to_hub, private=private) if push_to_hub else None
    if to is not None:
        check_target(to)
    export = build_export(run_dirs)
    outcome = Exported(configs=export.configs)
    if to is not None:
        outcome.folder = write_export(export, to)
    if target is not None:
        message = f"senso export: {len(export.runs)} run(s) of {', '.join(sorted({r.task for r in export.runs}))}"
        if outcome.folder is not None:
            outcome.url = push_folder(target, outcome.folder, message)
        else:
            with tempfile.TemporaryDirectory(prefix="senso-export-") as folder:
                outcome.url = push_folder(target, write_export(export, Path(folder) / "export"), message)
    return outcome
