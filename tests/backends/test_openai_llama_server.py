"""The `openai` backend against a REAL OpenAI-compatible server on 127.0.0.1: llama-cpp-python's
server with the default model's GGUF (Gemma-3-270M Q4_K_M).

Agreement bound: on the 3-shot `paper` protocol the server's five log-probs, renormalised over the
five choices, must be within MAD_BOUND of the in-process transformers log-likelihoods, both lm-eval's
reference and senso's `hf` backend on the same prompts (weights dequantised from the same GGUF). Measured with benchmarks/openai_agreement.py on the first 16
items of each task (see docs/at_scale.md): per-item MAD up to ~0.1; the bound leaves room for one
outlier among the 3 items tested here while still failing on a wrong token, a wrong prompt or a
missing shared prefix (those move the values by 0.5 and more).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pytest

from senso.backends.cached import with_cache
from senso.backends.http_pool import RetryPolicy, ServerUnavailable
from senso.backends.openai import OpenAICompatLM
from senso.core.cache import ResponseCache

from senso.likert.lmeval_reference import read_lmeval_loglikelihoods

pytestmark = [pytest.mark.real_model, pytest.mark.server]

MAD_BOUND = 0.15
N_ITEMS = 3


@dataclass(frozen=True)
class Prompt:
    context: str
    continuations: tuple[str, ...] = (" 1", " 2", " 3", " 4", " 5")


def renormalised(values) -> np.ndarray:
    values = np.asarray(values, dtype=np.float64)
    top = values.max(axis=-1, keepdims=True)
    return values - (top + np.log(np.exp(values - top).sum(axis=-1, keepdims=True)))


def reference_logprobs(path, task):
    """Item ID -> lm-eval's log-likelihoods of choices 1..5 for `task`."""
    return {item: values for (t, item), values in read_lmeval_loglikelihoods(path).items() if t == task}


def test_paper_protocol_logprobs_agree_with_transformers(gemma_server, data_dir, reference_dir, default_lm, tmp_path):
    from senso.likert.data import load_abricot, locate_abricot
    from senso.likert.task import build_prompts, get_task

    items = load_abricot(locate_abricot(data_dir))
    prompts = build_prompts(items, get_task("abricot-abs"), "paper")[:N_ITEMS]
    model = with_cache(OpenAICompatLM(gemma_server.alias, gemma_server.base_url), ResponseCache(tmp_path / "c.sqlite"))
    server = np.asarray(model.loglikelihood_choices(prompts))
    reference = reference_logprobs(reference_dir / "abricot_lmeval_gemma270m_3shot.csv", "abricot-abs")
    expected = np.asarray([reference[p.item_id] for p in prompts])

    assert model.bounded_choices == 0  # all five digits were in the top-20
    agreement = np.mean(server.argmax(axis=1) == expected.argmax(axis=1))
    mad = np.abs(renormalised(server) - renormalised(expected)).mean()
    assert agreement >= 0.9
    assert mad < MAD_BOUND, f"MAD of renormalised log-probs {mad:.4f}"
    # what renormalisation removes is the shared prefix "\n " log-prob: one value per item, negative
    shared = expected - server
    assert np.all(shared.max(axis=1) - shared.min(axis=1) < 2 * MAD_BOUND)
    assert np.all(shared.mean(axis=1) < 0)
    # the same against senso's own transformers backend (which matches lm-eval to ~1e-5)
    engine = np.asarray(default_lm.loglikelihood_choices(prompts))
    assert np.mean(server.argmax(axis=1) == engine.argmax(axis=1)) >= 0.9
    assert np.abs(renormalised(server) - renormalised(engine)).mean() < MAD_BOUND
    described = model.describe()
    assert described["served_model"] == gemma_server.alias
    assert described["model_card"]["id"] == gemma_server.alias


def test_echo_and_last_token_scoring_agree_on_the_real_server(gemma_server):
    prompt = Prompt("Voto:\n", (" 1", " 2"))  # short: llama-cpp-python's echo path is slow per token
    last = OpenAICompatLM(gemma_server.alias, gemma_server.base_url, scoring="last-token")
    echo = OpenAICompatLM(gemma_server.alias, gemma_server.base_url, scoring="echo")
    [last_values] = last.loglikelihood_choices([prompt])
    [full_values] = echo.loglikelihood_choices([prompt])
    shared = np.asarray(full_values) - np.asarray(last_values)  # log p("\n " | "Voto:"), the same for both choices
    assert abs(shared[0] - shared[1]) < 1e-3
    assert shared[0] < 0


def test_server_stopped_midway_fails_clearly_and_resumes_from_cache(gemma_server, tmp_path):
    prompts = [Prompt(f"Voto {i}:\n") for i in range(3)]
    cache_path = tmp_path / "cache.sqlite"
    model = with_cache(OpenAICompatLM(gemma_server.alias, gemma_server.base_url, concurrency=1,
                                      retry=RetryPolicy(max_retries=2, backoff=0.05, timeout=120)),
                       ResponseCache(cache_path))
    done = []

    def stop_after_first(n):
        done.append(n)
        if len(done) == 1:
            gemma_server.stop()

    try:
        with pytest.raises(ServerUnavailable, match=r"stopped answering after 1 finished requests \(cached\): rerun the same command.*failed 3 times.*Connect"):
            model.loglikelihood_choices(prompts, progress=stop_after_first)
        assert len(done) == 1
    finally:
        gemma_server.start()  # back, on the same address
    [(stored,)] = ResponseCache(cache_path).conn.execute("SELECT value FROM responses").fetchall()
    first_item_top = json.loads(stored)["choices"][0]["logprobs"]["top_logprobs"][0]
    resumed = with_cache(OpenAICompatLM(gemma_server.alias, gemma_server.base_url, concurrency=1),
                         ResponseCache(cache_path))
    values = resumed.loglikelihood_choices(prompts)
    assert resumed.requests_cached == 1  # the finished item was not recomputed
    assert resumed.pool.requests_sent == 1 + 2  # /models, then the two unfinished items
    assert len(values) == 3 and all(len(v) == 5 for v in values)
    assert values[0][0] == first_item_top["1"]  # item 0's answer is the one stored before the stop


def test_senso_run_through_the_server_records_it(gemma_server, data_dir, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from senso.cli import app

    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", "abricot-inc", "--model", f"openai:{gemma_server.alias}",
                                      "--base-url", gemma_server.base_url, "--data-dir", str(data_dir),
                                      "--limit", "2", "--out", str(out), "--model-args", "top_logprobs=10"])
    assert result.exit_code == 0, result.output
    results = json.loads((out / "results.json").read_text())
    model = results["model"]["model"]
    assert model["spec"] == f"openai:{gemma_server.alias}" and model["served_model"] == gemma_server.alias
    assert model["server"]["base_urls"] == [gemma_server.base_url] and model["top_logprobs"] == 10
    assert model["fingerprint"].startswith("server:") and model["official_protocol"] is True
    assert "api_key" not in json.dumps(results).replace("api_key_env", "").replace("api_key_set", "")
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert len(samples) == 2 and all(len(s["logprobs"]) == 5 for s in samples)
