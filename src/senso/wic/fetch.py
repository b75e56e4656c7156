"""`senso data fetch wic`: download the three public word-in-context releases into `<data dir>/wic/`, in the
layout the shipped task files read:

    WiC (Pilehvar and Camacho-Collados 2019): pilehvar.github.io's `wic/package/WiC_dataset.zip`, whose
        train/, dev/, test/ folders (`<split>.data.txt`, `<split>.gold.txt`) -> wic/en/
    WiC-ITA (EVALITA 2023): the GitHub repository wic-ita/data at commit 3a9ba28 (its archive), whose binary/,
        ranking/ and gold_truth/ JSONL files -> wic/it/ (each file's sha256 is pinned: a commit's files are fixed,
        its archive's bytes are not)
    DWUG EN v3.0.0 (Schlechtweg et al.): Zenodo record 14028531 (`dwug_en.zip`, with the md5 Zenodo's API gives),
        whose README.html and data/<lemma>/{uses,judgments}.csv -> wic/dwug_en/

A release's root inside its archive is the folder holding its marker file (the archive's top folder is named by
the host). Test gold (WiC's test/test.gold.txt, WiC-ITA's gold_truth/) is placed as the release has it; no
shipped task's split reads it (score a test run with `--gold`). Every download and placed file is recorded, with
its sha256, in `wic/FETCHED.json`. No checksum is published for WiC's zip, so none is pinned for it. An existing
different file is never overwritten (unless `force`). `mirror` (or $SENSO_WIC_MIRROR) replaces the hosts: a
release at https://host/PATH is read from MIRROR/PATH (tests use a local server).
"""

from __future__ import annotations

import hashlib
import json
import os
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from senso.core.download import DownloadError, download, unpack, place_file
from senso.core.errors import SensoError
from senso.core.output import check_output_folder, make_folder, write_text
from senso.core.paths import cache_dir, data_dir_candidates

MIRROR_ENV = "SENSO_WIC_MIRROR"
DATA_DIR_FLAG = "--data-dir"
WICITA_COMMIT = "3a9ba283a905ca878c41f4349ebc15541946dc60"
ZENODO_API = "https://zenodo.org/api/records"


@dataclass(frozen=True)
class Release:
    """One public release: where it is, how its root is found in the archive, what of it is placed."""

    name: str
    folder: str  # under <data dir>/wic/
    url: str  # the archive; for a Zenodo record, its API record (files listed with their md5)
    marker: str  # a glob, relative to the release's root, that only the root matches
    keep: tuple[str, ...]  # globs of the files placed, relative to the root
    sha256: dict[str, str] = field(default_factory=dict)  # pinned, per placed file
    zenodo: bool = False


WICITA_SHA256 = {
    "binary/dev.jsonl": "e613a4b76ef1ce2ab84a7b4d8e1eeacef0fe86f68efed88ddd90c69df6067387",
    "binary/test.jsonl": "da680ed44c6376b9f14f9a53c4cb19b03d7d011a22cc169b874a9bb45abb2113",
    "binary/test_eng.jsonl": "f22e02deb5426b4ccc56073e9ce0e37e3204fac4eab1b5379bacb9780511b0f4",
    "binary/train.jsonl": "b21fec606d53e64a68a559ec8dbca440b69b9ab68067e7e290e8dc4896ebf1e0",
    "ranking/dev.jsonl": "8855bfe14b836775067d8be65d64f2e6d45a6b86628c4a495a4358763f2ecbe8",
    "ranking/test.jsonl": "da680ed44c6376b9f14f9a53c4cb19b03d7d011a22cc169b874a9bb45abb2113",
    "ranking/test_eng.jsonl": "f22e02deb5426b4ccc56073e9ce0e37e3204fac4eab1b5379bacb9780511b0f4",
    "ranking/train.jsonl": "8fa4671085400569644e71cafec639e3df68479c82025a0f5823ba9e29c89de6",
    "ranking/train_agr.jsonl": "cf22b1ebe3a804ba2667c41525d72ea61f0d9b402d07b9bb9103b7b26e8008dc",
    "ranking/train_dis.jsonl": "87bec4eeaa83c72d5e3895d02ab323073ed432ba49cc1f0d7be7efac4c2043e1",
    "gold_truth/binary/test.jsonl": "df6c7941fdfa070e7b4bea7402bc7d169cfc777a87e65fbfe595606733e50ec1",
    "gold_truth/binary/test_eng.jsonl": "8dee76e347c4d496679ed06c809a1ed3c18abe19bc0a347e96ccc3ff42fb2b46",
    "gold_truth/ranking/test.jsonl": "cb2287f5144b477d4c2e39fd4f688b541eb0a27c86839b2e67a449fe330538b4",
    "gold_truth/ranking/test_eng.jsonl": "f055716b2d581b2d97ef16e69e5b469c3153429a07ff1f94c939d9d7a9ede395",
}
RELEASES = (
    Release("WiC", "en", "https://pilehvar.github.io/wic/package/WiC_dataset.zip", "train/train.data.txt",
            ("train/*.txt", "dev/*.txt", "test/*.txt")),
    Release("WiC-ITA", "it", f"https://github.com/wic-ita/data/archive/{WICITA_COMMIT}.zip", "binary/train.jsonl",
            ("binary/*.jsonl", "ranking/*.jsonl", "gold_truth/*/*.jsonl"), sha256=WICITA_SHA256),
    Release("DWUG EN", "dwug_en", f"{ZENODO_API}/14028531", "data/*/judgments.csv",
            ("README.html", "data/*/uses.csv", "data/*/judgments.csv"), zenodo=True),
)


@dataclass
class FetchReport:
    root: Path
    downloaded: list[dict[str, Any]] = field(default_factory=list)  # url, file, sha256
    placed: dict[str, int] = field(default_factory=dict)  # release -> files placed
    copied: int = 0
    unchanged: int = 0
    files: dict[str, str] = field(default_factory=dict)  # placed file (relative to root) -> sha256


def mirrored(url: str, mirror: str | None) -> str:
    """`url` with its scheme and host replaced by `mirror` (None: as it is)."""
    if not mirror:
        return url
    return mirror.rstrip("/") + urllib.parse.urlsplit(url).path


def sha256_of(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def _zenodo_files(release: Release, mirror: str | None) -> list[tuple[str, str, str]]:
    """(file name, download url, md5) of each file of a Zenodo record, as its API lists them."""
    url = mirrored(release.url, mirror)
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": "application/json"}), timeout=60) as resp:
            record = json.loads(resp.read().decode("utf-8"))
    except (urllib.error.URLError, OSError, TimeoutError, ValueError) as exc:
        raise DownloadError(f"could not read the {release.name} record {url}: {exc}") from exc
    files = []
    for entry in record.get("files") or []:
        name, checksum = entry.get("key") or "", entry.get("checksum") or ""
        link = (entry.get("links") or {}).get("self") or ""
        if not name or "/" in name or not checksum.startswith("md5:") or not link:
            raise DownloadError(f"{url}: a file without a usable key, md5 checksum or link ({entry}); refusing an "
                                "unverifiable file")
        files.append((name, mirrored(link, mirror), checksum.removeprefix("md5:")))
    if not files:
        raise DownloadError(f"{url} lists no files")
    return files


def _downloads(release: Release, mirror: str | None, folder: Path, report: FetchReport) -> list[Path]:
    """The release's archives, downloaded into `folder` (Zenodo's with their md5 checked)."""
    listed = _zenodo_files(release, mirror) if release.zenodo else \
        [(Path(urllib.parse.urlsplit(release.url).path).name, mirrored(release.url, mirror), None)]
    paths = []
    for name, url, md5 in listed:
        path = download(url, folder / name, md5=md5)
        report.downloaded.append({"release": release.name, "url": url, "file": name, "sha256": sha256_of(path)})
        paths.append(path)
    return paths


def release_root(release: Release, tree: Path) -> Path | None:
    """The shallowest folder of `tree` that holds the release's marker; None when none does."""
    folders = sorted((p for p in [tree, *tree.rglob("*")] if p.is_dir()), key=lambda p: (len(p.parts), str(p)))
    return next((folder for folder in folders if any(folder.glob(release.marker))), None)


def _checked_files(release: Release, root: Path) -> list[tuple[Path, str]]:
    """The release's files to place (relative names), every pinned sha256 checked before any is placed."""
    files = sorted({(p, p.relative_to(root).as_posix()) for pattern in release.keep for p in root.glob(pattern)
                    if p.is_file()}, key=lambda f: f[1])
    names = {name for _, name in files}
    missing = sorted(set(release.sha256) - names)
    if missing:
        raise SensoError(f"the {release.name} download lacks {', '.join(missing)}; nothing of it was placed")
    for path, name in files:
        expected = release.sha256.get(name)
        if expected is not None and sha256_of(path) != expected:
            raise DownloadError(f"refusing {release.name}'s {name}: its sha256 is {sha256_of(path)}, expected "
                                f"{expected}; nothing of it was placed")
    return files


def fetch_release(release: Release, root: Path, mirror: str | None, force: bool, report: FetchReport) -> None:
    downloads = cache_dir() / "downloads" / "wic" / release.folder
    trees = [unpack(path, downloads / "unpacked") for path in _downloads(release, mirror, downloads, report)]
    release_dir = next((found for tree in trees if (found := release_root(release, tree)) is not None), None)
    if release_dir is None:
        raise SensoError(f"the {release.name} download holds no {release.marker}: it is not the release senso "
                         f"knows ({release.url}); nothing of it was placed")
    for path, name in _checked_files(release, release_dir):
        if place_file(path, root / release.folder / name, force, DATA_DIR_FLAG):
            report.copied += 1
        else:
            report.unchanged += 1
        report.files[f"{release.folder}/{name}"] = sha256_of(path)
        report.placed[release.name] = report.placed.get(release.name, 0) + 1


def fetch_wic(data_dir: str | Path | None = None, mirror: str | None = None, force: bool = False) -> FetchReport:
    """Download, verify and place the three releases in `<data dir>/wic` (see the module's docstring)."""
    mirror = mirror or os.environ.get(MIRROR_ENV) or None
    base = Path(data_dir).expanduser() if data_dir else data_dir_candidates(None)[0]  # where to put it: may be new
    root = base / "wic"
    check_output_folder(root, DATA_DIR_FLAG)  # before any download
    report = FetchReport(root=root)
    make_folder(root, DATA_DIR_FLAG)
    for release in RELEASES:
        fetch_release(release, root, mirror, force, report)
    record = {"releases": [{"name": r.name, "url": r.url, "folder": r.folder} for r in RELEASES],
              "mirror": mirror, "downloaded": report.downloaded, "files": report.files}
    write_text(root / "FETCHED.json", json.dumps(record, indent=2, ensure_ascii=False) + "\n", DATA_DIR_FLAG)
    return report
