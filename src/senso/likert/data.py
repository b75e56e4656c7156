"""ABRICOT (CALAMITA 2024): loading and validating the official `dataset_it.csv`."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

from senso.core.download import download
from senso.core.csvfile import read_records
from senso.core.errors import DataError, DataNotFound, SensoError
from senso.core.paths import cache_dir, data_dir_candidates

ABRICOT_RELATIVE = Path("abricot") / "dataset_it.csv"
ABRICOT_COMMIT = "ab4a167db4327bcc8faaa153f780e004042ac274"
ABRICOT_URL = (
    "https://raw.githubusercontent.com/aramelior/ABRICOT-ABstRactness-and-Inclusiveness-in-COntexT/"
    f"{ABRICOT_COMMIT}/dataset_it.csv"
)
ABRICOT_SHA256 = "5dfe6577961b20d8b1fd3439ed32152fdf615963dd93ca925c912aa19f136eac"

REQUIRED_COLUMNS = ("ID", "domain", "begin", "end", "text", "target_token", "target_lemma")
SCORE_COLUMNS = ("abs_mean", "abs_std", "inc_mean", "inc_std")


@dataclass(frozen=True)
class AbricotItem:
    """One sentence with a target noun; scores are human means/stds in [0, 1] (None for new text)."""

    id: str
    domain: str
    text: str
    begin: int
    end: int  # inclusive: text[begin:end + 1] == target_token
    target_token: str
    target_lemma: str
    abs_mean: float | None
    abs_std: float | None
    inc_mean: float | None
    inc_std: float | None

    def score(self, dimension: str) -> float:
        """The human mean for "abs" or "inc"."""
        value = self.abs_mean if dimension == "abs" else self.inc_mean
        if value is None:
            raise SensoError(f"item {self.id} has no {dimension}_mean")
        return value


def _parse_int(raw: str, path: Path, row: int, field: str) -> int:
    try:
        return int(raw)
    except ValueError:
        raise DataError(path, f"expected an integer, got {raw!r}", row=row, field=field) from None


def _parse_score(raw: str, path: Path, row: int, field: str, required: bool) -> float | None:
    if raw.strip() == "":
        if required:
            raise DataError(path, "missing value", row=row, field=field)
        return None
    try:
        value = float(raw)
    except ValueError:
        raise DataError(path, f"expected a number, got {raw!r}", row=row, field=field) from None
    if math.isnan(value) or not 0.0 <= value <= 1.0:
        raise DataError(path, f"score {raw!r} is outside [0, 1]", row=row, field=field)
    return value


def load_abricot(path: str | Path, require_scores: bool = True) -> list[AbricotItem]:
    """Read and validate an ABRICOT CSV (UTF-8, optional BOM).

    Every problem raises a DataError naming file, row (1 = first data row) and column: missing
    columns, empty text, offsets not matching `target_token`, non-numeric or out-of-[0,1] scores,
    duplicate IDs. With `require_scores=False` the score columns may be absent or blank (new text).
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(path, "file not found" if not path.exists() else "not a file")
    return _read_abricot(path, require_scores)


def _read_abricot(path: Path, require_scores: bool) -> list[AbricotItem]:
    columns, rows = read_records(path)
    needed = REQUIRED_COLUMNS + (SCORE_COLUMNS if require_scores else ())
    missing = [c for c in needed if c not in columns]
    if missing:
        raise DataError(path, f"missing column(s) {', '.join(missing)}; found {', '.join(columns) or 'none'}")
    items: list[AbricotItem] = []
    seen: dict[str, int] = {}
    for row_no, row in enumerate(rows, start=1):
        item_id = (row["ID"] or "").strip()
        if not item_id:
            raise DataError(path, "empty ID", row=row_no, field="ID")
        if item_id in seen:
            raise DataError(path, f"duplicate ID {item_id!r} (first at row {seen[item_id]})", row=row_no, field="ID")
        seen[item_id] = row_no
        text = row["text"] or ""
        if not text.strip():
            raise DataError(path, "empty text", row=row_no, field="text")
        begin = _parse_int(row["begin"], path, row_no, "begin")
        end = _parse_int(row["end"], path, row_no, "end")
        token = row["target_token"] or ""
        if text[begin:end + 1] != token:
            raise DataError(
                path,
                f"text[{begin}:{end}+1] is {text[begin:end + 1]!r}, not target_token {token!r} (end is inclusive)",
                row=row_no, field="begin/end",
            )
        scores = {c: _parse_score(row.get(c) or "", path, row_no, c, require_scores) for c in SCORE_COLUMNS}
        items.append(AbricotItem(
            id=item_id, domain=(row["domain"] or "").strip(), text=text, begin=begin, end=end,
            target_token=token, target_lemma=(row["target_lemma"] or "").strip(), **scores,
        ))
    if not items:
        raise DataError(path, "no data rows")
    return items


def locate_abricot(data_dir: str | Path | None = None, allow_download: bool = True) -> Path:
    """Path of `abricot/dataset_it.csv`: --data-dir, SENSO_DATA_DIR, the user cache, else download."""
    for base in data_dir_candidates(data_dir):
        for candidate in (base / ABRICOT_RELATIVE, base / "dataset_it.csv"):
            if candidate.exists():
                return candidate
    if data_dir:
        raise DataNotFound(
            f"no ABRICOT data in {data_dir}: expected {Path(data_dir) / ABRICOT_RELATIVE}"
        )
    if not allow_download or os.environ.get("SENSO_OFFLINE"):
        raise DataNotFound(_not_found_message())
    url = os.environ.get("SENSO_ABRICOT_URL", ABRICOT_URL)
    try:
        return download(url, cache_dir(create=False) / "data" / ABRICOT_RELATIVE, sha256=ABRICOT_SHA256)
    except SensoError as exc:
        raise DataNotFound(f"{exc}\n{_not_found_message()}") from exc


def _not_found_message() -> str:
    return (
        "ABRICOT data not found and not downloadable. Point senso at a copy with "
        "--data-dir DIR (or SENSO_DATA_DIR=DIR), where DIR/abricot/dataset_it.csv is the authors' file "
        f"(commit {ABRICOT_COMMIT[:8]} of aramelior/ABRICOT-ABstRactness-and-Inclusiveness-in-COntexT)."
    )
