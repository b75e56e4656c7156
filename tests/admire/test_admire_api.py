"""AdMIRe through the Python API and the one evaluation loop: a researcher's own system, typed options, and
every option checked before anything runs."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import senso
from senso.admire.systems.registry import SYSTEMS, check_system
from senso.cli import app
from senso.core.errors import SensoError
from senso.catalog import RunOptions
from senso.core.params import Text
from senso.core.records import load_results, load_samples

pytestmark = pytest.mark.real_data


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "senso-cache"))
    monkeypatch.setenv("COLUMNS", "200")


class MyRanker:
    """A researcher's ranker: the images whose caption shares most words with the sentence first."""

    name = "word-overlap"

    def rank(self, items):
        def overlap(item, image):
            return len(set(item.sentence.lower().split()) & set(image.caption.lower().split()))

        return [[i.name for i in sorted(item.images, key=lambda image: -overlap(item, image))] for item in items]

    def describe(self):
        return {"score": "shared words"}


def test_a_researchers_ranker_through_senso_evaluate(data_dir, tmp_path):
    result = senso.evaluate("admire-a", system=MyRanker(), split="dev", data_dir=data_dir, out=tmp_path / "mine")
    assert result.system == "user:word-overlap" and result.n == 15 and set(result.metrics) >= {"top1", "dcg"}
    assert result.results["model"]["user_supplied"] is True and result.results["model"]["score"] == "shared words"
    assert result.results["family"] == "admire" and result.results["task_kind"] == "admire-a"
    samples = load_samples(tmp_path / "mine")
    assert [s["predicted_order"] for s in samples] == [list(s.predicted_order) for s in result.samples]
    assert (tmp_path / "mine" / "submission_EN.tsv").is_file() and "extra" not in samples[0]
    assert load_results(tmp_path / "mine")["metrics"]["dcg"]["value"] == result.metrics["dcg"].value
    with pytest.raises(SensoError, match=r"embedder is not used by system user:word-overlap \(it reads none"):
        senso.evaluate("admire-a", system=MyRanker(), embedder="usem3", data_dir=data_dir)
    with pytest.raises(SensoError, match=r"unknown keyword hedge= for admire-a; valid keywords: .*\(system MyRanker takes none of its own\)"):
        senso.evaluate("admire-a", system=MyRanker(), hedge=False, data_dir=data_dir)


def test_a_researchers_chooser_and_classifier(data_dir):
    class First:
        def choose(self, items):
            return [(item.candidates[0].name, "literal") for item in items]

    class Idiomatic:
        def classify(self, items):
            return ["idiomatic" for _ in items]

    b = senso.evaluate("admire-b", system=First(), split="train", data_dir=data_dir)
    assert b.system == "user:First" and b.metrics["sentence_type_accuracy"].value == pytest.approx(7 / 20)
    sense = senso.evaluate("admire-sense", system=Idiomatic(), split="dev", data_dir=data_dir)
    assert sense.metrics["sense_accuracy"].value == pytest.approx(7 / 15)  # dev: 7 idiomatic, 8 literal
    with pytest.raises(SensoError, match="has no rank\\(items\\) method"):
        senso.evaluate("admire-a", system=Idiomatic(), data_dir=data_dir)


def test_a_set_value_is_typed_once_and_changes_only_itself():
    row = SYSTEMS["a"]["sense-pipeline"]
    default = check_system(row, RunOptions(task="admire-a"))
    off = check_system(row, RunOptions(task="admire-a", system_options={"hedge": Text("off")}))
    assert default["hedge"] is True and off["hedge"] is False
    assert {k: v for k, v in off.items() if k != "hedge"} == {k: v for k, v in default.items() if k != "hedge"}
    fitted = check_system(SYSTEMS["a"]["fitted-pipeline"], RunOptions(task="admire-a"))
    assert (fitted["roles"], fitted["sense"], fitted["sense_roles"]) == ("learned", "learned", True)
    assert {k: v for k, v in fitted.items() if k not in ("roles", "sense", "sense_roles")} == \
        {k: v for k, v in default.items() if k not in ("roles", "sense", "sense_roles")}


def test_an_unknown_option_lists_the_valid_ones_with_their_types(data_dir):
    result = CliRunner().invoke(app, ["run", "admire-a", "--system", "sense-pipeline", "--set", "hedges=false",
                                      "--data-dir", str(data_dir)], terminal_width=200)
    assert result.exit_code != 0
    message = str(result.exception)
    assert "unknown option --set hedges for --system sense-pipeline; valid: --meaning (auto | wordnet" in message
    assert "--set hedge (bool)" in message and "--set word_centre (float)" in message
    assert message.endswith("; did you mean --set hedge?")
    with pytest.raises(SensoError, match=r"unknown keyword hedges= \(did you mean hedge=\?\) for admire-a; .*system sense-pipeline's own: meaning \(auto"):
        senso.evaluate("admire-a", system="sense-pipeline", hedges=False, data_dir=data_dir)
    with pytest.raises(SensoError, match=r"--set weights expects a number, got 'heavy'"):
        check_system(SYSTEMS["a"]["fusion"], RunOptions(task="admire-a", system_options={"weights": Text("1,heavy")}))
    with pytest.raises(SensoError, match=r"weights expects a list of floats, got the string '1,2'"):
        senso.evaluate("admire-a", system="fusion", weights="1,2", data_dir=data_dir)


def test_every_task_is_checked_before_the_first_runs(data_dir, tmp_path):
    parent = tmp_path / "runs"
    result = CliRunner().invoke(app, ["run", "admire-sense", "admire-a", "--split", "dev+dev", "--data-dir",
                                      str(data_dir), "--out", str(parent)], terminal_width=200)
    assert result.exit_code != 0 and "split 'dev+dev' names a split twice" in str(result.exception)
    assert not parent.exists()  # admire-sense, checked first, did not run


@pytest.mark.parametrize("system, flag, reads", [
    ("random", ("--model", "hf:google/gemma-3-270m"), "none of them"),
    ("caption-similarity", ("--image-model", "hf:openai/clip-vit-base-patch32"), "--embedder"),
    ("clip-rank", ("--embedder", "usem3"), "--image-model"),
])
def test_a_model_flag_the_system_does_not_read_is_refused(data_dir, tmp_path, system, flag, reads):
    result = CliRunner().invoke(app, ["run", "admire-a", "--system", system, *flag, "--data-dir", str(data_dir),
                                      "--out", str(tmp_path / "r")], terminal_width=200)
    assert result.exit_code != 0
    assert f"{flag[0]} is not used by --system {system} (it reads {reads}): leave it out" in str(result.exception)
    assert not (tmp_path / "r").exists()
