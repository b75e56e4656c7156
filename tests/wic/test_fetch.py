"""`senso data fetch wic` against the three releases served on 127.0.0.1 by the test (small archives in each
release's layout, a Zenodo-like record API), then `senso data stats wic` on what it placed."""

from __future__ import annotations

import hashlib
import io
import json
import threading
import zipfile
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from rich.console import Console

from senso.core.download import DownloadError
from senso.core.errors import DataError
from senso.wic import fetch
from senso.wic.card import print_wic_card
from file_snapshots import zip_bytes
from wic_fixtures import make_pairs

COMMIT = fetch.WICITA_COMMIT


def _jsonl(rows: list[dict], drop: str) -> bytes:
    return "".join(json.dumps({k: v for k, v in r.items() if k != drop}) + "\n" for r in rows).encode()


def wiczip_bytes() -> bytes:
    """WiC_dataset.zip: train/, dev/, test/ at the root (test with its gold, as the release now has it)."""
    lines = {"train": ["bank\tN\t1-1\tthe bank closed\tthe bank opened", "run\tV\t0-1\trun fast\tthey run home"],
             "dev": ["bank\tN\t1-0\tthe bank closed\tbank of the river", "play\tV\t0-0\tplay music\tplay chess"],
             "test": ["play\tV\t0-0\tplay well\tplay it"]}
    gold = {"train": "T\nF\n", "dev": "F\nT\n", "test": "T\n"}
    files = {"README.txt": b"WiC"}
    for split, rows in lines.items():
        files[f"{split}/{split}.data.txt"] = ("\n".join(rows) + "\n").encode()
        files[f"{split}/{split}.gold.txt"] = gold[split].encode()
    return zip_bytes(files)


def wicitazip_bytes() -> bytes:
    """The GitHub archive of wic-ita/data: a top folder data-<commit>/ with binary/, ranking/, gold_truth/."""
    top = f"data-{COMMIT}"
    rows = {"train": make_pairs(16, 1, "train."), "dev": make_pairs(8, 2, "dev."), "test": make_pairs(6, 3, "test."),
            "test_eng": make_pairs(4, 4, "eng.", english=True)}
    files = {f"{top}/evaluation.py": b"# scorer"}
    for part, gold, other in (("binary", "label", "score"), ("ranking", "score", "label")):
        for split, split_rows in rows.items():
            keep = split_rows if split.startswith("train") or split == "dev" else \
                [{k: v for k, v in r.items() if k != gold} for r in split_rows]
            files[f"{top}/{part}/{split}.jsonl"] = _jsonl(keep, other)
            if split.startswith("test"):
                files[f"{top}/gold_truth/{part}/{split}.jsonl"] = _jsonl(split_rows, other)
    files[f"{top}/ranking/train_agr.jsonl"] = files[f"{top}/ranking/train.jsonl"]
    files[f"{top}/ranking/train_dis.jsonl"] = b""
    return zip_bytes(files)


def dwugzip_bytes() -> bytes:
    """dwug_en.zip: dwug_en/README.html and data/<lemma>/{uses,judgments}.csv (plus files not placed)."""
    uses = ("identifier\tcontext\tindexes_target_token\tdate\tgrouping\n"
            "u1\tThe plane took off .\t4:9\t1900\t1\nu2\tA plane of wood .\t2:7\t1990\t2\nu3\tThe plane landed .\t4:9\t1995\t2\n")
    judgments = ("identifier1\tidentifier2\tannotator\tjudgment\tcomment\tlemma\tround\n"
                 "u1\tu2\ta1\t1\t\tplane_nn\t1\nu1\tu3\ta1\t4\t\tplane_nn\t1\nu2\tu3\ta2\t2\t\tplane_nn\t1\n"
                 "u2\tu3\ta1\t0\t\tplane_nn\t1\n")
    return zip_bytes({"dwug_en/README.html": b"<html>DWUG EN</html>", "dwug_en/data/plane_nn/uses.csv": uses.encode(),
                 "dwug_en/data/plane_nn/judgments.csv": judgments.encode(),
                 "dwug_en/clusters/opt/plane_nn.csv": b"identifier\tcluster\n"})


class Hosts(ThreadingHTTPServer):
    """The three hosts on 127.0.0.1: paths as on pilehvar.github.io, github.com and zenodo.org."""

    def __init__(self, files: dict[str, bytes], md5: str | None = None):
        super().__init__(("127.0.0.1", 0), Handler)
        self.files, self.md5 = files, md5
        self.base = f"http://127.0.0.1:{self.server_address[1]}"


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        server: Hosts = self.server  # type: ignore[assignment]
        if self.path == "/api/records/14028531":
            data = server.files["/dwug_en.zip"]
            body = json.dumps({"files": [{"key": "dwug_en.zip", "checksum": f"md5:{server.md5 or hashlib.md5(data).hexdigest()}",
                                          "links": {"self": "https://zenodo.org/api/records/14028531/files/dwug_en.zip/content"}}]}).encode()
        elif self.path == "/api/records/14028531/files/dwug_en.zip/content":
            body = server.files["/dwug_en.zip"]
        elif self.path in server.files:
            body = server.files[self.path]
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def hosts(tmp_path, monkeypatch):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    files = {"/wic/package/WiC_dataset.zip": wiczip_bytes(), f"/wic-ita/data/archive/{COMMIT}.zip": wicitazip_bytes(),
             "/dwug_en.zip": dwugzip_bytes()}
    servers = []

    def start(md5: str | None = None) -> Hosts:
        server = Hosts(files, md5)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def pinned_to_the_test_archive(monkeypatch) -> None:
    """WiC-ITA's pins replaced by the sha256 of the test's own files (the real pins refuse them)."""
    with zipfile.ZipFile(io.BytesIO(wicitazip_bytes())) as zf:
        pins = {name.split("/", 1)[1]: hashlib.sha256(zf.read(name)).hexdigest() for name in zf.namelist()
                if name.split("/", 1)[1] in fetch.WICITA_SHA256}
    releases = tuple(replace(r, sha256=pins) if r.name == "WiC-ITA" else r for r in fetch.RELEASES)
    monkeypatch.setattr(fetch, "RELEASES", releases)


def test_fetch_places_the_three_releases_and_stats_reads_them(hosts, tmp_path, monkeypatch):
    pinned_to_the_test_archive(monkeypatch)
    server = hosts()
    report = fetch.fetch_wic(tmp_path / "data", mirror=server.base)
    root = tmp_path / "data" / "wic"
    assert (root / "en/train/train.data.txt").is_file() and (root / "en/test/test.gold.txt").is_file()
    assert not (root / "en/README.txt").exists()
    assert (root / "it/binary/test_eng.jsonl").is_file() and (root / "it/gold_truth/ranking/test.jsonl").is_file()
    assert not (root / "it/evaluation.py").exists()
    assert sorted(p.name for p in (root / "dwug_en").rglob("*") if p.is_file()) == ["README.html", "judgments.csv", "uses.csv"]
    assert report.placed == {"WiC": 6, "WiC-ITA": 14, "DWUG EN": 3} and report.unchanged == 0
    record = json.loads((root / "FETCHED.json").read_text())
    assert record["files"]["it/binary/train.jsonl"] == hashlib.sha256((root / "it/binary/train.jsonl").read_bytes()).hexdigest()
    assert [d["release"] for d in record["downloaded"]] == ["WiC", "WiC-ITA", "DWUG EN"]

    again = fetch.fetch_wic(tmp_path / "data", mirror=server.base)
    assert again.copied == 0 and again.unchanged == 23

    console = Console(record=True, width=200)
    figure = print_wic_card(tmp_path / "data", tmp_path / "out", console)
    text = console.export_text()
    assert figure is not None and figure.is_file()
    assert "│ dev   │     2 │      2 │ en 2" in text and "1 (50.0 %)" in text  # WiC dev: bank seen in train, play not
    assert "it 6, it-en 4" in text and "no gold" in text  # WiC-ITA test: both test sets, gold kept apart
    assert "│ all   │     3 │      1 │ en 3" in text  # DWUG: 3 pairs of one lemma


def test_a_different_file_is_not_overwritten(hosts, tmp_path, monkeypatch):
    pinned_to_the_test_archive(monkeypatch)
    server = hosts()
    mine = tmp_path / "data" / "wic" / "en" / "dev" / "dev.gold.txt"
    mine.parent.mkdir(parents=True)
    mine.write_text("mine\n")
    with pytest.raises(DataError, match="not overwritten"):
        fetch.fetch_wic(tmp_path / "data", mirror=server.base)
    assert mine.read_text() == "mine\n"
    fetch.fetch_wic(tmp_path / "data", mirror=server.base, force=True)
    assert mine.read_text() == "F\nT\n"


def test_a_file_off_its_pin_places_nothing_of_its_release(hosts, tmp_path):
    """The real WiC-ITA pins refuse the test's files: nothing of WiC-ITA is placed."""
    server = hosts()
    with pytest.raises(DownloadError, match="refusing WiC-ITA's binary/dev.jsonl: its sha256 is"):
        fetch.fetch_wic(tmp_path / "data", mirror=server.base)
    assert not (tmp_path / "data" / "wic" / "it").exists()


def test_a_zenodo_file_off_its_md5_is_refused(hosts, tmp_path, monkeypatch):
    pinned_to_the_test_archive(monkeypatch)
    server = hosts(md5="0" * 32)
    with pytest.raises(DownloadError, match="refusing .*dwug_en.zip/content: its md5"):
        fetch.fetch_wic(tmp_path / "data", mirror=server.base)
    assert not (tmp_path / "data" / "wic" / "dwug_en").exists()


def test_the_command_line_fetches_then_stats_and_says_when_nothing_is_there(hosts, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from senso.cli import app

    pinned_to_the_test_archive(monkeypatch)
    server = hosts()
    data = str(tmp_path / "data")
    fetched = CliRunner().invoke(app, ["data", "fetch", "wic", "--data-dir", data, "--api-url", server.base])
    assert fetched.exit_code == 0, fetched.output
    assert "WiC 6 files, WiC-ITA 14 files, DWUG EN 3 files" in fetched.output and "downloaded 3 file(s)" in fetched.output
    stats = CliRunner().invoke(app, ["data", "stats", "wic", "--data-dir", data, "--out", str(tmp_path / "out")])
    assert stats.exit_code == 0 and "wic_scores.png" in stats.output, stats.output
    (tmp_path / "empty").mkdir()
    nothing = CliRunner().invoke(app, ["data", "stats", "wic", "--data-dir", str(tmp_path / "empty")])
    assert nothing.exit_code != 0 and "`senso data fetch wic` downloads it" in str(nothing.exception)
    assert "wic-en: not in the data folder" in nothing.output  # each task's missing file named on its line
