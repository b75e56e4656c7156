"""`senso run abricot-* --system likert-generate`: a chat model behind a (local, scripted) server asked
for the digit; unparseable answers recorded and left out of the metrics; marked as not official."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from openai_fakes import MODELS, FakeServer, chat_reply
from senso.cli import app


def answering(rule):
    def reply(path, body):
        if path == "/models":
            return MODELS
        return 200, chat_reply(rule(body["messages"][0]["content"])), {}
    return reply


def run(tmp_path, server_url, *extra):
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", "abricot-abs", "--system", "likert-generate", "--model", "openai:tiny",
                                      "--base-url", server_url, "--limit", "6", "--out", str(out), *extra])
    return result, out


@pytest.fixture(autouse=True)
def isolated_cache(monkeypatch, tmp_path, data_dir):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SENSO_DATA_DIR", str(data_dir))


def test_generated_answers_are_parsed_recorded_and_marked_unofficial(tmp_path):
    answers = iter(["3", "Direi 4.", "boh", "2", "1 o 5", "5"])  # in item order: one request at a time
    with FakeServer(answering(lambda prompt: next(answers))) as server:
        result, out = run(tmp_path, server.url, "--model-args", "concurrency=1")
        asked = [body["messages"] for body in server.posts("/chat/completions")]
    assert result.exit_code == 0, result.output
    assert all(m[0]["role"] == "user" and m[0]["content"].startswith("Assegna un valore di astrazione") for m in asked)
    assert all(m[0]["content"].endswith("senza aggiungere nessuna spiegazione") for m in asked)
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert [s["prediction"] for s in samples] == [3, 4, None, 2, None, 5]
    assert samples[2]["answer"] == "boh" and samples[2]["unparseable"] == "no choice label in the answer"
    assert "several choice labels" in samples[4]["unparseable"]
    results = json.loads((out / "results.json").read_text())
    assert results["official_protocol"] is False and results["model"]["official_protocol"] is False
    assert results["model"]["model"]["served_model"] == "tiny"
    assert results["config"]["model_args"]["concurrency"] == 1 and results["config"]["system_options"] == {}
    assert results["unparseable_ids"] == [samples[2]["id"], samples[4]["id"]]
    assert results["n"] == 6 and results["n_scored"] == 4
    assert any("2 of 6 answers were unparseable" in w for w in results["warnings"])
    assert results["warnings"][0].startswith("PARTIAL: the first 6 of the 127 items")


def test_all_unparseable_gives_undefined_metrics_not_a_crash(tmp_path):
    with FakeServer(answering(lambda prompt: "non lo so")) as server:
        result, out = run(tmp_path, server.url)
    assert result.exit_code == 0, result.output
    results = json.loads((out / "results.json").read_text())
    assert results["n_scored"] == 0
    assert results["metrics"]["pearson"]["value"] is None and results["metrics"]["pearson"]["reason"]


def test_generate_needs_an_openai_model(tmp_path):
    result, _ = run(tmp_path, "http://127.0.0.1:9/v1", "--model", "hf:x")
    assert result.exit_code != 0
    assert "needs a chat model behind a server" in str(result.exception)


def test_likelihood_run_through_a_server_flags_bounded_choices_per_item(tmp_path):
    from openai_fakes import legacy_topk

    top = {"1": -0.5, "2": -1.5, "3": -2.0, "4": -3.0, "Il": -3.5}  # "5" is not in the top-k list

    def reply(path, body):
        if path == "/models":
            return MODELS
        return 200, legacy_topk(top), {}

    out = tmp_path / "lm"
    with FakeServer(reply) as server:
        result = CliRunner().invoke(app, ["run", "abricot-abs", "--model", "openai:tiny", "--base-url", server.url,
                                          "--limit", "3", "--out", str(out)])
    assert result.exit_code == 0, result.output
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert [s["bounded_choices"] for s in samples] == [[5], [5], [5]]
    assert all(s["logprobs"][4] == pytest.approx(-3.5) and s["prediction"] == 1 for s in samples)


def test_a_served_models_settings_are_their_own_namespace(tmp_path, data_dir):
    """The served model's settings are `--model-args` / `model_args=`, checked by the backend's declaration
    before anything is sent; they are not options of the system (`--set`), nor taken for a local model."""
    import senso
    from senso.core.errors import SensoError

    result, _ = run(tmp_path, "http://127.0.0.1:9/v1", "--set", "concurrency=1")
    assert "--set concurrency: a setting of the served model, not an option of the system; give it as " \
           "--model-args concurrency=VALUE" in str(result.exception)
    result, _ = run(tmp_path, "http://127.0.0.1:9/v1", "--model-args", "concurency=1")
    assert "unknown option --model-args concurency" in str(result.exception)
    assert "did you mean --model-args concurrency" in str(result.exception)
    served = dict(task="abricot-abs", system="likert-generate", model="openai:tiny", base_url="http://127.0.0.1:9/v1",
                  data_dir=data_dir, limit=2)
    with pytest.raises(SensoError, match=r"model_args: concurrency= expects a whole number \(int\), got str '1'"):
        senso.evaluate(**served, model_args={"concurrency": "1"})
    with pytest.raises(SensoError, match="model_args= takes a dict"):
        senso.evaluate(**served, model_args=["concurrency=1"])
    with pytest.raises(SensoError, match="model_args scoring: system likert-lm with a local model reads no served"):
        senso.evaluate("abricot-abs", data_dir=data_dir, limit=2, model_args={"scoring": "echo"})

