"""`senso run --out DIR` never removes what a user wrote: a folder holding files no senso run recorded is refused
with a sentence naming one, before anything is read or written, and every byte in it is kept. The two trials that
lost files (a user's own submission_EN.tsv; --out the task's own data folder), and a catalogue case for every kind
of built-in task: `--out` its own data folder leaves the folder as it was."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from senso.admire.rankfile import builtin_task_file

pytestmark = pytest.mark.real_data

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "admire" / "ranking"))
from test_rank_admire2 import write_release  # noqa: E402  (the AdMIRe 2 release's layout, written by the test)
from file_snapshots import snapshot  # noqa: E402

LIKERT_TASK_FILE = "\n".join([
    'name = "concreteness-en"', 'description = "How concrete is the word in this sentence, 1 to 7"',
    'data = "items.csv"', "scale = [1, 7]", "gold_range = [1, 7]",
    'template = """How concrete is "{word}" here, from 1 to 7?', "{text}", '"""', "",
    "[columns]", 'gold = "rating"', 'group = "lemma"', ""])
LIKERT_ROWS = "id,text,word,rating,lemma\na,The dog sleeps.,dog,6.5,dog\nb,An idea came.,idea,1.5,idea\n"


@pytest.fixture()
def senso(senso_cli):
    return senso_cli


@pytest.fixture()
def data(data_dir, tmp_path) -> Path:
    """A copy of the benchmark data's text files (no pictures: the runs below read none)."""
    copy = tmp_path / "data"
    for path in [*data_dir.glob("abricot/*"), *data_dir.glob("admire/**/*.tsv")]:
        (copy / path.relative_to(data_dir)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, copy / path.relative_to(data_dir))
    return copy


def test_a_users_own_submission_file_is_kept_and_the_run_refused(senso, data, tmp_path):
    own = tmp_path / "own"
    own.mkdir()
    (own / "submission_EN.tsv").write_text("notes\n")
    code, output = senso("run", "admire-a", "--split", "dev", "--limit", "2", "--system", "random", "--out", own,
                         "--data-dir", data)
    assert code == 2 and "Traceback" not in output
    assert f"--out {own} holds submission_EN.tsv, which no senso run recorded as its own" in output, output
    assert snapshot(own) == {"submission_EN.tsv": b"notes\n"}


def test_a_run_into_its_own_earlier_run_folder_replaces_it(senso, data, tmp_path):
    args = ("run", "admire-a", "--split", "dev", "--limit", "2", "--system", "random", "--out", tmp_path / "r",
            "--data-dir", data)
    assert senso(*args)[0] == 0
    assert senso("report", tmp_path / "r")[0] == 0  # its page is recorded too
    code, output = senso(*args)
    assert code == 0, output
    assert "held an earlier run; the files it recorded were removed" in output
    assert "report.html" in output and not (tmp_path / "r" / "report.html").exists()


def _likert_task(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "items.csv").write_text(LIKERT_ROWS)
    (folder / "concrete.toml").write_text(LIKERT_TASK_FILE)
    return folder / "concrete.toml"


def _ranking_task(folder: Path, subtask: str) -> Path:
    write_release(folder)
    return Path(shutil.copy(builtin_task_file(f"admire2-{subtask}"), folder))


# every kind of built-in task: (task, extra args, the folder of its data files, relative to the data copy)
CATALOGUE = [
    ("abricot-abs", ("--system", "lexical-prior"), "abricot"),
    ("abricot-inc", ("--system", "lexical-prior"), "abricot"),
    ("admire-a", ("--split", "dev", "--system", "random"), "admire/subtask_a/en/dev"),
    ("admire-b", ("--split", "dev", "--system", "random"), "admire/subtask_b/en/dev"),
    ("admire-sense", ("--split", "dev", "--sense", "gold"), "admire/subtask_a/en/dev"),
    ("likert task file", ("--system", "lexical-prior"), "tasks"),
    ("ranking task file admire2-a", ("--lang", "zh", "--system", "random"), "release"),
    ("ranking task file admire2-b", ("--lang", "zh", "--system", "random"), "release"),
]


@pytest.mark.parametrize("task, extra, where", CATALOGUE, ids=[case[0] for case in CATALOGUE])
def test_out_set_to_the_tasks_own_data_folder_leaves_every_file_as_it_was(senso, data, tmp_path, task, extra, where):
    folder = data / where
    if task == "likert task file":
        task = _likert_task(folder)
    elif task.startswith("ranking task file"):
        task = _ranking_task(folder, task[-1])
    before = snapshot(folder)
    code, output = senso("run", task, *extra, "--out", folder, "--data-dir", data)
    assert "Traceback" not in output
    assert code == 2 and f"--out {folder} holds " in output and "which no senso run recorded as its own" in output, \
        output
    assert snapshot(folder) == before
