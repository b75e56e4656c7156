"""`senso export RUN ... --model-index`: the model card's `model-index:` block, read back by huggingface_hub
as the Hub reads it, with each value and CI from the runs' results.json."""

from __future__ import annotations

import pytest
import yaml

from senso.core.errors import SensoError
from senso.core.records import load_config, load_results
from senso.exporting.model_index import eval_results_files, model_index, model_index_yaml
from senso.reporting.run_page import metric_label


def test_one_result_per_task_with_values_cis_and_the_data_checksum(abricot_runs, admire_runs):
    from huggingface_hub import ModelCard

    index, notes = model_index([abricot_runs["A"], admire_runs["A0"], admire_runs["B0"]], model_name="my-model")
    text = model_index_yaml(index)
    card = ModelCard(f"---\n{text}---\n\n# my-model\n")  # what the Hub reads from a README's metadata
    assert card.data.model_name == "my-model"
    [block] = yaml.safe_load(text)["model-index"]
    results = block["results"]
    assert [r["task"]["name"] for r in results] == ["abricot-abs", "admire-a", "admire-b"]
    for result, run in zip(results, (abricot_runs["A"], admire_runs["A0"], admire_runs["B0"])):
        recorded = load_results(run)["metrics"]
        sha = load_config(run)["data_files"][0]["sha256"]
        assert result["dataset"]["revision"] == f"sha256:{sha}"
        values = {m["name"]: m for m in result["metrics"]}
        assert len(values) == sum(1 for e in recorded.values() if e.get("value") is not None)
        for metric in result["metrics"]:
            [estimate] = [e for name, e in recorded.items() if metric_label(name) == metric["name"]]
            assert metric["value"] == estimate["value"]
            assert metric["ci"]["low"] == estimate["ci_low"] and metric["ci"]["high"] == estimate["ci_high"]
    pearson = next(m for m in results[0]["metrics"] if m["type"] == "pearsonr")
    assert pearson["value"] == load_results(abricot_runs["A"])["metrics"]["pearson"]["value"]
    assert len(card.data.eval_results) == sum(len(r["metrics"]) for r in results)
    assert notes == []


def test_undefined_metrics_are_left_out_and_named(abricot_runs):
    index, notes = model_index([abricot_runs["const"]])
    assert any("pearson is left out of the model-index" in note for note in notes)
    assert all(m["type"] != "pearsonr" for m in index[0]["results"][0]["metrics"])


@pytest.mark.parametrize("runs, phrase", [
    (("A", "B"), "both runs of abricot-abs, split all"),
    ((), "give at least one run folder"),
])
def test_a_model_index_holds_one_result_per_task(abricot_runs, runs, phrase):
    with pytest.raises(SensoError, match=phrase):
        model_index([abricot_runs[r] for r in runs])


def test_runs_of_several_models_need_a_name(abricot_runs, admire_runs):
    with pytest.raises(SensoError, match="one model's: these runs are of"):
        model_index([abricot_runs["A"], admire_runs["A0"]])


def test_the_command_prints_the_block_on_stdout_and_notes_on_stderr(abricot_runs, capsys, monkeypatch):
    import sys

    from senso.cli import main

    monkeypatch.setattr(sys, "argv", ["senso", "export", str(abricot_runs["const"]), "--model-index",
                                      "--model-name", "my-model"])
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code in (0, None)
    captured = capsys.readouterr()
    [block] = yaml.safe_load(captured.out)["model-index"]
    assert block["name"] == "my-model" and block["results"][0]["task"]["name"] == "abricot-abs"
    assert "pearson is left out of the model-index" in " ".join(captured.err.split())


def test_eval_results_files_one_per_task_read_back_by_huggingface_hub(abricot_runs, admire_runs):
    from huggingface_hub._eval_results import parse_eval_result_entries

    runs = [abricot_runs["A"], admire_runs["A0"]]
    files, notes = eval_results_files(runs, "my-org/abricot", model_name="my-model")
    assert sorted(files) == [".eval_results/abricot-abs.yaml", ".eval_results/admire-a-en.yaml"]
    entries = parse_eval_result_entries(yaml.safe_load(files[".eval_results/abricot-abs.yaml"]))
    recorded = load_results(abricot_runs["A"])["metrics"]
    assert {e.task_id: e.value for e in entries} == {f"abricot-abs/{k}": v["value"] for k, v in recorded.items()
                                                     if v.get("value") is not None}
    assert all(e.dataset_id == "my-org/abricot" and "95% CI" in e.notes for e in entries) and notes == []
    with pytest.raises(SensoError, match="as ORG/NAME"):
        eval_results_files(runs, "abricot")
