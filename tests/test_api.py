"""The Python API as a notebook uses it: `senso.evaluate(...)` returns a typed result, takes a model already
in memory (never reloaded) or a researcher's own system, prints nothing unless asked, and names arguments
(not flags) in its errors; a saved result is a run folder `senso report` renders."""

from __future__ import annotations

import json

import pytest

import senso
from senso.core.evaluation import EvalResult
from senso.core.stats import Estimate
from senso.likert.run import LikertSample


class MeanOfTraining:
    """A Likert system in a few lines: every item gets the mean gold of the other groups (a number on the
    gold scale), except the first group, which gets a distribution over the labels."""

    name = "mean-of-others"

    def predict(self, items, task):
        first = items[0].group
        answers = []
        for item in items:
            others = [o.gold for o in items if o.group != item.group]
            if item.group == first:
                answers.append([0.1, 0.2, 0.4, 0.2, 0.1])
            else:
                answers.append(sum(others) / len(others))
        return answers

    def describe(self):
        return {"rule": "mean gold of the other groups"}


def test_a_user_written_likert_system_runs_and_its_saved_folder_gets_a_report(data_dir, tmp_path, capfd):
    result = senso.evaluate("abricot-abs", system=MeanOfTraining(), data_dir=data_dir, limit=24)
    assert isinstance(result, EvalResult) and result.system == "user:mean-of-others" and result.n == 24
    assert isinstance(result.metrics["pearson_expected_vs_mean"], Estimate)
    assert all(isinstance(s, LikertSample) for s in result.samples)
    first = [s for s in result.samples if s.lemma == result.samples[0].lemma]
    assert all(s.prediction == 3 and s.expected == pytest.approx(3.0) for s in first)  # argmax and mean of 0.1..0.1
    frame = result.to_pandas()
    assert list(frame["id"]) == [s.id for s in result.samples] and "expected" in frame.columns
    assert capfd.readouterr() == ("", "")  # quiet: nothing printed, not even by the libraries
    folder = result.save(tmp_path / "run")
    recorded = json.loads((folder / "results.json").read_text())
    assert recorded["model"]["user_supplied"] is True and recorded["model"]["rule"] == "mean gold of the other groups"
    assert recorded["task_kind"] == "likert" and recorded["command"].startswith("senso.evaluate('abricot-abs'")
    from senso.reporting import write_report

    page = write_report([folder]).read_text(encoding="utf-8")
    assert "user:mean-of-others" in page and "abricot-abs" in page


def test_a_transformers_model_in_memory_is_scored_without_loading_anything(tiny_model, data_dir, monkeypatch, capfd):
    from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedModel, PreTrainedTokenizerBase

    model = AutoModelForCausalLM.from_pretrained(tiny_model)
    tokenizer = AutoTokenizer.from_pretrained(tiny_model)
    capfd.readouterr()
    loads = []

    def counted(original):
        return classmethod(lambda cls, *a, **k: (loads.append((cls.__name__, a)), original.__func__(cls, *a, **k))[1])

    for owner in (AutoModelForCausalLM, AutoTokenizer, PreTrainedModel, PreTrainedTokenizerBase):
        monkeypatch.setattr(owner, "from_pretrained", counted(owner.__dict__.get("from_pretrained")
                                                              or getattr(owner, "from_pretrained")))
    result = senso.evaluate("abricot-inc", model=(model, tokenizer), data_dir=data_dir, limit=6, protocol="paper",
                            no_cache=True)
    assert loads == []
    described = result.results["model"]["model"]
    assert described["spec"].startswith("in-memory:") and described["fingerprint"].startswith("weights:")
    assert [len(s.logprobs) for s in result.samples] == [5] * 6 and result.results["shots"] == 3
    assert capfd.readouterr() == ("", "")


def test_the_same_model_by_spec_gives_the_same_scores(tiny_model, data_dir):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    by_spec = senso.evaluate("abricot-abs", model=f"hf:{tiny_model}", data_dir=data_dir, limit=5, no_cache=True)
    in_memory = senso.evaluate("abricot-abs", data_dir=data_dir, limit=5, no_cache=True,
                               model=(AutoModelForCausalLM.from_pretrained(tiny_model),
                                      AutoTokenizer.from_pretrained(tiny_model)))
    for a, b in zip(by_spec.samples, in_memory.samples):
        assert a.logprobs == pytest.approx(b.logprobs, abs=1e-5)


def test_progress_is_shown_only_when_asked(tiny_model, data_dir, capfd):
    senso.evaluate("abricot-abs", model=f"hf:{tiny_model}", data_dir=data_dir, limit=3, no_cache=True, progress=True)
    assert "abricot-abs [calamita]" in capfd.readouterr().err


def test_errors_name_the_argument_not_the_flag(data_dir):
    with pytest.raises(senso.SensoError) as limit:
        senso.evaluate("abricot-abs", data_dir=data_dir, limit=0)
    assert str(limit.value).startswith("limit must be at least 1") and "--" not in str(limit.value)
    with pytest.raises(senso.SensoError) as unknown:
        senso.evaluate("abricot-abs", system="embedding-ridge", data_dir=data_dir, alpha=1)
    assert "unknown keyword alpha= for abricot-abs" in str(unknown.value)
    assert "system embedding-ridge's own: features (comma-separated list); kind" in str(unknown.value)
    with pytest.raises(senso.SensoError, match="model= takes a spec"):
        senso.evaluate("abricot-abs", model=object(), data_dir=data_dir)


def test_typed_options_of_a_system_are_keywords(data_dir, monkeypatch, tmp_path):
    import numpy as np

    from senso.backends.embedders import Embedder

    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(Embedder, "_compute", lambda self, texts, kind: np.asarray(
        [[len(t) % 7, t.count("a"), len(kind)] for t in texts], dtype=np.float32))
    result = senso.evaluate("abricot-abs", system="embedding-ridge", embedder="st:fake", data_dir=data_dir,
                            features="sentence,target", kind="passage")
    assert result.config["system_options"] == {"features": ("sentence", "target"), "kind": "passage"}  # typed
    assert result.results["config"]["system_options"] == {"features": ["sentence", "target"], "kind": "passage"}
    assert result.results["model"]["features"] == ["sentence", "target"]


def test_tasks_and_systems_are_listed_with_their_options():
    names = {t.name for t in senso.tasks()}
    assert {"abricot-abs", "abricot-inc", "admire-a", "admire-b", "admire-sense"} <= names
    ridge = next(s for s in senso.systems() if s.name == "embedding-ridge")
    assert [o["name"] for o in ridge.options.describe()] == ["features", "kind"]
    assert senso.default_model_path().name.startswith("gemma-3-270m")
