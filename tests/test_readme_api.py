"""The README's Python example, run verbatim: the block under "## Python API (from a notebook)"."""

from __future__ import annotations

import json
import re
import runpy
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
SECTION = "## Python API (from a notebook)"


def readme_example() -> str:
    text = README.read_text(encoding="utf-8")
    section = text[text.index(SECTION):]
    match = re.search(r"```python\n(.*?)```", section, flags=re.S)
    assert match, f"{README}: no python block under {SECTION!r}"
    return match.group(1)


def test_readme_python_example_runs_verbatim(tmp_path, data_dir, default_model_dir, monkeypatch, capsys):
    script = tmp_path / "example.py"
    script.write_text(readme_example(), encoding="utf-8")
    monkeypatch.setenv("SENSO_DATA_DIR", str(data_dir))
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    runpy.run_path(str(script), run_name="__main__")  # in this process: torch and senso are imported once
    lines = capsys.readouterr().out.splitlines()
    assert "correlation is undefined" in lines[0]
    assert lines[1].startswith("Estimate(value=") and "ci_low=" in lines[1]
    assert lines[2].split() == ["id", "lemma", "gold", "prediction", "expected"]
    float(lines[6])  # the in-memory model's Pearson (expected vs gold)
    top1, dcg = map(float, lines[7].split())
    assert 0 <= top1 <= 1 and 0 <= dcg <= 4
    difference, ci_low, ci_high, p_value = map(float, lines[8].split())  # senso.compare: LongestCaption - random
    assert ci_low <= difference <= ci_high and 0 < p_value <= 1
    assert lines[9].split() == ["task", "system", "metric", "value"]
    table = [line.split() for line in lines[10:-2]]
    assert {(row[0], row[2]) for row in table} >= {("abricot-abs", "pearson_expected_vs_gold"), ("abricot-inc", "ece"),
                                                   ("admire-a", "top1")}
    assert ["admire-a", "user:LongestCaption", "dcg", f"{dcg:.6f}"] in table
    run_dir = tmp_path / "runs" / "longest-caption"
    assert lines[-2] == str(Path("runs") / "longest-caption" / "report.html") and (run_dir / "report.html").is_file()
    results = json.loads((run_dir / "results.json").read_text())
    assert results["system"] == "user:LongestCaption" and results["metrics"]["top1"]["value"] == top1
    assert (run_dir / "samples.jsonl").read_text().count("\n") == 15
    exported = tmp_path / lines[-1]
    import datasets

    records = datasets.load_dataset(str(exported), "admire-a", split="latest")
    assert records.num_rows == 30 and set(records["system"]) == {"user:LongestCaption", "random"}
    metrics = datasets.load_dataset(str(exported), "results", split="latest").to_pandas()
    mine = metrics[(metrics.system == "user:LongestCaption") & (metrics.metric == "top1") & (metrics.group == "all")]
    assert list(mine.value) == [top1]
