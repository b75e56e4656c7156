"""VLM backends: the OpenAI image request against the API's schema (a fake server on 127.0.0.1
records what it receives), log-prob parsing by hand, retries, caching."""

from __future__ import annotations

import base64
import json
import math
import typing

import pytest

from image_models import FakeServer, chat_response, write_png
from senso.backends.vlm import YesNo, image_data_url, vision_lm, yes_no_from_text, yes_no_from_top_logprobs
from senso.core.errors import DataError, SensoError
from senso.core.cache import ResponseCache

pytestmark = pytest.mark.images


def check_typed_dict(value, schema, where="body"):
    """Check `value` against an openai-python TypedDict (generated from the OpenAPI spec):
    required keys present, no unknown keys, literals and nested dicts respected."""
    hints = typing.get_type_hints(schema, include_extras=False)
    unknown = set(value) - set(hints)
    assert not unknown, f"{where}: keys not in {schema.__name__}: {unknown}"
    missing = set(schema.__required_keys__) - set(value)
    assert not missing, f"{where}: required keys of {schema.__name__} missing: {missing}"
    for key, hint in hints.items():
        if key not in value:
            continue
        if typing.get_origin(hint) is typing.Literal:
            assert value[key] in typing.get_args(hint), f"{where}.{key}={value[key]!r} not in {typing.get_args(hint)}"
        elif isinstance(hint, type) and typing.is_typeddict(hint):
            check_typed_dict(value[key], hint, f"{where}.{key}")


def test_image_request_matches_the_openai_schema(tmp_path, monkeypatch):
    from openai.types.chat import ChatCompletionContentPartImageParam, ChatCompletionContentPartTextParam
    from openai.types.chat import ChatCompletionUserMessageParam
    from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming

    png = write_png(tmp_path / "big fish" / "01.png", (200, 30, 30))
    monkeypatch.setenv("SENSO_TEST_KEY", "secret-key")
    response = chat_response("Yes", [("Yes", math.log(0.6)), ("No", math.log(0.2)), (" yes", math.log(0.1))])
    with FakeServer([(200, response)], model="qwen2.5-vl") as server:
        vlm = vision_lm("openai:qwen2.5-vl", server.url, settings={"api_key_env": "SENSO_TEST_KEY", "top_logprobs": 5})
        [answer] = vlm.yes_probabilities([("Does this picture show it?", png)])
        described = vlm.describe()
    assert server.paths == ["/v1/chat/completions"]
    assert server.headers[0]["Authorization"] == "Bearer secret-key"
    body = server.bodies[0]
    assert set(body) <= set(CompletionCreateParamsNonStreaming.__annotations__)
    assert body["model"] == "qwen2.5-vl" and body["max_tokens"] == 1 and body["logprobs"] is True
    assert body["top_logprobs"] == 5 and body["temperature"] == 0
    [message] = body["messages"]
    check_typed_dict(message, ChatCompletionUserMessageParam, "message")
    image_part, text_part = message["content"]
    check_typed_dict(image_part, ChatCompletionContentPartImageParam, "image part")
    check_typed_dict(text_part, ChatCompletionContentPartTextParam, "text part")
    url = image_part["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == png.read_bytes()
    assert text_part["text"] == "Does this picture show it?"
    # P(yes) = (0.6 + 0.1) / (0.6 + 0.1 + 0.2)
    assert answer.p_yes == pytest.approx(0.7 / 0.9) and answer.source == "logprobs" and answer.text == "Yes"
    assert "secret-key" not in json.dumps(described) and described["judge_scoring"] == "logprobs"


def test_cache_retries_and_errors(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    png = write_png(tmp_path / "a.png", (1, 2, 3))
    cache = ResponseCache(tmp_path / "c.sqlite")
    ok = chat_response("no", [("no", math.log(0.9)), ("yes", math.log(0.05))])
    with FakeServer([(503, {"error": "busy"}), (200, ok)]) as server:
        vlm = vision_lm("openai:m", server.url, cache=cache, settings={"max_retries": 2, "backoff": 0.01})
        [first] = vlm.yes_probabilities([("q", png)])
        assert len(server.bodies) == 2  # one 503, then the retry
        again = vision_lm("openai:m", server.url, cache=cache)
        assert again.yes_probabilities([("q", png)])[0].p_yes == first.p_yes == pytest.approx(0.05 / 0.95)
        assert len(server.bodies) == 2 and again.describe()["requests_from_cache"] == 1
    with FakeServer([(400, {"error": "bad image"})]) as server:
        with pytest.raises(SensoError, match="HTTP 400: bad image"):
            vision_lm("openai:m", server.url, settings={"max_retries": 0}).yes_probabilities([("q", png)])
    with pytest.raises(DataError, match="missing.png: image file not found"):
        image_data_url(tmp_path / "missing.png")
    with pytest.raises(SensoError, match="no server; pass --base-url"):
        vision_lm("openai:m")


def test_yes_no_parsing_by_hand():
    both = yes_no_from_top_logprobs({"Yes": math.log(0.3), "no": math.log(0.1)})
    assert both.p_yes == pytest.approx(0.75) and both.source == "logprobs"
    # "no" is not in the top 2: P(no) <= the 2nd entry's probability 0.2, so P(yes) is taken as 0.5 / (0.5 + 0.2)
    bound = yes_no_from_top_logprobs({"yes": math.log(0.5), "Maybe": math.log(0.2)})
    assert bound.p_yes == pytest.approx(0.5 / 0.7) and bound.source == "bound"
    assert yes_no_from_top_logprobs({"The": -0.1}) == YesNo(None, None)
    assert yes_no_from_text("Yes, it does.").p_yes == 1.0 and yes_no_from_text("No.").p_yes == 0.0
    assert yes_no_from_text("It is unclear").p_yes is None


def test_judge_scoring_text_for_servers_without_logprobs(tmp_path):
    png = write_png(tmp_path / "a.png", (1, 2, 3))
    with FakeServer([(200, chat_response("No, it shows a fish.", None))]) as server:
        with pytest.raises(SensoError, match="no log-probs"):
            vision_lm("openai:m", server.url).yes_probabilities([("q", png)])
        [answer] = vision_lm("openai:m", server.url, settings={"judge_scoring": "text"}).yes_probabilities([("q", png)])
    assert answer.p_yes == 0.0 and answer.source == "text"
    assert server.bodies[-1]["max_tokens"] == 3 and "logprobs" not in server.bodies[-1]
    # neither word among the top-k: the generated word decides, marked as read from the text
    with FakeServer([(200, chat_response("yes", [("The", -0.1), ("A", -3.0)]))]) as server:
        [answer] = vision_lm("openai:m", server.url).yes_probabilities([("q", png)])
    assert answer.p_yes == 1.0 and answer.source == "text"


def test_list_prompt_sends_all_images_in_order(tmp_path):
    pngs = [write_png(tmp_path / f"{i}.png", (10 * i, 0, 0)) for i in range(3)]
    with FakeServer([(200, chat_response("2, 1, 3", None))]) as server:
        [text] = vision_lm("openai:m", server.url).generate([("rank them", pngs)], max_tokens=24)
    assert text == "2, 1, 3"
    parts = server.bodies[0]["messages"][0]["content"]
    assert [p["type"] for p in parts] == ["image_url"] * 3 + ["text"]
    assert [base64.b64decode(p["image_url"]["url"].split(",", 1)[1]) for p in parts[:3]] == [p.read_bytes() for p in pngs]
    assert server.bodies[0]["max_tokens"] == 24 and "logprobs" not in server.bodies[0]
