"""`senso data fetch admire` against a figshare-like API served on 127.0.0.1 by the test itself."""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote, unquote

import pytest

from admire_fixtures import A_COLUMNS, a_row, b_row, write_a_targets, write_tsv
from senso.admire.data import B_COLUMNS, load_subtask_b, read_targets
from admire_fixtures import load_a
from senso.admire.fetch import ADMIRE_ARTICLE_ID, fetch_admire
from senso.core.download import DownloadError
from senso.core.errors import DataError
from file_snapshots import zip_bytes

ARTICLE = ADMIRE_ARTICLE_ID


def _tsv_bytes(tmp: Path, rows, columns) -> bytes:
    return write_tsv(tmp, rows, columns).read_bytes()


def build_release(tmp_path: Path) -> dict[str, bytes]:
    """Three archives laid out like the organisers' zips, and a targets file."""
    en_rows = [a_row("night owl"), a_row("devil's advocate", first=20, sentence_type="literal")]
    en = {"Subtask A Train/subtask_a_train.tsv": _tsv_bytes(tmp_path / "en.tsv", en_rows, list(A_COLUMNS))}
    for row in en_rows:
        for n in range(1, 6):
            en[f"Subtask A Train/{row['compound'].replace(chr(39), '_')}/{row[f'image{n}_name']}"] = b"png" + row[f"image{n}_name"].encode()
    en["Subtask A Train/README.txt"] = b"notes"
    pt_rows = [a_row("cerca viva", first=30, pt=True, gold=False)]
    pt_cols = list(A_COLUMNS) + [f"image{n}_caption_pt" for n in range(1, 6)]
    pt = {"AdMIRe Subtask A PT Test/subtask_a_test.tsv": _tsv_bytes(tmp_path / "pt.tsv", pt_rows, pt_cols)}
    b = {"Subtask B Dev/subtask_b_dev.tsv": _tsv_bytes(tmp_path / "b.tsv", [b_row("cold turkey", gold=False)], list(B_COLUMNS))}
    targets = write_a_targets(tmp_path / "a_en_train_targets.tsv", en_rows).read_bytes()
    return {"AdMIRe Subtask A Train.zip": zip_bytes(en), "AdMIRe Subtask A PT Test.zip": zip_bytes(pt),
            "AdMIRe Subtask B Dev.zip": zip_bytes(b), "a_en_train_targets.tsv": targets}


class FakeFigshare:
    """Serves /v2/articles/<id>, /v2/articles/<id>/files and /files/<name> on 127.0.0.1."""

    def __init__(self, release: dict[str, bytes], corrupt: str | None = None):
        self.release = release
        self.corrupt = corrupt
        self.requests: list[str] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_GET(self):
                fake.requests.append(self.path)
                path = self.path.split("?")[0]
                if path == f"/v2/articles/{ARTICLE}":
                    return self._send(json.dumps({"id": ARTICLE, "doi": "10.15131/shef.data.28436600", "version": 1,
                                                  "title": "AdMIRe"}).encode(), "application/json")
                if path == f"/v2/articles/{ARTICLE}/files":
                    page = int(self.path.split("page=")[1].split("&")[0])
                    listing = [] if page > 1 else [
                        {"id": i, "name": name, "size": len(data), "computed_md5": hashlib.md5(data).hexdigest(),
                         "download_url": f"{fake.url}/files/{quote(name)}"}
                        for i, (name, data) in enumerate(fake.release.items())]
                    return self._send(json.dumps(listing).encode(), "application/json")
                if path.startswith("/files/"):
                    name = unquote(path[len("/files/"):])
                    data = fake.release[name]
                    return self._send(data + b"x" if name == fake.corrupt else data, "application/octet-stream")
                self.send_error(404)

            def _send(self, body: bytes, content_type: str):
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SENSO_DATA_DIR", raising=False)


def test_fetch_verifies_unpacks_and_places_the_official_layout(tmp_path, isolated_cache):
    release = build_release(tmp_path / "build")
    data = tmp_path / "data"
    with FakeFigshare(release) as server:
        report = fetch_admire(data, api_url=server.url + "/v2")
    assert sorted(report.downloaded) == sorted(release)
    assert sorted(report.placed) == sorted([
        "admire/subtask_a/en/train/subtask_a_train.tsv", "admire/subtask_a/pt/test/subtask_a_test.tsv",
        "admire/subtask_b/en/dev/subtask_b_dev.tsv", "admire/reference/a_en_train_targets.tsv"])
    assert report.not_placed == ["AdMIRe Subtask A Train.zip: Subtask A Train/README.txt"]
    items = load_a(data, "en", "train", need_images=True, gold=data / "admire/reference/a_en_train_targets.tsv")
    assert items[1].images[0].path.read_bytes() == b"png20.png"
    assert items[1].images[0].path.parent.name == "devil_s advocate"
    assert load_a(data, "pt", "test")[0].caption("30.png") == "Legenda 1 de cerca viva"
    assert load_subtask_b(data, "en", "dev")[0].compound == "cold turkey"
    fetched = json.loads((data / "admire" / "FETCHED.json").read_text())
    assert fetched["article"]["doi"] == "10.15131/shef.data.28436600" and len(fetched["files"]) == 4

    # a second fetch reuses the verified downloads and finds every file already in place
    with FakeFigshare(release) as server:
        again = fetch_admire(data, api_url=server.url + "/v2")
    assert again.downloaded == [] and sorted(again.reused) == sorted(release) and again.copied == 0
    assert not any(r.startswith("/files/") for r in server.requests)


def test_fetch_refuses_a_checksum_mismatch_and_keeps_nothing(tmp_path, isolated_cache):
    release = build_release(tmp_path / "build")
    with FakeFigshare(release, corrupt="AdMIRe Subtask B Dev.zip") as server:
        with pytest.raises(DownloadError, match=r"refusing .*AdMIRe%20Subtask%20B%20Dev.zip: its md5 is"):
            fetch_admire(tmp_path / "data", api_url=server.url + "/v2")
    downloads = tmp_path / "cache" / "downloads" / f"figshare-{ARTICLE}"
    assert not (downloads / "AdMIRe Subtask B Dev.zip").exists()
    assert not list(downloads.glob("*.part*"))


def test_fetch_never_overwrites_a_different_file(tmp_path, isolated_cache):
    release = build_release(tmp_path / "build")
    data = tmp_path / "data"
    target = data / "admire" / "reference" / "a_en_train_targets.tsv"
    target.parent.mkdir(parents=True)
    target.write_text("compound\nmine\n")
    with FakeFigshare(release) as server:
        with pytest.raises(DataError, match="already exists with different content.*--force"):
            fetch_admire(data, api_url=server.url + "/v2")
        fetch_admire(data, api_url=server.url + "/v2", force=True)
    assert len(read_targets(target)) == 2


def test_base_url_from_the_environment(tmp_path, isolated_cache, monkeypatch):
    release = build_release(tmp_path / "build")
    with FakeFigshare(release) as server:
        monkeypatch.setenv("SENSO_FIGSHARE_API", server.url + "/v2")
        report = fetch_admire(tmp_path / "data")
    assert len(report.placed) == 4


def test_cli_data_fetch_admire(tmp_path, isolated_cache):
    from typer.testing import CliRunner

    from senso.cli import app

    release = build_release(tmp_path / "build")
    with FakeFigshare(release) as server:
        result = CliRunner().invoke(app, ["data", "fetch", "admire", "--data-dir", str(tmp_path / "data"), "--api-url", server.url + "/v2"])
    assert result.exit_code == 0, result.output
    assert "downloaded 4 file(s)" in result.output and "admire/subtask_a/pt/test/subtask_a_test.tsv" in result.output
    assert "README.txt" in result.output  # reported, not silently dropped
