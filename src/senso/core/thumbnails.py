"""Downscaled image thumbnails inlined as base64 JPEG data URIs (a 256 px PNG becomes ~4 KB)."""

from __future__ import annotations

import base64
import io
import os
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Iterable

from PIL import Image

THUMBNAIL_PX = 128


@lru_cache(maxsize=4096)
def thumbnail_uri(path: str | Path, size: int = THUMBNAIL_PX) -> str | None:
    """`data:image/jpeg;base64,...` of the image at `path`, fitted into size x size (aspect kept);
    None when the file cannot be decoded as an image (the page then says so beside the caption)."""
    try:
        with Image.open(path) as image:
            image.draft("RGB", (size, size))  # JPEG sources decode at a reduced scale
            thumb = image.convert("RGB")
    except (OSError, SyntaxError, ValueError):  # PIL's errors for truncated / unidentified / corrupt files
        return None
    factor = min(thumb.size) // size
    if factor > 1:  # integer box reduction first: fast, and as good as a filter at these ratios
        thumb = thumb.reduce(factor)
    if max(thumb.size) > size:
        thumb.thumbnail((size, size), Image.Resampling.BILINEAR)
    buffer = io.BytesIO()
    thumb.save(buffer, format="JPEG", quality=80)
    return "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def prefetch(paths: Iterable[str | Path]) -> None:
    """Make the thumbnails of `paths` in a thread pool (Pillow decodes without holding the GIL)."""
    unique = sorted({str(p) for p in paths})
    workers = max(1, min(8, os.cpu_count() or 1))
    if len(unique) < 8 or workers == 1:
        for path in unique:
            thumbnail_uri(path)
        return
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(thumbnail_uri, unique))
