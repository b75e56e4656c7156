import json

import pytest
from typer.testing import CliRunner

import senso
from senso.cli import app


class FakeModel:
    """Log-probs from a rule, so every metric has a known value; records what it was asked."""

    spec = "fake:rule"
    fingerprint = "fake-fingerprint"

    def __init__(self, constant: bool):
        self.constant = constant
        self.contexts = []

    def describe(self):
        return {"spec": self.spec, "fingerprint": self.fingerprint}

    def loglikelihood_choices(self, prompts, batch_size=8, progress=None):
        out = []
        for p in prompts:
            self.contexts.append(p.context)
            favourite = 0 if self.constant else len(p.context) % 5
            out.append([-1.0 if k == favourite else -3.0 for k in range(5)])
        if progress:
            progress(len(prompts))
        return out


@pytest.fixture(autouse=True)
def own_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))


def test_constant_answers_give_undefined_pearson(data_dir, tmp_path):
    model = FakeModel(constant=True)
    out = tmp_path / "run"
    run = senso.evaluate("abricot-abs", model=model, data_dir=data_dir, out=out)
    assert run.metrics["pearson"].value is None and run.run_dir == out
    results = json.loads((out / "results.json").read_text())
    assert results["n"] == 127 and results["protocol"] == "calamita"
    pearson = results["metrics"]["pearson"]
    assert pearson["value"] is None and "predicted labels are constant" in pearson["reason"]
    # accuracy = share of gold label 1 (7 of 127 items for abstractness)
    assert results["metrics"]["accuracy"]["value"] == pytest.approx(7 / 127)
    assert set(results["metrics_by_group"]) == {"opensub", "wikihow"}
    assert results["model"]["model"]["fingerprint"] == "fake-fingerprint"
    assert results["prompt_template_hash"] and results["versions"]["senso"]
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert len(samples) == 127 and samples[0]["prediction"] == 1 and len(samples[0]["logprobs"]) == 5
    assert json.loads((out / "config.json").read_text())["task"] == "abricot-abs"
    assert len(model.contexts) == 127 and all(c.startswith("Assegna un valore di astrazione") for c in model.contexts)


def test_paper_protocol_limit_and_defined_metrics(data_dir, tmp_path):
    model = FakeModel(constant=False)
    out = tmp_path / "run"
    senso.evaluate("abricot-inc", model=model, data_dir=data_dir, out=out, protocol="paper", limit=30)
    results = json.loads((out / "results.json").read_text())
    assert results["n"] == 30 and results["limit"] == 30 and len(model.contexts) == 30
    assert results["shots"] == 3 and len(results["exemplar_ids"]) == 30
    metric = results["metrics"]["pearson"]
    assert metric["ci_low"] <= metric["value"] <= metric["ci_high"]
    assert all(c.count("Assegna un valore") == 4 for c in model.contexts)


def test_unknown_system_is_a_clear_error(data_dir, tmp_path):
    result = CliRunner().invoke(app, ["run", "abricot-abs", "--data-dir", str(data_dir), "--system", "nope"])
    assert result.exit_code != 0
    assert "unknown Likert system 'nope'" in str(result.exception)


def test_the_command_line_prints_the_table_and_the_run_folder(tiny_model, data_dir, tmp_path):
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", "abricot-abs", "--data-dir", str(data_dir), "--out", str(out),
                                      "--model", f"hf:{tiny_model}", "--limit", "12"])
    assert result.exit_code == 0, result.output
    assert "abricot-abs · likert-lm · calamita · n=12" in result.output and f"run folder: {out}" in result.output
    assert "WARNING: PARTIAL: the first 12 of the 127 items" in result.output


def test_default_model_answers_one_everywhere_and_pearson_is_undefined(default_model_in_own_cache, data_dir, tmp_path):
    """The real default run, on a subset: Gemma-3-270M base answers 1 under the 0-shot protocol."""
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", "abricot-abs", "--data-dir", str(data_dir), "--out", str(out),
                                      "--limit", "6", "--no-cache"])
    assert result.exit_code == 0, result.output
    results = json.loads((out / "results.json").read_text())
    assert results["model"]["model"]["spec"] == "gemma3-270m"
    assert results["model"]["model"]["fingerprint"].startswith("weights:")
    assert results["metrics"]["pearson"]["value"] is None
    assert "predicted labels are constant (every item has value 1)" in results["metrics"]["pearson"]["reason"]
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert [s["prediction"] for s in samples] == [1] * 6


def test_several_tasks_in_one_run_write_one_folder_each_under_out_and_are_placed(tiny_model, data_dir, tmp_path,
                                                                                 monkeypatch):
    from senso.backends import hf

    loads = []
    original = hf.HFCausalLM._setup
    monkeypatch.setattr(hf.HFCausalLM, "_setup", lambda self, *a, **k: (loads.append(1), original(self, *a, **k))[1])
    out = tmp_path / "both"
    result = CliRunner().invoke(app, ["run", "abricot-abs", "abricot-inc", "--data-dir", str(data_dir), "--out", str(out),
                                      "--limit", "10", "--model", f"hf:{tiny_model}"])
    assert result.exit_code == 0, result.output
    for task in ("abricot-abs", "abricot-inc"):
        results = json.loads((out / task / "results.json").read_text())
        assert results["task"] == task and results["n"] == 10
    assert len(loads) == 1  # one model load answered both tasks
    assert result.output.count("Published Pearson r on") == 2  # each run placed beside the published figures


def test_several_tasks_are_all_checked_before_the_first_runs(data_dir, tmp_path):
    out = tmp_path / "bad"
    for argv, phrase in ((["abricot-abs", "abricot-abs"], "named twice"),
                         (["abricot-abs", "no-such-task"], "unknown task 'no-such-task'"),
                         (["abricot-abs", "admire-a", "--protocol", "paper"], "admire-a does not use it")):
        result = CliRunner().invoke(app, ["run", *argv, "--data-dir", str(data_dir), "--out", str(out)])
        assert result.exit_code != 0 and phrase in str(result.output) + str(result.exception), (argv, result.output)
    assert not out.exists()  # nothing ran, no run folder was written
