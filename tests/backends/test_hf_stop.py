"""A stop that stops: SIGTERM inside a long forward pass of a real `senso run` ends it within seconds, and the
items finished before it are kept in the response cache, so the same command resumes without computing them."""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import senso
from tiny_lm import save_tiny_lm

REPO = Path(__file__).resolve().parents[2]
LONG_TOKENS = 1200  # the long item's input; the short ones are a few dozen tokens
EXIT_BOUND_S = 10.0  # from SIGTERM to the process's end, on a loaded 2-core machine
MARKER = "senso-test: inside the long pass"
CHILD = """
import sys, time, torch

LONG = int(sys.argv.pop(1))


def hold(module, args):  # inside the long row's pass, between two modules: says so, then runs on until stopped
    hidden = args[0] if args else None
    if torch.is_tensor(hidden) and hidden.dim() == 3 and hidden.shape[1] >= LONG:
        print("%s", file=sys.stderr, flush=True)
        while True:
            time.sleep(0.01)


torch.nn.modules.module.register_module_forward_pre_hook(hold)
from senso.cli import main
sys.argv = ["senso", *sys.argv[1:]]
main()
""" % MARKER
TEMPLATE = '''name = "long-items"
data = "items.csv"
scale = [1, 5]
gold_range = [1, 5]
template = """Quanto è astratta la parola {word} nella frase seguente?
{text}
"""

[columns]
group = "lemma"
'''


def task_file(folder: Path) -> Path:
    words = ["cane", "gatto", "topo", "orso", "lupo"]
    rows = [{"id": f"corto-{w}", "text": f"Il {w} dorme.", "word": w, "gold": 1 + i % 5, "lemma": w}
            for i, w in enumerate(words)]
    rows.append({"id": "lungo", "text": "Il cane " + "1 " * LONG_TOKENS + "corre.", "word": "cane", "gold": 3,
                 "lemma": "cane"})
    with (folder / "items.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    (folder / "long-items.toml").write_text(TEMPLATE, encoding="utf-8")
    return folder / "long-items.toml"


def test_sigterm_inside_a_long_pass_ends_the_run_in_seconds_and_a_rerun_computes_only_the_unfinished(tmp_path,
                                                                                                  monkeypatch):
    model = save_tiny_lm(tmp_path / "tiny", "llama", max_positions=4 * LONG_TOKENS)
    task = task_file(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "SENSO_CACHE_DIR": str(tmp_path / "cache"),
           "SENSO_OFFLINE": "1", "OMP_NUM_THREADS": "1", "COLUMNS": "200"}
    run = ["run", str(task), "--model", f"hf:{model}", "--batch-size", "64"]
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))  # the rerun, in this process
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(LONG_TOKENS), *run, "--out", str(tmp_path / "a")],
                            env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        seen = []
        for line in proc.stderr:  # waits for the state: the long pass has begun
            seen.append(line)
            if line.strip() == MARKER:
                break
        assert seen and seen[-1].strip() == MARKER, "".join(seen)
        proc.send_signal(signal.SIGTERM)
        stopped = time.monotonic()
        out, err = proc.communicate(timeout=EXIT_BOUND_S)
        took = time.monotonic() - stopped
    finally:
        proc.kill()
        proc.wait()
    message = " ".join((out + err).split())
    assert proc.returncode == 143, message
    assert took < EXIT_BOUND_S and "Traceback" not in message
    assert "SIGTERM interrupted the run before it finished" in message and "run the same command again" in message

    again = senso.evaluate(task, model=f"hf:{model}", batch_size=64, out=tmp_path / "b")  # the same run, resumed
    assert again.n == 6
    assert (again.record.extra["cache"]["hits"], again.record.extra["cache"]["misses"]) == (5, 1)  # 5 were finished
