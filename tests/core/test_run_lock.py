"""The run folder while a run writes it (`core.records.RunWriter`, `core.run_lock`), and files written where the
user said (`core.output`): one writer at a time, a dead writer's lock taken over, SIGTERM as Ctrl-C, no half files."""

from __future__ import annotations

import json
import os
import signal
import time

import pytest

from senso.core.cache import ResponseCache
from senso.core.errors import RunInterrupted, SensoError
from senso.core.output import atomic_file, check_output_file, write_text
from senso.core.records import RunWriter
from senso.core.run_lock import LOCK_NAME, RunLock, Stopped, check_free, signals_interrupt


def test_a_second_writer_is_refused_with_the_holders_pid_and_the_folder_is_free_after(tmp_path):
    with RunWriter(tmp_path / "r") as writer:
        assert (tmp_path / "r" / LOCK_NAME).is_file()
        assert json.loads((tmp_path / "r" / LOCK_NAME).read_text())["pid"] == os.getpid()
        with pytest.raises(SensoError, match=rf"is being written by another senso run \(pid {os.getpid()}, since "):
            RunWriter(tmp_path / "r").__enter__()
        writer.write_config({"task": "t"})
    assert not (tmp_path / "r" / LOCK_NAME).exists()
    with RunWriter(tmp_path / "r") as again:  # free again; the earlier run's files are replaced, and said so
        assert "held an earlier run" in again.warnings[0] and not (tmp_path / "r" / "config.json").exists()


def test_a_busy_folder_is_refused_with_the_options_before_anything_loads(tmp_path):
    check_free(tmp_path / "none")  # no folder, no lock file: free, and nothing is created
    assert not (tmp_path / "none").exists()
    with RunWriter(tmp_path / "r"):
        with pytest.raises(SensoError, match=rf"pid {os.getpid()}.*give --out another folder"):
            check_free(tmp_path / "r")
    (tmp_path / "r" / LOCK_NAME).write_text('{"pid": 4242}')  # left by a dead run: free
    check_free(tmp_path / "r")
    assert (tmp_path / "r" / LOCK_NAME).read_text() == '{"pid": 4242}'


def test_a_lock_left_by_a_dead_run_is_taken_over_and_said(tmp_path):
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / LOCK_NAME).write_text(json.dumps({"pid": 4242, "command": "senso run x"}))
    with RunWriter(tmp_path / "r") as writer:
        assert writer.warnings == [f"took over the lock of {tmp_path / 'r'} left by a run that is no longer running "
                                   "(pid 4242: senso run x): it was killed or crashed before it finished"]
    garbled = RunLock(tmp_path / "g")
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / LOCK_NAME).write_text("{not json")
    assert "(pid unknown)" in garbled.acquire()
    garbled.release()


@pytest.mark.parametrize("raised, code, name", [(KeyboardInterrupt(), 130, "SIGINT"),
                                                (Stopped(signal.SIGTERM), 143, "SIGTERM")])
def test_an_interrupted_run_says_what_was_kept_and_how_to_resume(tmp_path, raised, code, name):
    cache = ResponseCache(tmp_path / "c.sqlite")
    with pytest.raises(RunInterrupted) as info:
        with RunWriter(tmp_path / "r", cache=cache) as writer:
            writer.write_config({"task": "t"})
            raise raised
    assert info.value.exit_code == code
    assert str(info.value) == (f"{name} interrupted the run before it finished: {tmp_path / 'r'} has no results.json "
                               f"(it keeps config.json). What the models had finished is kept in the response cache "
                               f"{tmp_path / 'c.sqlite'}: run the same command again to resume where it stopped")
    assert not (tmp_path / "r" / LOCK_NAME).exists()
    with pytest.raises(RunInterrupted, match="No response cache was used, so a rerun computes everything again"):
        with RunWriter(tmp_path / "n", cache=ResponseCache(enabled=False)):
            raise raised


def test_sigterm_raises_inside_the_block_only(tmp_path):
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Stopped):
        with signals_interrupt():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # the handler raises here at the latest
    assert signal.getsignal(signal.SIGTERM) is before


def test_output_files_are_whole_or_absent_and_errors_name_path_and_flag(tmp_path):
    target = tmp_path / "deep" / "out.csv"
    with pytest.raises(ValueError):
        with atomic_file(target, "-o") as fh:
            fh.write("half")
            raise ValueError("the writer failed midway")
    assert not target.exists() and list((tmp_path / "deep").iterdir()) == []
    assert write_text(target, "whole\n", "-o").read_text() == "whole\n"
    (tmp_path / "plain").write_text("x")
    with pytest.raises(SensoError, match=r"cannot write .*plain/x\.csv \(.*plain is a file, not a folder\); give -o a path"):
        check_output_file(tmp_path / "plain" / "x.csv", "-o")
    with pytest.raises(SensoError, match=r"cannot write .*plain/x\.csv \(.*plain is a file, not a folder\); give --out a "
                                         "path in a folder you can write to"):
        write_text(tmp_path / "plain" / "x.csv", "x", "--out")
