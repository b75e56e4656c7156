"""The README's Python example, run verbatim: the block under "## Python API (from a notebook)"."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import senso

README = Path(__file__).resolve().parents[1] / "README.md"
SECTION = "## Python API (from a notebook)"


def readme_example() -> str:
    text = README.read_text(encoding="utf-8")
    section = text[text.index(SECTION):]
    match = re.search(r"```python\n(.*?)```", section, flags=re.S)
    assert match, f"{README}: no python block under {SECTION!r}"
    return match.group(1)


def test_readme_python_example_runs_verbatim(tmp_path, data_dir, default_model_dir):
    script = tmp_path / "example.py"
    script.write_text(readme_example(), encoding="utf-8")
    # the senso these tests import, wherever it is (installed, or a source tree on PYTHONPATH)
    source = str(Path(senso.__file__).resolve().parents[1])
    env = {**os.environ, "SENSO_DATA_DIR": str(data_dir),
           "PYTHONPATH": os.pathsep.join(filter(None, [source, os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert "correlation is undefined" in lines[0]
    assert lines[1].startswith("Estimate(value=") and "ci_low=" in lines[1]
    assert lines[2].split() == ["id", "lemma", "gold", "prediction", "expected"]
    float(lines[-2])  # the in-memory model's Pearson (expected vs gold)
    top1, dcg = map(float, lines[-1].split())
    assert 0 <= top1 <= 1 and 0 <= dcg <= 4
    run_dir = tmp_path / "runs" / "longest-caption"
    results = json.loads((run_dir / "results.json").read_text())
    assert results["system"] == "user:LongestCaption" and results["metrics"]["top1"]["value"] == top1
    assert (run_dir / "samples.jsonl").read_text().count("\n") == 15
    report = subprocess.run([sys.executable, "-m", "senso.cli", "report", str(run_dir)], env=env,
                            capture_output=True, text=True, timeout=300)
    assert report.returncode == 0, report.stderr[-3000:]
    assert (run_dir / "report.html").is_file()
