"""Vision-language models that answer a prompt about one or several images.

Two backends with one interface (`VisionLM`):
- `OpenAIVisionLM`: any OpenAI-compatible server (vLLM, SGLang, llama.cpp, hosted) through
  `POST {base_url}/chat/completions`, images sent inline as base64 `data:` URLs in `image_url`
  content parts (the OpenAI chat schema); yes/no probabilities from `logprobs`/`top_logprobs`;
- `TransformersVLM`: an in-process transformers image-text-to-text model (`AutoModelForImageTextToText`
  + `AutoProcessor` with its chat template); yes/no probabilities from the next-token distribution.

`yes_probability(prompt, image)` returns a `YesNo`: P(yes) renormalised over yes and no, and how it was
obtained ("logprobs"; "bound" when one answer was missing from the server's top-k list and its
probability is bounded by the k-th; "text" when the server gave no log-probs and the answer was read
from the generated word; None when nothing usable came back). Every response is cached by endpoint,
served model and exact request (images included by content), so a killed run resumes without asking again.
"""

from __future__ import annotations

import base64
import json
import math
import mimetypes
import os
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, Sequence

from senso.backends.image_text import load_image
from senso.errors import DataError, SensoError
from senso.runner.cache import ResponseCache, cache_key

YES_WORDS = ("yes",)
NO_WORDS = ("no",)


@dataclass
class YesNo:
    """P(yes) over {yes, no} (None when unknown), how it was obtained, and the raw answer text."""

    p_yes: float | None
    source: str | None
    text: str = ""


class VisionLM(Protocol):
    name: str

    def describe(self) -> dict[str, Any]: ...

    def yes_probabilities(self, requests: Sequence[tuple[str, Path]]) -> list[YesNo]: ...

    def generate(self, requests: Sequence[tuple[str, Sequence[Path]]], max_tokens: int) -> list[str]: ...


def image_data_url(path: str | Path) -> str:
    """The file as a base64 `data:` URL (media type from its extension), DataError naming a missing file."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise DataError(path, "image file not found") from None
    except OSError as err:
        raise DataError(path, f"cannot read image file: {err}") from None
    media = mimetypes.guess_type(path.name)[0] or "image/png"
    return f"data:{media};base64,{base64.b64encode(data).decode('ascii')}"


def user_message(prompt: str, images: Sequence[str | Path], detail: str = "auto") -> dict[str, Any]:
    """One user chat message: the images (in order) as `image_url` parts, then the prompt as a `text` part."""
    parts: list[dict[str, Any]] = [
        {"type": "image_url", "image_url": {"url": image_data_url(p), "detail": detail}} for p in images
    ]
    parts.append({"type": "text", "text": prompt})
    return {"role": "user", "content": parts}


def _word(token: str) -> str:
    return token.strip().strip(".,!:;\"'").lower()


def yes_no_from_top_logprobs(top: Sequence[dict[str, Any]]) -> YesNo:
    """P(yes) from one position's top-k list ([{"token", "logprob"}, ...]); variants ("Yes", " yes") summed."""
    yes = [math.exp(t["logprob"]) for t in top if _word(t["token"]) in YES_WORDS]
    no = [math.exp(t["logprob"]) for t in top if _word(t["token"]) in NO_WORDS]
    if not yes and not no:
        return YesNo(None, None)
    if yes and no:
        return YesNo(sum(yes) / (sum(yes) + sum(no)), "logprobs")
    # One answer is below the k-th entry: its probability is at most the k-th's, so P(yes) is bounded.
    floor = math.exp(min(t["logprob"] for t in top))
    p_yes, p_no = (sum(yes), floor) if yes else (floor, sum(no))
    return YesNo(p_yes / (p_yes + p_no), "bound")


def yes_no_from_text(text: str) -> YesNo:
    words = [_word(w) for w in text.split()]
    first = words[0] if words else ""
    if first in YES_WORDS:
        return YesNo(1.0, "text", text)
    if first in NO_WORDS:
        return YesNo(0.0, "text", text)
    return YesNo(None, None, text)


@dataclass
class OpenAIVisionLM:
    """A served VLM behind the OpenAI chat API. The API key is read from `api_key_env`, never recorded."""

    base_url: str
    model: str
    cache: ResponseCache | None = None
    top_logprobs: int = 20
    concurrency: int = 4
    timeout_s: float = 120.0
    retries: int = 3
    backoff_s: float = 1.0  # waits backoff_s * 2**attempt (at most 30 s) before retrying a 429/5xx or a lost connection
    api_key_env: str = "OPENAI_API_KEY"
    detail: str = "auto"
    requests_sent: int = field(default=0, repr=False)

    @property
    def name(self) -> str:
        return f"openai:{self.model}"

    def describe(self) -> dict[str, Any]:
        return {"backend": "openai", "base_url": self.base_url, "model": self.model,
                "top_logprobs": self.top_logprobs, "image_detail": self.detail}

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        url = self.base_url.rstrip("/") + "/chat/completions"
        headers = {"Content-Type": "application/json"}
        if os.environ.get(self.api_key_env):
            headers["Authorization"] = f"Bearer {os.environ[self.api_key_env]}"
        data = json.dumps(body).encode("utf-8")
        for attempt in range(self.retries + 1):
            try:
                request = urllib.request.Request(url, data=data, headers=headers, method="POST")
                with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                    self.requests_sent += 1
                    return json.loads(response.read().decode("utf-8"))
            except urllib.error.HTTPError as err:
                detail = err.read().decode("utf-8", "replace")[:500]
                if (err.code == 429 or err.code >= 500) and attempt < self.retries:
                    time.sleep(min(self.backoff_s * 2 ** attempt, 30))
                    continue
                raise SensoError(f"{url}: HTTP {err.code}: {detail}") from None
            except (urllib.error.URLError, TimeoutError, ConnectionError) as err:
                if attempt < self.retries:
                    time.sleep(min(self.backoff_s * 2 ** attempt, 30))
                    continue
                raise SensoError(f"{url}: no answer ({err}); is the server running?") from None
        raise AssertionError("unreachable")

    def _complete_all(self, bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
        keys = [cache_key("openai-chat", self.base_url.rstrip("/"), body) for body in bodies]
        found = self.cache.get_many("vlm", keys) if self.cache else {}
        todo = list({k: i for i, k in reversed(list(enumerate(keys))) if k not in found}.values())  # once per request

        # Requests run in threads; the cache (SQLite) is written from this thread, each answer as it arrives.
        with ThreadPoolExecutor(max_workers=max(1, self.concurrency)) as pool:
            futures = {pool.submit(self._post, bodies[i]): keys[i] for i in todo}
            for future in as_completed(futures):
                found[futures[future]] = future.result()
                if self.cache:
                    self.cache.put("vlm", futures[future], found[futures[future]])
        return [found[k] for k in keys]

    def yes_no_request(self, prompt: str, image: Path) -> dict[str, Any]:
        return {"model": self.model, "messages": [user_message(prompt, [image], self.detail)], "max_tokens": 1,
                "temperature": 0, "logprobs": True, "top_logprobs": self.top_logprobs}

    def yes_probabilities(self, requests: Sequence[tuple[str, Path]]) -> list[YesNo]:
        responses = self._complete_all([self.yes_no_request(prompt, image) for prompt, image in requests])
        answers = []
        for response in responses:
            choice = response["choices"][0]
            text = (choice.get("message") or {}).get("content") or ""
            content = (choice.get("logprobs") or {}).get("content") or []
            answer = yes_no_from_top_logprobs(content[0].get("top_logprobs") or []) if content else YesNo(None, None)
            if answer.p_yes is None:
                answer = yes_no_from_text(text)
            answer.text = text
            answers.append(answer)
        return answers

    def generate(self, requests: Sequence[tuple[str, Sequence[Path]]], max_tokens: int) -> list[str]:
        bodies = [{"model": self.model, "messages": [user_message(prompt, images, self.detail)],
                   "max_tokens": max_tokens, "temperature": 0} for prompt, images in requests]
        return [(r["choices"][0].get("message") or {}).get("content") or "" for r in self._complete_all(bodies)]


@dataclass
class TransformersVLM:
    """An in-process transformers VLM (`hf:NAME_OR_PATH`), or a model and processor already in memory."""

    spec: str
    cache: ResponseCache | None = None
    device: str = "cpu"
    dtype: str = "float32"
    model: Any = field(default=None, repr=False)
    processor: Any = field(default=None, repr=False)
    fingerprint_value: str | None = None

    @property
    def name(self) -> str:
        return self.spec

    @property
    def fingerprint(self) -> str:
        if self.fingerprint_value is None:
            from senso.runner.fingerprint import hub_fingerprint, path_fingerprint

            name = self.spec.removeprefix("hf:")
            local = Path(name).expanduser()
            self.fingerprint_value = (path_fingerprint(local) if local.exists() else hub_fingerprint(name)) + f"|{self.dtype}"
        return self.fingerprint_value

    def describe(self) -> dict[str, Any]:
        return {"backend": "transformers", "model": self.spec, "fingerprint": self.fingerprint, "dtype": self.dtype}

    def _load(self):
        if self.model is None:
            from senso.backends.image_text import _torch_dtype
            from senso.backends.torchvision_compat import ensure_torchvision_importable

            ensure_torchvision_importable()
            from transformers import AutoModelForImageTextToText, AutoProcessor

            name = self.spec.removeprefix("hf:")
            try:
                self.processor = AutoProcessor.from_pretrained(name, backend="pil")
                self.model = AutoModelForImageTextToText.from_pretrained(name, dtype=_torch_dtype(self.dtype))
            except OSError as err:
                raise SensoError(f"cannot load vision-language model {self.spec}: {err}") from None
            self.model.to(self.device).eval()
        return self.model, self.processor

    def _inputs(self, prompt: str, images: Sequence[Path]):
        model, processor = self._load()
        messages = [{"role": "user", "content": [*({"type": "image"} for _ in images), {"type": "text", "text": prompt}]}]
        text = processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        return processor(text=[text], images=[load_image(p) for p in images] or None, return_tensors="pt").to(self.device)

    def _answer_token_ids(self, words: Sequence[str]) -> list[int]:
        tokenizer = self.processor.tokenizer
        ids = set()
        for word in words:
            for variant in (word, word.capitalize(), " " + word, " " + word.capitalize()):
                encoded = tokenizer.encode(variant, add_special_tokens=False)
                # one token that decodes back to the word (not the unknown token, not a fragment)
                if len(encoded) == 1 and tokenizer.decode(encoded).strip().lower() == word:
                    ids.add(encoded[0])
        return sorted(ids)

    def _cached(self, kind: str, prompt: str, images: Sequence[Path], compute, extra: Any = None):
        from senso.backends.image_text import file_sha256

        key = cache_key("transformers-vlm", self.fingerprint, kind, prompt, [file_sha256(Path(p)) for p in images], extra)
        if self.cache and (hit := self.cache.get("vlm", key)) is not None:
            return hit
        value = compute()
        if self.cache:
            self.cache.put("vlm", key, value)
        return value

    def yes_probabilities(self, requests: Sequence[tuple[str, Path]]) -> list[YesNo]:
        import torch

        def compute(prompt: str, image: Path) -> dict[str, Any]:
            model, _ = self._load()
            yes_ids, no_ids = self._answer_token_ids(YES_WORDS), self._answer_token_ids(NO_WORDS)
            if not yes_ids or not no_ids:
                raise SensoError(f"{self.spec}: 'yes' or 'no' is not a single token of its tokenizer")
            with torch.inference_mode():
                logits = model(**self._inputs(prompt, [image])).logits[0, -1].float()
            logp = torch.log_softmax(logits, dim=-1)
            yes, no = torch.logsumexp(logp[yes_ids], 0).item(), torch.logsumexp(logp[no_ids], 0).item()
            return {"logp_yes": yes, "logp_no": no}

        answers = []
        for prompt, image in requests:
            value = self._cached("yes-no", prompt, [image], lambda: compute(prompt, image))
            p_yes = 1.0 / (1.0 + math.exp(value["logp_no"] - value["logp_yes"]))
            answers.append(YesNo(p_yes, "logprobs"))
        return answers

    def generate(self, requests: Sequence[tuple[str, Sequence[Path]]], max_tokens: int) -> list[str]:
        import torch

        def compute(prompt: str, images: Sequence[Path]) -> str:
            model, processor = self._load()
            inputs = self._inputs(prompt, images)
            with torch.inference_mode():
                out = model.generate(**inputs, max_new_tokens=max_tokens, do_sample=False)
            return processor.tokenizer.decode(out[0, inputs["input_ids"].shape[1]:], skip_special_tokens=True)

        return [self._cached("generate", prompt, images, lambda: compute(prompt, images), max_tokens)
                for prompt, images in requests]


def vision_lm(spec: str, base_url: str | None = None, cache: ResponseCache | None = None, device: str = "cpu",
              dtype: str = "float32") -> VisionLM:
    """`openai:SERVED_NAME` (needs base_url) or `hf:NAME_OR_PATH`."""
    if spec.startswith("openai:"):
        if not base_url:
            raise SensoError(f"generator {spec!r} needs --base-url (the server's /v1 URL)")
        return OpenAIVisionLM(base_url=base_url, model=spec[len("openai:"):], cache=cache)
    if spec.startswith("hf:"):
        return TransformersVLM(spec, cache=cache, device=device, dtype=dtype)
    raise SensoError(f"unknown vision-language model {spec!r}; use openai:SERVED_NAME (with --base-url) or hf:NAME_OR_PATH")
