import hashlib
import http.server
import threading
from functools import partial

import pytest

from senso.likert import data as abricot_data
from senso.core.download import DownloadError, download
from senso.core.errors import DataNotFound


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture()
def http_root(tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    handler = partial(QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_download_checks_sha256(http_root, tmp_path):
    root, url = http_root
    (root / "f.csv").write_bytes(b"hello")
    good = hashlib.sha256(b"hello").hexdigest()
    dest = download(f"{url}/f.csv", tmp_path / "out" / "f.csv", sha256=good)
    assert dest.read_bytes() == b"hello"
    with pytest.raises(DownloadError, match="refusing"):
        download(f"{url}/f.csv", tmp_path / "out" / "g.csv", sha256="0" * 64)
    assert not (tmp_path / "out" / "g.csv").exists()
    assert list((tmp_path / "out").iterdir()) == [dest]


def test_locate_abricot_downloads_pinned_file(http_root, tmp_path, monkeypatch):
    root, url = http_root
    payload = (
        "\ufeffID,domain,begin,end,text,target_token,target_lemma,inc_mean,inc_std,abs_mean,abs_std\n"
        "CANE_1,opensub,3,6,Il cane dorme.,cane,cane,0.5,0.1,0.25,0.2\n"
    ).encode("utf-8")
    (root / "dataset_it.csv").write_bytes(payload)
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SENSO_DATA_DIR", raising=False)
    monkeypatch.delenv("SENSO_OFFLINE", raising=False)
    monkeypatch.setenv("SENSO_ABRICOT_URL", f"{url}/dataset_it.csv")
    # The pinned checksum is the authors' file, so a different file is refused and nothing is kept.
    with pytest.raises(DataNotFound, match="(?s)refusing.*--data-dir"):
        abricot_data.locate_abricot(None)
    monkeypatch.setattr(abricot_data, "ABRICOT_SHA256", hashlib.sha256(payload).hexdigest())
    path = abricot_data.locate_abricot(None)
    assert path == tmp_path / "cache" / "data" / "abricot" / "dataset_it.csv"
    assert abricot_data.load_abricot(path)[0].id == "CANE_1"
    # Found in the cache now: no second download needed.
    monkeypatch.setenv("SENSO_ABRICOT_URL", f"{url}/absent.csv")
    assert abricot_data.locate_abricot(None) == path


def test_offline_and_absent_explains_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SENSO_DATA_DIR", raising=False)
    monkeypatch.setenv("SENSO_ABRICOT_URL", "http://127.0.0.1:9/none.csv")
    with pytest.raises(DataNotFound, match="--data-dir"):
        abricot_data.locate_abricot(None)
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataNotFound, match="no ABRICOT data in"):
        abricot_data.locate_abricot(tmp_path / "empty")
    with pytest.raises(DataNotFound, match="does not exist"):
        abricot_data.locate_abricot(tmp_path / "typo")


def test_failed_download_removes_only_the_folders_it_created(http_root, tmp_path, monkeypatch):
    """A failed ABRICOT download (a local URL with nothing behind it, then a checksum that differs) leaves no empty
    cache/data/abricot/ behind; a folder that was there before stays."""
    root, url = http_root
    (root / "wrong.csv").write_bytes(b"not the authors' file")
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SENSO_DATA_DIR", raising=False)
    monkeypatch.delenv("SENSO_OFFLINE", raising=False)
    for name, match in (("absent.csv", "could not download"), ("wrong.csv", "refusing")):
        monkeypatch.setenv("SENSO_ABRICOT_URL", f"{url}/{name}")
        with pytest.raises(DataNotFound, match=match):
            abricot_data.locate_abricot(None)
        assert not (tmp_path / "cache").exists()
    (tmp_path / "cache" / "data").mkdir(parents=True)
    with pytest.raises(DataNotFound):
        abricot_data.locate_abricot(None)
    assert list((tmp_path / "cache").rglob("*")) == [tmp_path / "cache" / "data"]
