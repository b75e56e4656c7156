"""Files as bytes, for tests that compare folders before and after a run or serve a zip: one place for both."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (relative name -> bytes)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def zip_bytes(files: dict[str, bytes]) -> bytes:
    """A zip archive holding `files` (name -> bytes), as bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buffer.getvalue()
