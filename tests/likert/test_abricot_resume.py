"""A real `senso run` process killed with SIGKILL midway resumes without recomputing finished items."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from typer.testing import CliRunner

from senso.backends.hf import PASS_ROWS
from senso.cli import app

REPO = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent("""
    import sys
    from senso.backends import hf

    original = hf.HFCausalLM.loglikelihood_choices

    def held(self, prompts, batch_size=8, progress=None, on_batch=None):
        def tick(done):  # each batch is stored, then the run waits for a line on stdin (none: it goes on)
            if on_batch:
                on_batch(done)
            sys.stdin.readline()
        return original(self, prompts, batch_size=batch_size, progress=progress, on_batch=tick)

    hf.HFCausalLM.loglikelihood_choices = held
    from senso.cli import main
    sys.argv = ["senso", *sys.argv[1:]]
    main()
""")


def cached_items(cache_file: Path) -> int:
    if not cache_file.exists():
        return 0
    try:
        with sqlite3.connect(cache_file, timeout=1) as conn:
            return conn.execute("SELECT COUNT(*) FROM responses WHERE namespace='loglik'").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def senso(args, env, held=False):
    """A `senso run` process; `held`: it stops after its first stored batch until killed (else it never waits)."""
    return subprocess.Popen([sys.executable, "-c", CHILD, *args], env=env, cwd=REPO,
                            stdin=subprocess.PIPE if held else subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)


def finished(proc) -> None:
    output = proc.communicate(timeout=300)[0].decode()
    assert proc.returncode == 0, output


def kill_after_four_items(proc, cache_file: Path) -> None:
    """Waits until the held run has stored its first batch (4 items), then kills it there."""
    deadline = time.time() + 300  # a limit for a broken test only
    while cached_items(cache_file) < 4 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, proc.stdout.read().decode()


def test_sigkill_midway_then_rerun_recomputes_nothing_finished(tiny_model, data_dir, tmp_path, monkeypatch):
    env = {**os.environ, "SENSO_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(REPO / "src"),
           "OMP_NUM_THREADS": "1"}
    cache_file = tmp_path / "cache" / "responses.sqlite"
    args = ["run", "abricot-abs", "--model", f"hf:{tiny_model}", "--data-dir", str(data_dir),
            "--limit", "24", "--batch-size", "4"]
    fresh = senso([*args, "--out", str(tmp_path / "fresh"), "--no-cache"], env)  # touches no cache: runs alongside
    kill_after_four_items(senso([*args, "--out", str(tmp_path / "killed")], env, held=True), cache_file)
    done_before = cached_items(cache_file)
    # --batch-size 4: the passes that scored them stored together, at least 4 rows (the tiny tokenizer's prompts
    # are a few hundred tokens: up to `pass_rows(width)` of them a pass, at most PASS_ROWS)
    assert 4 <= done_before < 4 + PASS_ROWS
    assert not (tmp_path / "killed" / "results.json").exists()

    finished(senso([*args, "--out", str(tmp_path / "resumed")], env))
    resumed = json.loads((tmp_path / "resumed" / "results.json").read_text())
    assert resumed["cache"]["hits"] == done_before
    assert resumed["cache"]["misses"] == 24 - done_before
    assert resumed["token_counts"]["tokens_computed"] > 0

    monkeypatch.setenv("SENSO_CACHE_DIR", env["SENSO_CACHE_DIR"])  # all answers cached: in process, no process start
    again = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "again")])
    assert again.output and again.exit_code == 0, again.output
    cached = json.loads((tmp_path / "again" / "results.json").read_text())
    assert cached["cache"]["hits"] == 24 and cached["token_counts"]["tokens_computed"] == 0
    finished(fresh)
    samples = {}
    for name in ("resumed", "fresh"):
        samples[name] = [json.loads(line) for line in (tmp_path / name / "samples.jsonl").read_text().splitlines()]
    for a, b in zip(samples["resumed"], samples["fresh"]):
        assert a["id"] == b["id"] and a["prediction"] == b["prediction"]
        assert a["logprobs"] == b["logprobs"]  # half from the cache, half computed in other batches: the same floats
    fresh_results = json.loads((tmp_path / "fresh" / "results.json").read_text())
    assert "pearson_expected_vs_gold" in fresh_results["metrics"]
    assert resumed["metrics"] == cached["metrics"] == fresh_results["metrics"]
