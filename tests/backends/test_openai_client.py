"""The OpenAI-compatible backend against scripted local HTTP servers: response shapes, retries with
backoff, give-up and 4xx errors, several base URLs, concurrency bound, API key, cache, generate mode."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import pytest

from openai_fakes import MODELS, FakeServer, chat_reply, content_topk, legacy_topk
from senso.backends.cached import with_cache
from senso.backends.http_pool import RetryPolicy, ServerError, ServerUnavailable, normalise_base_url
from senso.backends.openai import OpenAICompatLM, load_openai_lm, parse_choice, split_choices
from senso.core.errors import SensoError
from senso.core.cache import ResponseCache

FAST = RetryPolicy(max_retries=3, backoff=0.01, max_backoff=0.05, timeout=10)
TOP = {"1": -0.5, "2": -1.5, "3": -2.0, "4": -3.0, "Il": -3.5}  # "5" absent: bounded by -3.5


@dataclass(frozen=True)
class Prompt:
    context: str
    continuations: tuple[str, ...] = (" 1", " 2", " 3", " 4", " 5")
    item_id: str = "x"


def completions_default(top, shape="legacy"):
    def reply(path, body):
        if path == "/models":
            return MODELS
        if path == "/completions":
            return 200, (legacy_topk(top) if shape == "legacy" else content_topk(top, as_probs=shape == "probs")), {}
        return 404, {"error": {"message": "no"}}, {}
    return reply


def lm(server_urls, cache=None, **kw) -> OpenAICompatLM:
    kw.setdefault("retry", FAST)
    return with_cache(OpenAICompatLM("tiny", server_urls, **kw), cache)


def test_split_choices_moves_trailing_whitespace_into_continuations():
    split = split_choices("Rispondi\n", (" 1", " 2", " 3"))
    assert split.context == "Rispondi"
    assert split.shared == "\n "
    assert split.suffixes == ("1", "2", "3")
    assert split.continuations == ("\n 1", "\n 2", "\n 3")
    with pytest.raises(SensoError):
        split_choices("ctx", (" 1", " 1"))


@pytest.mark.parametrize("shape", ["legacy", "content", "probs"])
def test_last_token_reads_topk_in_every_shape_and_bounds_absent_choice(shape):
    with FakeServer(completions_default(TOP, shape)) as server:
        model = lm(server.url)
        [values] = model.loglikelihood_choices([Prompt("Domanda:\n")])
        body = server.posts("/completions")[0]
    assert body["prompt"] == "Domanda:\n "  # context + the shared part of the continuations
    assert body["max_tokens"] == 1 and body["logprobs"] == 20 and "echo" not in body
    assert values[:4] == pytest.approx([-0.5, -1.5, -2.0, -3.0], abs=1e-6)
    assert values[4] == pytest.approx(-3.5, abs=1e-6)  # the k-th log-prob, an upper bound
    assert model.last_scores[0].bounded == (False, False, False, False, True)
    assert model.describe()["bounded_choices"] == 1


def test_retries_429_and_500_with_backoff_then_succeeds():
    with FakeServer(completions_default(TOP)) as server:
        server.script["/completions"] = [
            (429, {"error": {"message": "slow down"}}, {"retry-after": "0"}),
            (500, {"error": {"message": "boom"}}, {}),
        ]
        model = lm(server.url, retry=RetryPolicy(max_retries=3, backoff=0.2, max_backoff=1))
        start = time.monotonic()
        [values] = model.loglikelihood_choices([Prompt("Q\n")])
        elapsed = time.monotonic() - start
        assert len(server.posts("/completions")) == 3
    assert values[0] == pytest.approx(-0.5)
    assert model.pool.retries == 2
    assert elapsed >= 0.2 + 0.4  # backoff 0.2 then 0.4 seconds


def test_gives_up_clearly_after_retries():
    with FakeServer(lambda p, b: MODELS if p == "/models" else (503, {"error": {"message": "overloaded"}}, {})) as server:
        model = lm(server.url, retry=RetryPolicy(max_retries=2, backoff=0.01))
        with pytest.raises(ServerUnavailable, match=r"failed 3 times.*HTTP 503: overloaded.*rerun"):
            model.loglikelihood_choices([Prompt("Q\n")])
        assert len(server.posts("/completions")) == 3


def test_nothing_listening_says_so_not_that_the_server_went_away():
    from senso.backends.llama_server import free_port

    url = f"http://127.0.0.1:{free_port()}/v1"  # bound once, then released: nothing listens there
    with pytest.raises(ServerUnavailable, match=r"nothing answers at .* \(connection refused\): is the server running\?") as err:
        lm(url, retry=RetryPolicy(max_retries=1, backoff=0.01)).loglikelihood_choices([Prompt("Q\n")])
    assert "stopped answering" not in str(err.value) and "once the server is back" not in str(err.value)


def test_a_server_that_goes_away_midway_is_told_apart_and_counts_what_finished():
    server = FakeServer(completions_default(TOP))
    with server:
        model = lm(server.url, concurrency=1, retry=RetryPolicy(max_retries=1, backoff=0.01))
        model.loglikelihood_choices([Prompt("Q1\n"), Prompt("Q2\n")])
    with pytest.raises(ServerUnavailable, match=r"stopped answering after 2 finished requests \(cached\): rerun"):
        model.loglikelihood_choices([Prompt("Q3\n")])


def test_client_errors_are_not_retried():
    reply = lambda p, b: MODELS if p == "/models" else (400, {"error": {"message": "logprobs is not supported"}}, {})
    with FakeServer(reply) as server:
        with pytest.raises(ServerError, match="HTTP 400: logprobs is not supported"):
            lm(server.url).loglikelihood_choices([Prompt("Q\n")])
        assert len(server.posts("/completions")) == 1


def test_unknown_served_model_names_what_the_server_has():
    with FakeServer(completions_default(TOP)) as server:
        with pytest.raises(SensoError, match=r"does not list model 'other'.*\['tiny'\]"):
            OpenAICompatLM("other", server.url, retry=FAST).loglikelihood_choices([Prompt("Q\n")])


def test_requests_spread_over_base_urls_and_fail_over():
    with FakeServer(completions_default(TOP)) as a, FakeServer(completions_default(TOP)) as b:
        model = lm(f"{a.url},{b.url}")
        model.loglikelihood_choices([Prompt(f"Q{i}\n") for i in range(6)])
        assert len(a.posts("/completions")) == 3 and len(b.posts("/completions")) == 3
        b.script["/completions"] = [(503, {}, {})] * 3  # b fails: its requests retry on a
        model.loglikelihood_choices([Prompt(f"R{i}\n") for i in range(4)])
        assert len(a.posts("/completions")) == 3 + 4


def test_concurrency_is_bounded():
    with FakeServer(completions_default(TOP), delay=0.15) as server:
        lm(server.url, concurrency=2).loglikelihood_choices([Prompt(f"Q{i}\n") for i in range(6)])
        assert server.max_in_flight == 2


def test_api_key_from_env_sent_but_never_described(monkeypatch):
    monkeypatch.setenv("MY_KEY", "sk-secret-123")
    with FakeServer(completions_default(TOP)) as server:
        model = load_openai_lm("openai:tiny", server.url, settings={"api_key_env": "MY_KEY", "max_retries": 1})
        model.loglikelihood_choices([Prompt("Q\n")])
        assert all(h.get("Authorization") == "Bearer sk-secret-123" for _, _, _, h in server.requests)
        described = str(model.describe())
    assert "sk-secret" not in described and "MY_KEY" in described


def test_cache_answers_a_rerun_without_requests(tmp_path):
    prompts = [Prompt(f"Q{i}\n") for i in range(3)]
    with FakeServer(completions_default(TOP)) as server:
        first = lm(server.url, ResponseCache(tmp_path / "c.sqlite")).loglikelihood_choices(prompts)
        again = lm(server.url, ResponseCache(tmp_path / "c.sqlite"))
        assert again.loglikelihood_choices(prompts) == first
        assert len(server.posts("/completions")) == 3
        assert again.describe()["requests_from_cache"] == 3


def test_echo_mode_sums_continuation_tokens_by_text_offset():
    def reply(path, body):
        if path == "/models":
            return MODELS
        prompt = body["prompt"]  # "Q" + "\n" + " dieci"/" sei": tokens Q | \n | ' ' | word | generated
        word = prompt[3:]
        lps = {"dieci": -2.0, "sei": -1.0}[word]
        return 200, {"choices": [{"text": prompt + "!", "logprobs": {
            "tokens": ["Q", "\n", " ", word, "!"], "token_logprobs": [None, -0.1, -0.2, lps, -9.0],
            "top_logprobs": [None, {}, {}, {}, {}], "text_offset": [0, 1, 2, 3, len(prompt)]}}]}, {}
    with FakeServer(reply) as server:
        model = lm(server.url)
        [values] = model.loglikelihood_choices([Prompt("Q\n", (" dieci", " sei"))])  # multi-character: auto -> echo
        bodies = server.posts("/completions")
    # the two requests go out concurrently: their order of arrival is not fixed
    assert sorted(b["prompt"] for b in bodies) == ["Q\n dieci", "Q\n sei"] and all(b["echo"] for b in bodies)
    assert values == pytest.approx([-0.1 - 0.2 - 2.0, -0.1 - 0.2 - 1.0])
    assert model.last_scores[0].mode == "echo"


def test_echo_mode_errors_clearly_without_prompt_logprobs():
    with FakeServer(completions_default(TOP, "content")) as server:  # llama.cpp shape: no text offsets
        with pytest.raises(ServerError, match="no prompt log-probs"):
            lm(server.url, scoring="echo").loglikelihood_choices([Prompt("Q\n")])


def test_parse_choice():
    labels = ["1", "2", "3", "4", "5"]
    assert parse_choice("3", labels).choice == 2
    assert parse_choice(" Il valore è 4.", labels).choice == 3
    assert parse_choice("12", labels).choice is None
    bad = parse_choice("tra 3 e 4", labels)
    assert bad.choice is None and "several" in bad.reason
    assert parse_choice("non so", labels).reason == "no choice label in the answer"


def test_generate_mode_and_chat_with_logprobs():
    answers = {"A": "4", "B": "Direi 2.", "C": "boh"}  # by question: requests arrive in any order

    def reply(path, body):
        if path == "/models":
            return MODELS
        if body.get("logprobs"):
            return 200, chat_reply("ciao", [("ci", -0.3), ("ao", -0.1)]), {}
        return 200, chat_reply(answers[body["messages"][0]["content"]]), {}
    with FakeServer(reply) as server:
        model = lm(server.url, scoring="generate")
        with pytest.raises(SensoError, match="generate_choices"):
            model.loglikelihood_choices([Prompt("Q\n")])
        got = model.generate_choices([Prompt("A\n"), Prompt("B\n"), Prompt("C\n")])
        assert [g.choice for g in got] == [3, 1, None] and got[2].text == "boh"
        assert sorted(b["messages"][0]["content"] for b in server.posts("/chat/completions")) == ["A", "B", "C"]
        result = model.chat([{"role": "user", "content": "saluta"}], max_tokens=5, logprobs=2)
        assert result.text == "ciao" and [t.token for t in result.tokens] == ["ci", "ao"]
        assert math.isclose(result.tokens[0].logprob, -0.3)
        assert model.describe()["official_protocol"] is False


def test_fingerprint_and_describe_name_the_server():
    with FakeServer(completions_default(TOP, "content")) as server:
        model = lm(server.url)
        model.loglikelihood_choices([Prompt("Q\n")])
        info = model.describe()
    assert info["spec"] == "openai:tiny" and info["served_model"] == "tiny"
    assert info["server"]["base_urls"] == [server.url]
    assert info["model_card"] == {"id": "tiny", "object": "model", "owned_by": "test"}  # "created" dropped
    assert info["fingerprint"].startswith("server:") and info["system_fingerprints"] == ["b1234-abc"]


def test_base_url_normalisation(monkeypatch):
    assert normalise_base_url("http://h:8000") == "http://h:8000/v1"
    assert normalise_base_url("http://h:8000/v1/") == "http://h:8000/v1"
    with pytest.raises(SensoError):
        normalise_base_url("h:8000")
    with pytest.raises(SensoError, match="no server"):
        monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
        load_openai_lm("openai:x", None)


def test_load_loglikelihood_model_entry_point():
    from senso.backends.openai import load_loglikelihood_model

    with FakeServer(completions_default(TOP)) as server:
        model = load_loglikelihood_model("tiny", base_url=server.url, top_logprobs=5, concurrency=3)
        assert (model.spec, model.top_logprobs, model.pool.concurrency) == ("openai:tiny", 5, 3)
        assert model.loglikelihood_choices([Prompt("Q\n")])[0][0] == pytest.approx(-0.5)
    with pytest.raises(SensoError, match="chat-template"):
        load_loglikelihood_model("tiny", base_url="http://127.0.0.1:9/v1", chat_template=True)
    with pytest.raises(SensoError, match=r"unknown option --set top_k for the openai backend; valid: --set scoring"):
        load_loglikelihood_model("tiny", base_url="http://127.0.0.1:9/v1", top_k="5")
    with pytest.raises(SensoError, match="top_logprobs"):
        load_loglikelihood_model("tiny", base_url="http://127.0.0.1:9/v1", top_logprobs="many")
