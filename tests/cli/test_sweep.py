"""Sweeps: grid expansion, config hashes, skipping finished runs, summary, local pool and Ray."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from senso.core.errors import SensoError
from senso.sweep import config_hash, load_sweep, run_sweep
from sweep_stub import stub_run

SWEEP = """
out = "sweep-out"

[grid]
task = ["abricot-abs", "abricot-inc"]
seed = [0, 2]
backend = [{model = "hf:tiny"}, {model = "openai:tiny", base_url = "http://127.0.0.1:9/v1", model_args = {top_logprobs = 5}}]

[options]
data_dir = "data"
limit = 7
protocol = "paper"

[options.model_args]
concurrency = 2
"""


def write_sweep(tmp_path: Path, text: str = SWEEP) -> Path:
    path = tmp_path / "sweep.toml"
    path.write_text(text, encoding="utf-8")
    return path


def calls(run_dir: Path) -> list[str]:
    path = run_dir / "calls.txt"
    return path.read_text().split() if path.exists() else []


def test_grid_expands_into_run_options(tmp_path):
    sweep = load_sweep(write_sweep(tmp_path))
    assert len(sweep.runs) == 2 * 2 * 2
    first, last = sweep.runs[0].options, sweep.runs[-1].options
    assert (first.task, first.seed, first.model, first.base_url) == ("abricot-abs", 0, "hf:tiny", None)
    assert (last.task, last.seed, last.model, last.base_url) == ("abricot-inc", 2, "openai:tiny", "http://127.0.0.1:9/v1")
    assert first.data_dir == (tmp_path / "data").resolve() and first.limit == 7 and first.protocol == "paper"
    assert first.model_args == {"concurrency": 2} and first.system_options == {}
    assert last.model_args == {"concurrency": 2, "top_logprobs": 5}  # [options] and the grid entry joined
    assert sweep.out == (tmp_path / "sweep-out").resolve()
    assert last.out == sweep.out / f"abricot-inc-{config_hash(last)}"
    assert len({r.config_hash for r in sweep.runs}) == 8
    assert [r.config_hash for r in load_sweep(write_sweep(tmp_path)).runs] == [r.config_hash for r in sweep.runs]
    assert sweep.runs[-1].axes == {"task": "abricot-inc", "seed": 2, "model": "openai:tiny",
                                   "base_url": "http://127.0.0.1:9/v1", "model_args.top_logprobs": 5}


@pytest.mark.parametrize("text, message", [
    ("[grid]\ntask = ['abricot-abs']\nmodle = ['x']\n", "unknown option 'modle'"),
    ("[grid]\ntask = []\n", "non-empty list"),
    ("[options]\nout = 'x'\ntask = 'abricot-abs'\n", "may not set 'out'"),
    ("[grid]\nseed = [1]\n", "sets no task"),
    ("[grd]\n", "unknown top-level keys"),
    ("[grid]\ntask = ['abricot-abs', 'abricot-abs']\n", "same run"),
    ("[grid\n", "not valid TOML"),
])
def test_bad_sweep_files_name_the_problem(tmp_path, text, message):
    path = write_sweep(tmp_path, text)
    with pytest.raises(SensoError, match=message) as info:
        load_sweep(path)
    assert str(path) in str(info.value)


def test_a_missing_or_binary_sweep_file_is_named(tmp_path):
    with pytest.raises(SensoError, match=r"nope\.toml: no such sweep file"):
        load_sweep(tmp_path / "nope.toml")
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe[grid]")
    with pytest.raises(SensoError, match=r"binary\.toml: not UTF-8 text"):
        load_sweep(binary)


def test_local_sweep_runs_skips_finished_runs_and_summarises(tmp_path):
    text = SWEEP.replace('seed = [0, 2]', 'seed = [0, 2]\nfail = [{set = {fail = "no"}}, {set = {fail = "yes"}}]')
    text = text.replace("[grid]\ntask = [\"abricot-abs\", \"abricot-inc\"]", "[grid]\ntask = [\"abricot-abs\"]")
    sweep = load_sweep(write_sweep(tmp_path, text))
    outcome = run_sweep(sweep, run_fn=stub_run)
    assert (outcome["ran"], outcome["failed"], outcome["done"]) == (4, 4, 0)
    failed = [r for r in sweep.runs if r.status == "failed"]
    assert all(r.error == "abricot-abs: deliberate failure" for r in failed)
    options_written = json.loads((sweep.runs[0].run_dir / "sweep_options.json").read_text())
    assert options_written["seed"] == 0 and options_written["task"] == "abricot-abs"

    table = pd.read_csv(outcome["summary_csv"])
    assert len(table) == 8 and set(table["status"]) == {"ran", "failed"}
    ok = table[table["status"] == "ran"].set_index("seed")
    assert ok.loc[2, "pearson"].tolist() == pytest.approx([0.7, 0.7])
    assert ok.loc[2, "pearson_ci_low"].tolist() == pytest.approx([0.6, 0.6])
    assert ok["spearman"].isna().all() and (ok["spearman_reason"] == "prediction is constant (every item: 1)").all()
    markdown = outcome["summary_md"].read_text()
    assert "0.7000 [0.6000, 0.8000]" in markdown and "undefined (prediction is constant (every item: 1))" in markdown
    assert "failed: abricot-abs: deliberate failure" in markdown

    # a rerun of the same file: finished runs are skipped (not called again), failed ones retried
    again = load_sweep(write_sweep(tmp_path, text))
    outcome = run_sweep(again, run_fn=stub_run)
    assert (outcome["done"], outcome["ran"], outcome["failed"]) == (4, 0, 4)
    assert all(len(calls(r.run_dir)) == 1 for r in again.runs if r.status == "done")
    # a new grid value: only its runs run
    grown = load_sweep(write_sweep(tmp_path, text.replace("seed = [0, 2]", "seed = [0, 2, 3]")))
    outcome = run_sweep(grown, run_fn=stub_run)
    assert (outcome["done"], outcome["ran"], outcome["failed"]) == (4, 2, 6)


def test_a_stopped_run_stops_the_sweep_and_a_damaged_folder_is_one_failed_row(tmp_path):
    from senso.core.errors import RunInterrupted

    sweep = load_sweep(write_sweep(tmp_path))
    calls_made = []

    def stopped(options):
        calls_made.append(options.out)
        raise RunInterrupted("SIGTERM interrupted the run before it finished", 15)

    with pytest.raises(RunInterrupted):
        run_sweep(sweep, run_fn=stopped)
    assert len(calls_made) == 1  # the other seven runs never started
    (sweep.runs[0].run_dir / "results.json").write_text('{"task": "abricot-abs", "metr')  # a killed copy
    outcome = run_sweep(load_sweep(write_sweep(tmp_path)), run_fn=stub_run)
    assert (outcome["done"], outcome["ran"], outcome["failed"]) == (0, 7, 1)
    markdown = outcome["summary_md"].read_text()
    assert "damaged run folder: results.json is not valid JSON" in markdown


def test_process_pool_runs_in_other_processes(tmp_path):
    sweep = load_sweep(write_sweep(tmp_path))
    outcome = run_sweep(sweep, workers=2, run_fn=stub_run)
    assert outcome["ran"] == 8 and outcome["failed"] == 0
    pids = {json.loads((r.run_dir / "results.json").read_text())["pid"] for r in sweep.runs}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2


def test_ray_sweep_on_a_local_two_cpu_instance(tmp_path, monkeypatch):
    ray = pytest.importorskip("ray", reason="Ray is not installed: pip install -e '.[ray]'")
    tests_dir = str(Path(__file__).parents[1])
    src_dir = str(Path(__file__).parents[2] / "src")
    # Ray's workers import the stub runner by name: they inherit this environment
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([tests_dir, src_dir, os.environ.get("PYTHONPATH", "")]))
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        sweep = load_sweep(write_sweep(tmp_path))
        outcome = run_sweep(sweep, ray_address="auto", run_fn=stub_run)
        assert outcome["ran"] == 8 and outcome["failed"] == 0
        assert outcome["ray_resources"]["CPU"] == 2
        pids = {json.loads((r.run_dir / "results.json").read_text())["pid"] for r in sweep.runs}
        assert os.getpid() not in pids
        again = run_sweep(load_sweep(write_sweep(tmp_path)), ray_address="auto", run_fn=stub_run)
        assert again["done"] == 8 and again["ran"] == 0
    finally:
        ray.shutdown()


def test_cli_sweep_reports_failed_runs_and_exits_nonzero(tmp_path):
    from typer.testing import CliRunner

    from senso.cli import app

    path = write_sweep(tmp_path, '[grid]\ntask = ["no-such-task"]\n')
    result = CliRunner().invoke(app, ["sweep", str(path), "--out", str(tmp_path / "o")])
    assert result.exit_code == 1
    assert "unknown task 'no-such-task'" in (tmp_path / "o" / "summary.md").read_text()


def test_end_to_end_sweep_with_the_real_abricot_runner(tmp_path, data_dir, monkeypatch):
    """The real `senso.api.run` (ABRICOT, likert-generate through a local scripted chat server)."""
    from openai_fakes import MODELS, FakeServer, chat_reply

    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))

    def reply(path, body):
        if path == "/models":
            return MODELS
        return 200, chat_reply(str(1 + len(body["messages"][0]["content"]) % 5)), {}  # a rule of the prompt

    with FakeServer(reply) as server:
        text = (f'[grid]\ntask = ["abricot-abs", "abricot-inc"]\n\n[options]\nsystem = "likert-generate"\n'
                f'model = "openai:tiny"\nbase_url = "{server.url}"\ndata_dir = "{data_dir}"\nlimit = 12\n')
        sweep = load_sweep(write_sweep(tmp_path, text))
        outcome = run_sweep(sweep)
        asked = len(server.posts("/chat/completions"))
    assert (outcome["ran"], outcome["failed"]) == (2, 0) and asked == 24, [r.error for r in sweep.runs]
    table = pd.read_csv(outcome["summary_csv"]).set_index("task")
    for planned in sweep.runs:
        results = json.loads((planned.run_dir / "results.json").read_text())
        assert results["n"] == 12 and results["official_protocol"] is False
        for name, estimate in results["metrics"].items():
            row = table.loc[planned.options.task]
            if estimate["value"] is None:
                assert row[f"{name}_reason"] == estimate["reason"]
            else:
                assert row[name] == pytest.approx(estimate["value"])
                assert row[f"{name}_ci_low"] == pytest.approx(estimate["ci_low"])
    header = outcome["summary_md"].read_text().splitlines()[2]
    assert header == ("| run | status | task | system | model | protocol | seed | n | pearson [95% CI] | spearman [95% CI] "
                      "| pearson_expected_vs_gold [95% CI] | pearson_expected_vs_mean [95% CI] | accuracy [95% CI] |")
