"""A run folder is senso's, proven by its manifest (`core.manifest`, `core.records.RunWriter`): a run removes only
files an earlier run recorded and left unchanged, never its own inputs; a folder holding anything else is refused,
naming it, with every byte kept; a killed run's folder is taken up again by the same command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from senso.core.errors import RunInterrupted, SensoError
from senso.core.manifest import MANIFEST_NAME, check_run_folder, read_manifest, recorded_if_run_folder, survey
from senso.core.records import RunWriter
from file_snapshots import snapshot  # what "nothing was touched" compares


def finished_run(folder: Path, submission: str | None = None) -> None:
    with RunWriter(folder) as writer:
        writer.write_config({"task": "t"})
        if submission:
            writer.write_file(submission, "compound\texpected_order\n")
        writer.write_samples([{"id": "1"}])


def test_a_run_records_every_file_it_writes_with_its_sha256_and_size(tmp_path):
    import hashlib

    finished_run(tmp_path / "r", "submission_EN.tsv")
    recorded = read_manifest(tmp_path / "r")
    assert sorted(recorded) == ["config.json", "samples.jsonl", "samples.parquet", "submission_EN.tsv"]
    for name, entry in recorded.items():
        data = (tmp_path / "r" / name).read_bytes()
        assert entry == {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    assert json.loads((tmp_path / "r" / MANIFEST_NAME).read_text())["written_by"] == "senso"


def test_a_later_run_removes_what_the_earlier_one_recorded_and_says_so(tmp_path):
    finished_run(tmp_path / "r", "submission_EN.tsv")
    with RunWriter(tmp_path / "r") as again:
        assert not (tmp_path / "r" / "submission_EN.tsv").exists()
        assert "held an earlier run" in again.warnings[0] and "submission_EN.tsv" in again.warnings[0]
        assert read_manifest(tmp_path / "r") == {}


@pytest.mark.parametrize("stranger", ["submission_EN.tsv", "notes.txt", "config.json"])
def test_a_file_no_run_recorded_stops_the_run_and_nothing_is_touched(tmp_path, stranger):
    finished_run(tmp_path / "r")
    (tmp_path / "r" / stranger).write_text("the user's own")
    before = snapshot(tmp_path / "r")
    with pytest.raises(SensoError, match=rf"--out {tmp_path / 'r'} holds {stranger}, which "):
        RunWriter(tmp_path / "r").__enter__()
    with pytest.raises(SensoError, match="give --out a new or empty folder"):
        check_run_folder(tmp_path / "r")  # with the options, before anything loads
    assert snapshot(tmp_path / "r") == before


def test_a_recorded_file_changed_since_is_not_removed(tmp_path):
    finished_run(tmp_path / "r")
    (tmp_path / "r" / "config.json").write_text('{"edited": "by hand"}')
    before = snapshot(tmp_path / "r")
    with pytest.raises(SensoError, match="holds config.json, which changed since the senso run that wrote it"):
        RunWriter(tmp_path / "r").__enter__()
    assert snapshot(tmp_path / "r") == before


def test_an_older_senso_run_folder_without_a_manifest_is_refused_and_kept(tmp_path):
    old = tmp_path / "old"
    old.mkdir()
    for name in ("config.json", "results.json", "samples.jsonl", "report.html", "submission_EN.tsv"):
        (old / name).write_text("stale")
    before = snapshot(old)
    with pytest.raises(SensoError, match="which an older senso wrote without recording it"):
        RunWriter(old).__enter__()
    assert snapshot(old) == before


def test_a_manifest_json_that_is_not_senso_s_is_nobody_s(tmp_path):
    (tmp_path / "rel").mkdir()
    (tmp_path / "rel" / MANIFEST_NAME).write_text('{"files": {"data.tsv": {}}}')
    (tmp_path / "rel" / "data.tsv").write_text("a\tb\n")
    before = snapshot(tmp_path / "rel")
    assert read_manifest(tmp_path / "rel") is None
    assert [path.name for path, _ in survey(tmp_path / "rel").foreign] == ["data.tsv", MANIFEST_NAME]
    with pytest.raises(SensoError, match=r"holds data.tsv \(and 1 more\), which no senso run recorded"):
        RunWriter(tmp_path / "rel").__enter__()
    assert snapshot(tmp_path / "rel") == before


def test_an_input_is_never_removed_nor_overwritten_even_one_an_earlier_run_wrote(tmp_path):
    finished_run(tmp_path / "r", "submission_EN.tsv")
    data = tmp_path / "r" / "submission_EN.tsv"  # an earlier run's submission, read as this run's data
    kept = data.read_bytes()
    assert survey(tmp_path / "r", [data]).inputs == [data]
    with pytest.raises(SensoError, match="this run would write submission_EN.tsv, which is one of the data files"):
        with RunWriter(tmp_path / "r", inputs=[data]) as writer:
            assert any("that this run reads; they were kept: submission_EN.tsv" in w for w in writer.warnings)
            writer.write_file("submission_EN.tsv", "overwritten")
    assert data.read_bytes() == kept


def test_a_killed_run_is_resumed_by_the_same_command_into_the_same_folder(tmp_path):
    with pytest.raises(RunInterrupted, match="it keeps config.json"):
        with RunWriter(tmp_path / "r") as writer:
            writer.write_config({"task": "t"})
            raise KeyboardInterrupt
    assert read_manifest(tmp_path / "r")["config.json"]["sha256"] is not None
    finished_run(tmp_path / "r")  # the rerun takes the folder again
    assert (tmp_path / "r" / "samples.jsonl").is_file()


def test_a_run_killed_mid_write_left_files_that_are_still_its_own(tmp_path):
    """SIGKILL between claiming a file and recording its hash, and while a temporary file was open: both are
    the run's (claimed in its manifest), so the rerun removes them."""
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / MANIFEST_NAME).write_text(json.dumps({"written_by": "senso", "files": {
        "samples.jsonl": {"sha256": None, "size": None}}}))
    (folder / "samples.jsonl").write_text('{"id": "1"}\n')
    (folder / "samples.jsonl.4242.tmp").write_text('{"id"')
    (folder / ".senso-run.lock").write_text('{"pid": 4242}')
    with RunWriter(folder) as writer:
        assert not (folder / "samples.jsonl").exists() and not (folder / "samples.jsonl.4242.tmp").exists()
        assert any("took over the lock" in w for w in writer.warnings)


def test_a_report_page_written_in_a_run_folder_is_recorded_there(tmp_path):
    finished_run(tmp_path / "r")
    with recorded_if_run_folder(tmp_path / "r" / "report.html") as path:
        path.write_text("<html></html>")
    assert "report.html" in read_manifest(tmp_path / "r")
    (tmp_path / "elsewhere").mkdir()
    with recorded_if_run_folder(tmp_path / "elsewhere" / "page.html") as path:
        path.write_text("<html></html>")
    assert not (tmp_path / "elsewhere" / MANIFEST_NAME).exists()
    with RunWriter(tmp_path / "r"):
        assert not (tmp_path / "r" / "report.html").exists()
