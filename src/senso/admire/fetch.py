"""`senso data fetch admire`: download the official AdMIRe release from ORDA (Sheffield's figshare).

The article behind doi 10.15131/shef.data.28436600 is listed through the figshare API
(`GET {api}/articles/{id}` and `{api}/articles/{id}/files`); every file is downloaded with the md5
the API gives (a mismatch deletes the file and stops), archives are unpacked, and the official files
are placed by what they are, not by archive name:
    subtask_{a,b}_{train,dev,test,xe,xp}.tsv (+ the compound image folders next to it)
        -> admire/subtask_{a,b}/<lang>/<split>/
    {a,b}_{en,pt,xe,xp}_{train,dev,test}_targets.tsv -> admire/reference/
Language is Portuguese when the file is `_xp`, has `image{n}_caption_pt` columns, or sits under a
folder or archive named PT / Portuguese. An existing different file is never overwritten (unless
`force`), and files that are none of the above are reported, not silently dropped.
The API base URL can be overridden with `api_url` or $SENSO_FIGSHARE_API (tests use a local server).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from senso.admire.data import folder_names
from senso.core.csvfile import read_records
from senso.core.download import DownloadError, download, is_archive, place_file, unpack
from senso.core.errors import SensoError
from senso.core.output import check_output_folder, make_folder, write_text
from senso.core.paths import cache_dir, data_dir_candidates

FIGSHARE_API = "https://api.figshare.com/v2"
API_ENV = "SENSO_FIGSHARE_API"
DATA_DIR_FLAG = "--data-dir"  # where `senso data fetch` puts the release
ADMIRE_ARTICLE_ID = 28436600
ADMIRE_DOI = "10.15131/shef.data.28436600"

_SPLIT_TSV = re.compile(r"^subtask_([ab])_(train|dev|test|xe|xp|sample)\.tsv$", re.IGNORECASE)
_TARGETS_TSV = re.compile(r"^[ab]_(en|pt|xe|xp)_(train|dev|test)_targets\.tsv$", re.IGNORECASE)
_PT_NAME = re.compile(r"(^|[^a-z])(pt|portuguese|portugues)([^a-z]|$)", re.IGNORECASE)
_SPLIT_DIR = {"train": "train", "dev": "dev", "test": "test", "xe": "xeval", "xp": "xeval", "sample": "sample"}


@dataclass
class FetchReport:
    root: Path
    article: dict[str, Any]
    downloaded: list[str] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    placed: list[str] = field(default_factory=list)  # relative destinations of split TSVs and targets
    unchanged: int = 0
    copied: int = 0
    not_placed: list[str] = field(default_factory=list)


def _get_json(url: str) -> Any:
    request = urllib.request.Request(url, headers={"Accept": "application/json", "User-Agent": "senso"})
    try:
        with urllib.request.urlopen(request, timeout=60) as resp:
            return json.loads(resp.read().decode("utf-8"))
    except (urllib.error.URLError, OSError, TimeoutError, ValueError) as exc:
        raise DownloadError(f"could not read {url}: {exc}") from exc


def list_files(api: str, article_id: int) -> list[dict[str, Any]]:
    """All files of a figshare article (paged), each with name, size, md5 and download_url."""
    files, page = [], 1
    while True:
        batch = _get_json(f"{api}/articles/{article_id}/files?page={page}&page_size=100")
        if not isinstance(batch, list):
            raise DownloadError(f"{api}/articles/{article_id}/files: expected a list of files, got {type(batch).__name__}")
        files.extend(batch)
        if len(batch) < 100:
            return files
        page += 1


def _md5(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "md5").hexdigest()


def _is_portuguese(columns: list[str], context: str) -> bool:
    return any(c.endswith("_caption_pt") for c in columns) or any(_PT_NAME.search(part) for part in Path(context).parts)


def _copy_file(src: Path, dest: Path, force: bool, report: FetchReport) -> None:
    if place_file(src, dest, force, DATA_DIR_FLAG):
        report.copied += 1
    else:
        report.unchanged += 1


def _place_split_tsv(tsv: Path, match: re.Match, context: str, root: Path, force: bool, report: FetchReport) -> set[Path]:
    columns, rows = read_records(tsv, "\t")
    compounds = [row.get("compound", "").strip() for row in rows]
    subtask, code = match.group(1).lower(), match.group(2).lower()
    lang = "pt" if code == "xp" or _is_portuguese(columns, context) else "en"
    dest_dir = root / f"subtask_{subtask}" / lang / _SPLIT_DIR[code]
    _copy_file(tsv, dest_dir / tsv.name, force, report)
    used = {tsv}
    for compound in compounds:
        for name in folder_names(compound):
            folder = tsv.parent / name
            if folder.is_dir():
                for file in sorted(p for p in folder.rglob("*") if p.is_file()):
                    _copy_file(file, dest_dir / name / file.relative_to(folder), force, report)
                    used.add(file)
    report.placed.append(str((dest_dir / tsv.name).relative_to(root.parent)))
    return used


def place_official_files(unpacked: list[tuple[Path, str]], root: Path, force: bool, report: FetchReport) -> None:
    """Place split TSVs (with their image folders) and targets files found under the unpacked trees."""
    used: set[Path] = set()
    for tree, context in unpacked:
        base = tree.parent if tree.is_file() else tree
        files = [tree] if tree.is_file() else sorted(p for p in tree.rglob("*") if p.is_file())
        for file in files:
            if match := _SPLIT_TSV.match(file.name):
                used |= _place_split_tsv(file, match, f"{context}/{file.relative_to(base)}", root, force, report)
            elif _TARGETS_TSV.match(file.name):
                _copy_file(file, root / "reference" / file.name, force, report)
                report.placed.append(str((root / "reference" / file.name).relative_to(root.parent)))
                used.add(file)
        report.not_placed += [f"{context}: {file.relative_to(base)}" for file in files
                              if file not in used and not any(part.startswith(("__MACOSX", ".")) for part in file.parts)]
    if not report.placed:
        raise SensoError("the downloaded release holds no subtask_*_<split>.tsv or *_targets.tsv file; nothing was placed")


def fetch_admire(data_dir: str | Path | None = None, api_url: str | None = None, force: bool = False) -> FetchReport:
    """Download, verify and unpack the official AdMIRe release into `<data dir>/admire`."""
    api = (api_url or os.environ.get(API_ENV) or FIGSHARE_API).rstrip("/")
    base = Path(data_dir).expanduser() if data_dir else data_dir_candidates(None)[0]  # where to put it: may be new
    root = base / "admire"
    check_output_folder(root, DATA_DIR_FLAG)  # before any download
    article = _get_json(f"{api}/articles/{ADMIRE_ARTICLE_ID}")
    doi = (article.get("doi") or "").lower()
    if doi and doi != ADMIRE_DOI:
        raise DownloadError(f"article {ADMIRE_ARTICLE_ID} has doi {doi}, expected {ADMIRE_DOI}")
    files = list_files(api, ADMIRE_ARTICLE_ID)
    if not files:
        raise DownloadError(f"article {ADMIRE_ARTICLE_ID} lists no files")
    downloads = cache_dir() / "downloads" / f"figshare-{ADMIRE_ARTICLE_ID}"
    report = FetchReport(root=root, article={"id": ADMIRE_ARTICLE_ID, "doi": article.get("doi"), "title": article.get("title"),
                                             "version": article.get("version"), "api": api})
    unpacked: list[tuple[Path, str]] = []
    for info in files:
        name = info.get("name") or ""
        if not name or "/" in name or "\\" in name or name in (".", ".."):
            raise DownloadError(f"article {ADMIRE_ARTICLE_ID}: unusable file name {name!r}")
        md5 = info.get("computed_md5") or info.get("supplied_md5")
        url = info.get("download_url")
        if not md5 or not url:
            raise DownloadError(f"article {ADMIRE_ARTICLE_ID}, file {name}: the API gives no {'md5' if not md5 else 'download_url'}; refusing an unverifiable file")
        dest = downloads / name
        if dest.is_file() and _md5(dest) == md5.lower():
            report.reused.append(name)
        else:
            download(url, dest, md5=md5)
            report.downloaded.append(name)
        unpacked.append((unpack(dest, downloads / "unpacked") if is_archive(dest) else dest, name))
    make_folder(root, DATA_DIR_FLAG)
    place_official_files(unpacked, root, force, report)
    record = {"article": report.article, "files": [{"name": f.get("name"), "md5": f.get("computed_md5") or f.get("supplied_md5"),
                                                    "size": f.get("size")} for f in files],
              "placed": report.placed, "not_placed": report.not_placed}
    write_text(root / "FETCHED.json", json.dumps(record, indent=2, ensure_ascii=False) + "\n", DATA_DIR_FLAG)
    return report
