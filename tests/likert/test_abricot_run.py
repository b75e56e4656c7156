import json

import pytest
from typer.testing import CliRunner

from senso.cli import app
from senso.likert import run as abricot_runner


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


@pytest.fixture()
def fake(monkeypatch, tmp_path):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))

    def install(constant):
        model = FakeModel(constant)
        monkeypatch.setattr(abricot_runner, "load_model", lambda options, cache: model)
        return model
    return install


def test_constant_answers_give_undefined_pearson(fake, data_dir, tmp_path):
    model = fake(constant=True)
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", "abricot-abs", "--data-dir", str(data_dir), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "undefined" in result.output and str(out) in result.output
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


def test_paper_protocol_limit_and_defined_metrics(fake, data_dir, tmp_path):
    model = fake(constant=False)
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", "abricot-inc", "--data-dir", str(data_dir), "--out", str(out),
                                      "--protocol", "paper", "--limit", "30"])
    assert result.exit_code == 0, result.output
    results = json.loads((out / "results.json").read_text())
    assert results["n"] == 30 and results["limit"] == 30 and len(model.contexts) == 30
    assert results["shots"] == 3 and len(results["exemplar_ids"]) == 30
    metric = results["metrics"]["pearson"]
    assert metric["ci_low"] <= metric["value"] <= metric["ci_high"]
    assert all(c.count("Assegna un valore") == 4 for c in model.contexts)


def test_unknown_system_is_a_clear_error(fake, data_dir, tmp_path):
    fake(constant=True)
    result = CliRunner().invoke(app, ["run", "abricot-abs", "--data-dir", str(data_dir), "--system", "nope"])
    assert result.exit_code != 0
    assert "unknown Likert system 'nope'" in str(result.exception)


def test_default_model_answers_one_everywhere_and_pearson_is_undefined(default_model_dir, data_dir, tmp_path,
                                                                       monkeypatch):
    """The real default run, on a subset: Gemma-3-270M base answers 1 under the 0-shot protocol."""
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", "abricot-abs", "--data-dir", str(data_dir), "--out", str(out),
                                      "--limit", "6", "--no-cache"])
    assert result.exit_code == 0, result.output
    results = json.loads((out / "results.json").read_text())
    assert results["model"]["model"]["spec"] == "gemma3-270m"
    assert results["model"]["model"]["fingerprint"].startswith("sha256:")
    assert results["metrics"]["pearson"]["value"] is None
    assert "predicted labels are constant (every item has value 1)" in results["metrics"]["pearson"]["reason"]
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert [s["prediction"] for s in samples] == [1] * 6


def test_several_tasks_in_one_run_write_one_folder_each_under_out_and_are_placed(fake, data_dir, tmp_path):
    model = fake(constant=False)
    out = tmp_path / "both"
    result = CliRunner().invoke(app, ["run", "abricot-abs", "abricot-inc", "--data-dir", str(data_dir), "--out", str(out),
                                      "--limit", "10"])
    assert result.exit_code == 0, result.output
    for task in ("abricot-abs", "abricot-inc"):
        results = json.loads((out / task / "results.json").read_text())
        assert results["task"] == task and results["n"] == 10
    assert len(model.contexts) == 20  # one model answered both tasks
    assert result.output.count("Published Pearson r on") == 2  # each run placed beside the published figures


def test_several_tasks_are_all_checked_before_the_first_runs(fake, data_dir, tmp_path):
    model = fake(constant=False)
    out = tmp_path / "bad"
    for argv, phrase in ((["abricot-abs", "abricot-abs"], "named twice"),
                         (["abricot-abs", "no-such-task"], "unknown task 'no-such-task'"),
                         (["abricot-abs", "admire-a", "--protocol", "paper"], "admire-a does not use it")):
        result = CliRunner().invoke(app, ["run", *argv, "--data-dir", str(data_dir), "--out", str(out)])
        assert result.exit_code != 0 and phrase in str(result.output) + str(result.exception), (argv, result.output)
    assert model.contexts == [] and not out.exists()  # nothing ran, no run folder was written
