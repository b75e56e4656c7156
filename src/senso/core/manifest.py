"""A run folder's manifest: the files senso wrote there, so that a later run removes those and nothing else.

`manifest.json` in a run folder: `{"written_by": "senso", "files": {NAME: {"sha256": HEX, "size": BYTES}}}`. A
run names a file there before it writes it (`sha256` null: claimed) and records its sha256 and size once it is
written (sealed), so a run killed at any moment still owns every file it left. A later run into the folder, once
its own inputs are read and checked, removes the files an earlier run recorded that are unchanged since (a
claimed one, and a half-written `NAME.PID.tmp` beside a recorded NAME, too) and never one of its own inputs. Any
other entry (a file no run recorded, one changed since, a folder, an older senso's run folder, which has no
manifest) stops the run with a sentence naming it, before anything is removed: the folder is not senso's to
empty (docs/results.md, "Run folders").
"""

from __future__ import annotations

import json
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from senso.core.errors import SensoError
from senso.core.fingerprint import file_sha256
from senso.core.output import make_folder, write_text
from senso.core.run_lock import LOCK_NAME

MANIFEST_NAME = "manifest.json"
WRITTEN_BY = "senso"
# what a run folder written by an older senso (no manifest) holds: named so the refusal says what it is
OLDER_RUN_FILES = ("config.json", "results.json")


def read_manifest(folder: Path) -> dict[str, dict[str, Any]] | None:
    """The files a senso run recorded in `folder` (name -> {"sha256", "size"}); None when the folder has no
    manifest of senso's (none at all, or a `manifest.json` that is not one: that file is then nobody's)."""
    try:
        data = json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("written_by") != WRITTEN_BY or not isinstance(data.get("files"), dict):
        return None
    return {str(name): entry for name, entry in data["files"].items() if isinstance(entry, dict)}


def _unchanged(path: Path, entry: dict[str, Any]) -> bool:
    """Whether `path` is what the run recorded: claimed only (written by the run, killed before it could seal
    it), or of the recorded size and sha256."""
    if entry.get("sha256") is None:
        return True
    try:
        return path.stat().st_size == entry.get("size") and file_sha256(path) == entry["sha256"]
    except OSError:
        return False


def _temporary_of(name: str, recorded: dict[str, Any]) -> bool:
    """`NAME.PID.tmp` beside a recorded NAME (or the manifest): what an atomic write of it left when its run was
    killed."""
    found = re.fullmatch(r"(.+)\.\d+\.tmp", name)
    return found is not None and (found.group(1) in recorded or found.group(1) == MANIFEST_NAME)


@dataclass
class Survey:
    """A folder as a run about to write it finds it: the files an earlier run recorded and left unchanged
    (`removable`), its own inputs that an earlier run had written (`inputs`, kept), and everything else
    (`foreign`: (entry, why it is not senso's to remove))."""

    folder: Path
    removable: list[Path] = field(default_factory=list)
    inputs: list[Path] = field(default_factory=list)
    foreign: list[tuple[Path, str]] = field(default_factory=list)

    def refusal(self, flag: str) -> SensoError | None:
        """The sentence naming the first entry that is not senso's (None when there is none)."""
        if not self.foreign:
            return None
        path, why = self.foreign[0]
        more = f" (and {len(self.foreign) - 1} more)" if len(self.foreign) > 1 else ""
        return SensoError(f"{flag} {self.folder} holds {path.name}{more}, which {why}: senso removes only the files "
                          f"a run listed in the folder's {MANIFEST_NAME}, so give {flag} a new or empty folder, or "
                          f"move {path.name} away")


def _why_foreign(entry: Path, recorded: dict[str, Any] | None, names: set[str]) -> str:
    if entry.is_dir():
        return "is a folder no senso run wrote"
    if recorded is not None and entry.name in recorded:
        return "changed since the senso run that wrote it recorded it"
    if recorded is None and OLDER_RUN_FILES[0] in names and entry.name in (*OLDER_RUN_FILES, "samples.jsonl"):
        return f"an older senso wrote without recording it (its run folders have no {MANIFEST_NAME})"
    return "no senso run recorded as its own"


def survey(folder: str | Path, inputs: Iterable[str | Path] = ()) -> Survey:
    """What is in `folder` (which need not exist), as `Survey` sorts it; `inputs`, the files the run reads."""
    folder = Path(folder)
    found = Survey(folder)
    if not folder.is_dir():
        return found
    reads = {Path(p).resolve() for p in inputs}
    recorded = read_manifest(folder)
    own = {LOCK_NAME, *((MANIFEST_NAME,) if recorded is not None else ())}
    entries = sorted((p for p in folder.iterdir() if p.name not in own), key=lambda p: (p.is_dir(), p.name))
    names = {p.name for p in entries}
    for entry in entries:
        ours = recorded is not None and entry.is_file() and (
            (entry.name in recorded and _unchanged(entry, recorded[entry.name]))
            or _temporary_of(entry.name, recorded))
        if ours and entry.resolve() in reads:
            found.inputs.append(entry)
        elif ours:
            found.removable.append(entry)
        else:
            found.foreign.append((entry, _why_foreign(entry, recorded, names)))
    return found


def check_run_folder(folder: str | Path | None, flag: str = "--out") -> None:
    """SensoError naming an entry of `folder` that no senso run recorded (checked with the options, before
    anything slow; removes nothing)."""
    if folder is None:
        return
    refusal = survey(folder).refusal(flag)
    if refusal is not None:
        raise refusal


class Manifest:
    """The manifest of the run writing `folder` now: `writing(name)` claims a file before it is written and
    seals it after; `record(name)` seals one written already."""

    def __init__(self, folder: Path, flag: str = "--out", inputs: Iterable[str | Path] = ()):
        self.folder = folder
        self.flag = flag
        self.inputs = {Path(p).resolve() for p in inputs}
        self.files: dict[str, dict[str, Any]] = {}

    @classmethod
    def existing(cls, folder: Path, flag: str) -> "Manifest | None":
        """The manifest a finished run left in `folder` (None when it has none), to record a later file in."""
        recorded = read_manifest(folder)
        if recorded is None:
            return None
        manifest = cls(folder, flag)
        manifest.files = recorded
        return manifest

    def save(self) -> None:
        write_text(self.folder / MANIFEST_NAME, json.dumps({"written_by": WRITTEN_BY, "files": self.files},
                                                           indent=2, ensure_ascii=False) + "\n", self.flag)

    @contextmanager
    def writing(self, name: str) -> Iterator[Path]:
        """The path of the run folder's file `name`, claimed in the manifest before the block writes it and
        recorded (sha256, size) after; a file that is one of the run's inputs is refused, never overwritten."""
        path = self.folder / name
        if path.resolve() in self.inputs:
            raise SensoError(f"{self.flag} {self.folder}: this run would write {name}, which is one of the data files "
                             f"it reads; give {self.flag} another folder")
        self.files[name] = {"sha256": None, "size": None}
        self.save()
        yield path
        self.record(name)

    def record(self, name: str) -> None:
        path = self.folder / name
        self.files[name] = {"sha256": file_sha256(path), "size": path.stat().st_size}
        self.save()

    def present(self) -> list[str]:
        """The recorded files the folder holds now."""
        return [name for name in self.files if (self.folder / name).is_file()]


@contextmanager
def recorded_if_run_folder(path: str | Path, flag: str = "-o") -> Iterator[Path]:
    """`path` to be written by the block, recorded in its folder's manifest when that folder is a run folder
    (`senso report`'s report.html), so the next run there may replace it."""
    path = Path(path)
    manifest = Manifest.existing(path.parent, flag)
    if manifest is None:
        yield path
        return
    with manifest.writing(path.name):
        yield path


def claim_folder(folder: str | Path, flag: str) -> bool:
    """Make `folder` a run folder before its run starts (`senso sweep`): made, with an empty manifest when it is
    new or empty; False (nothing written) when it holds anything and no manifest of senso's."""
    folder = make_folder(folder, flag)
    if read_manifest(folder) is not None:
        return True
    if any(p.name != LOCK_NAME for p in folder.iterdir()):
        return False
    Manifest(folder, flag).save()
    return True


def write_recorded(folder: str | Path, name: str, text: str, flag: str) -> Path | None:
    """`text` as the run folder's file `name`, recorded in its manifest; None (nothing written) when the folder
    has no manifest of senso's."""
    manifest = Manifest.existing(Path(folder), flag)
    if manifest is None:
        return None
    with manifest.writing(name) as path:
        return write_text(path, text, flag)
