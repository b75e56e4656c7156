"""Downscaled image thumbnails inlined as base64 JPEG data URIs (a 256 px PNG becomes ~3 KB)."""

from __future__ import annotations

import base64
import io
from functools import lru_cache
from pathlib import Path

from PIL import Image

THUMBNAIL_PX = 120


@lru_cache(maxsize=4096)
def thumbnail_uri(path: str | Path, size: int = THUMBNAIL_PX) -> str:
    """`data:image/jpeg;base64,...` of the image at `path`, fitted into size x size (aspect kept)."""
    with Image.open(path) as image:
        image.draft("RGB", (size, size))  # lets JPEG sources decode at a reduced scale
        thumb = image.convert("RGB")
        thumb.thumbnail((size, size), Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    thumb.save(buffer, format="JPEG", quality=80, optimize=True)
    return "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
