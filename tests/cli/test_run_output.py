"""What `senso run` and `senso showcase` print, pinned on fixture run folders (no model): 80 columns, no cell on
more than two lines, undefined values as one mark with their reason once; --quiet and --json."""

from __future__ import annotations

import json
import re

import pytest
from rich.console import Console
from typer.testing import CliRunner

from run_fixtures import CONSTANT, likert_results, main_job_runs, write_run
from senso.cli import app

WIDTH = 80


def _table_rows(text: str, end: str) -> list[str]:
    """The body lines of the summary table: from the rule under its header to the line that starts with `end`."""
    lines = text.splitlines()
    start = next(k for k, line in enumerate(lines) if set(line.strip()) == {"─"}) + 1
    return lines[start:start + next(k for k, line in enumerate(lines[start:]) if line.startswith(end))]


def test_the_summary_fits_80_columns_with_each_cell_on_at_most_two_lines(tmp_path, capsys):
    from senso.cli import _print_summary

    runs = main_job_runs(tmp_path / "showcase")
    _print_summary(runs, title="senso showcase")
    text = capsys.readouterr().out
    assert max(len(line) for line in text.splitlines()) <= WIDTH, text
    body = _table_rows(text, "Compare like with like")
    rows = [k for k, line in enumerate(body) if line.startswith(("abricot-", "admire-"))]
    assert len(rows) == 5 and len(body) <= 10, text  # five runs, each on two lines at most
    assert all(b - a <= 2 for a, b in zip(rows, rows[1:])), text
    assert body[rows[0]].split() == ["abricot-abs", "likert-lm", "0-shot", "r", "undefined¹", "0.50"], text
    assert text.count(CONSTANT.split(",")[0]) == 1  # the reason once, as footnote ¹
    assert f"¹ {CONSTANT[:40]}" in text and "² the best text-only en Top-1 on the test leaderboard" in text
    assert "0.80 [0.74, 0.84]" in text and "leave-one-lemma-out" in text and "5-fold CV by" in text
    assert "0.50\n" in body[rows[0]] + "\n" and body[rows[0] + 1].strip() == "(0-shot)"
    assert body[rows[2] + 1].endswith("(3-shot)") and "0.87²" in body[rows[4]]
    assert "a leave-one-lemma-out r is a supervised system's" in re.sub(r"\s+", " ", text)
    assert f"Run folders in {tmp_path / 'showcase'}/" in text.replace("\n", "").replace("in /", "in/").replace("in/", "in /")
    assert "admire-a-fitted-pipeline; `senso report FOLDER`" in text


def test_likert_table_shows_domains_only_where_they_fit(tmp_path, monkeypatch):
    from senso.core.stats import Estimate
    from senso.likert import tables

    results = likert_results()
    metrics = {k: Estimate(**v) for k, v in results["metrics"].items()}
    by_domain = {d: {k: Estimate(**v) for k, v in m.items()} for d, m in results["metrics_by_group"].items()}

    def draw(width: int, by_group: bool) -> str:
        console = Console(width=width, record=True, file=open("/dev/null", "w"))
        monkeypatch.setattr(tables, "terminal", lambda **_: console)
        tables.print_summary("abricot-abs", "likert-lm", results, metrics, by_domain, 127, by_group)
        return console.export_text()

    narrow = draw(WIDTH, False)
    assert "opensub" not in narrow and max(map(len, narrow.splitlines())) <= WIDTH
    assert narrow.count("undefined¹") == 2 and narrow.count("¹ the predicted labels") == 1
    assert "-0.018 [-0.205, 0.150]" in narrow  # a value and its interval on one line
    wide = draw(200, False)
    assert "opensub" in wide and "wikihow" in wide and wide.count("undefined¹") == 6
    asked = draw(WIDTH, True)  # --by-domain at 80 columns: one table per domain
    assert "abricot-abs · likert-lm · calamita · n=127 · opensub" in asked
    assert max(map(len, asked.splitlines())) <= WIDTH and asked.count("¹ the predicted labels") == 1


def _tiny_run(tiny_model, data_dir, out, *flags):
    return CliRunner().invoke(app, ["run", "abricot-abs", "--data-dir", str(data_dir), "--out", str(out),
                                    "--model", f"hf:{tiny_model}", "--limit", "4", *flags])


@pytest.fixture
def own_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))


def test_quiet_prints_the_summary_line_and_the_run_folder(own_cache, tiny_model, data_dir, tmp_path):
    out = tmp_path / "run"
    result = _tiny_run(tiny_model, data_dir, out, "--quiet")
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) <= 3, result.stdout
    assert lines[0].startswith("abricot-abs · likert-lm · 0-shot · r ") and lines[-1] == f"run folder: {out}"
    assert "┃" not in result.output and "Published Pearson r" not in result.output


def test_json_prints_results_json_on_stdout_and_the_rest_on_stderr(own_cache, tiny_model, data_dir, tmp_path):
    out = tmp_path / "run"
    result = _tiny_run(tiny_model, data_dir, out, "--json")
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    assert printed == json.loads((out / "results.json").read_text())
    assert "run folder:" in result.stderr and "PARTIAL" in result.stderr


def test_json_with_several_tasks_is_a_list(own_cache, tiny_model, data_dir, tmp_path):
    result = CliRunner().invoke(app, ["run", "abricot-abs", "abricot-inc", "--data-dir", str(data_dir), "--out",
                                      str(tmp_path / "both"), "--model", f"hf:{tiny_model}", "--limit", "3", "--json"])
    assert result.exit_code == 0, result.output
    assert [r["task"] for r in json.loads(result.stdout)] == ["abricot-abs", "abricot-inc"]


def test_run_help_groups_options_in_panels_and_ends_with_examples():
    result = CliRunner().invoke(app, ["run", "--help"], terminal_width=WIDTH)
    assert result.exit_code == 0
    panels = re.findall(r"╭─ (.+?) ─", result.output)
    assert panels == ["Arguments", "Options", "data", "system", "model", "protocol", "AdMIRe system parts", "output",
                      "performance"]
    assert "--quiet" in result.output and "--json" in result.output and "--by-domain" in result.output
    assert result.output.rstrip().splitlines()[-1].strip().startswith("senso showcase")
    assert max(len(line) for line in result.output.splitlines()) <= WIDTH


def test_systems_name_prints_each_option_as_a_block_within_80_columns():
    result = CliRunner().invoke(app, ["systems", "fitted-pipeline"], terminal_width=WIDTH, env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "fitted-pipeline (admire-a)" and max(map(len, lines)) <= WIDTH
    assert "  --set hedge=VALUE  (bool; default true)" in lines
    hedge = lines.index("  --set hedge=VALUE  (bool; default true)")
    assert lines[hedge + 1].startswith("      the structure ranker hedges")
    assert "  --sense  (context-similarity | gloss-similarity" in result.output
    assert "prompt-literal-first" in result.output  # a value is never cut at its hyphens


@pytest.mark.parametrize("task, flags", [("admire-a", ["--system", "random"]), ("admire-b", ["--system", "random"]),
                                         ("admire-sense", ["--sense", "gold"])])
def test_json_works_for_every_admire_task(own_cache, data_dir, tmp_path, task, flags):
    out = tmp_path / task
    result = CliRunner().invoke(app, ["run", task, *flags, "--split", "dev", "--limit", "3", "--data-dir",
                                      str(data_dir), "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == json.loads((out / "results.json").read_text())
    assert result.stderr.splitlines()[-1] == f"run folder: {out}"


def test_showcase_ends_with_the_summary_within_80_columns(own_cache, tiny_model, data_dir, tmp_path, monkeypatch):
    """The main job's wiring on a small stand-in job list (the real one runs the built-in model on every item)."""
    import senso.cli

    monkeypatch.setattr(senso.cli.run, "MAIN_JOB", (
        ("abricot-abs", None, {"model": f"hf:{tiny_model}", "limit": 5}),
        ("abricot-inc", None, {"model": f"hf:{tiny_model}", "limit": 5}),
        ("admire-a", "random", {"lang": "en", "split": "dev"})))
    out = tmp_path / "showcase"
    result = CliRunner().invoke(app, ["showcase", "--data-dir", str(data_dir), "--out", str(out)],
                                env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("senso showcase") and max(map(len, lines)) <= WIDTH, result.stdout
    assert len(lines) <= 24  # a screen
    assert sorted(p.name for p in out.iterdir()) == ["abricot-abs", "abricot-inc", "admire-a-random"]
    assert "abricot-abs · likert-lm: done in" in result.stderr and "training-free" in result.stdout


def test_a_quiet_run_with_an_undefined_r_is_three_lines(tmp_path, capsys):
    from senso.cli import _print_summary_line, out

    run = write_run(tmp_path / "run", likert_results())
    _print_summary_line(run, out)
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["abricot-abs · likert-lm · 0-shot · r undefined¹ · best published 0.50 (0-shot)",
                     f"¹ {CONSTANT}", f"run folder: {run}"]


def test_a_run_without_wordnet_says_so_in_the_summary_footnote(tmp_path, capsys):
    from run_fixtures import admire_results

    from senso.admire.systems.registry import NO_WORDNET
    from senso.cli import _print_summary

    runs = main_job_runs(tmp_path / "showcase")
    results = {**admire_results(), "warnings": [NO_WORDNET], "score_warnings": [NO_WORDNET]}
    (runs[-1] / "results.json").write_text(json.dumps(results), encoding="utf-8")
    _print_summary(runs, title="senso showcase")
    text = capsys.readouterr().out
    assert max(len(line) for line in text.splitlines()) <= WIDTH, text
    admire = next(line for line in text.splitlines() if line.startswith("admire-a"))
    mark = admire.split("Top-1 0.60")[1][0]
    assert mark in "¹²³⁴⁵" and f"{mark} NO WORDNET: no WordNet database was found" in text
    assert "senso.admire.wordnet_install" in re.sub(r"\s+", " ", text)


def test_p_values_below_the_printed_precision():
    from senso.core.tables import p_value_text

    assert [p_value_text(p) for p in (0.0, 0.0004, 0.001, 0.0426, 1.0, None)] == [
        "< 0.001", "< 0.001", "0.001", "0.043", "1.000", "-"]
    assert p_value_text(0.00004, 4) == "< 0.0001"
