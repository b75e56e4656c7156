"""Vision-language models that answer a prompt about one or several images.

Two backends with one interface (`VisionLM`):
- `OpenAIVisionLM`: any OpenAI-compatible server (vLLM, SGLang, llama.cpp, hosted) through senso's
  `openai` backend (`POST {base_url}/chat/completions`), images sent inline as base64 `data:` URLs in
  `image_url` content parts (the OpenAI chat schema); yes/no probabilities from `logprobs`/`top_logprobs`;
- `TransformersVLM`: an in-process transformers image-text-to-text model (`AutoModelForImageTextToText`
  + `AutoProcessor` with its chat template); yes/no probabilities from the next-token distribution.

`yes_probability(prompt, image)` returns a `YesNo`: P(yes) renormalised over yes and no, and how it was
obtained ("logprobs"; "bound" when one answer was missing from the server's top-k list and its
probability is bounded by the k-th; "text" when the server gave no log-probs and the answer was read
from the generated word; None when nothing usable came back). Behind `senso.backends.cached.Cached` every
response is cached by endpoint (or model fingerprint), served model and exact request (images included, by
content), as soon as it is done, so a killed run resumes without asking again.
"""

from __future__ import annotations

import base64
import math
import mimetypes
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Protocol, Sequence

from senso.backends.cached import CachedMethod, with_cache
from senso.backends.image_text import load_image
from senso.core.errors import DataError, SensoError
from senso.core.cache import ResponseCache, cache_key
from senso.core.params import Configurable, declared, param
from senso.backends.quiet import quietly

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


def yes_no_from_top_logprobs(top: Mapping[str, float]) -> YesNo:
    """P(yes) from one position's top-k log-probs ({token: logprob}); variants ("Yes", " yes") summed."""
    yes = [math.exp(lp) for token, lp in top.items() if _word(token) in YES_WORDS]
    no = [math.exp(lp) for token, lp in top.items() if _word(token) in NO_WORDS]
    if not yes and not no:
        return YesNo(None, None)
    if yes and no:
        return YesNo(sum(yes) / (sum(yes) + sum(no)), "logprobs")
    # One answer is below the k-th entry: its probability is at most the k-th's, so P(yes) is bounded.
    floor = math.exp(min(top.values()))
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


JUDGE_SCORING = ("logprobs", "text")
IMAGE_DETAILS = ("auto", "low", "high")


@dataclass
class VlmSettings(Configurable):
    """The settings of a served VLM besides the openai backend's own (`--model-args KEY=VALUE`)."""

    judge_scoring: str = param("logprobs", "logprobs: P(yes) from the top-k log-probs of one token; text: a short "
                                           "answer parsed for yes/no", choices=JUDGE_SCORING)
    image_detail: str = param("auto", "the image detail asked of the server", choices=IMAGE_DETAILS)


VLM_PARAMS = declared(VlmSettings)


@dataclass
class OpenAIVisionLM:
    """A served VLM behind the OpenAI chat API, through senso's OpenAI-compatible backend (`OpenAICompatLM`:
    retries, concurrency, several base URLs, the server's model card as fingerprint, the response cache).

    `scoring="logprobs"` (default) asks for one token with the top-k log-probs; `"text"` asks for a short
    answer without log-probs (servers that give none) and reads yes/no from its first word.
    """

    lm: Any  # senso.backends.openai.OpenAICompatLM
    detail: str = "auto"
    scoring: str = "logprobs"

    def __post_init__(self):
        if self.scoring not in JUDGE_SCORING:
            raise SensoError(f"judge scoring must be one of {', '.join(JUDGE_SCORING)}, got {self.scoring!r}")

    @property
    def name(self) -> str:
        return self.lm.spec

    def describe(self) -> dict[str, Any]:
        return {**self.lm.describe(), "image_detail": self.detail, "judge_scoring": self.scoring,
                "images_sent_as": "base64 data: URLs in image_url content parts"}

    def yes_probabilities(self, requests: Sequence[tuple[str, Path]]) -> list[YesNo]:
        conversations = [[user_message(prompt, [image], self.detail)] for prompt, image in requests]
        if self.scoring == "text":
            return [yes_no_from_text(r.text) for r in self.lm.chat_many(conversations, max_tokens=3, temperature=0.0)]
        results = self.lm.chat_many(conversations, max_tokens=1, temperature=0.0, logprobs=self.lm.top_logprobs)
        answers = []
        for result in results:
            answer = yes_no_from_top_logprobs(result.tokens[0].top if result.tokens else {})
            if answer.p_yes is None:  # neither word among the top-k: the generated word decides, marked "text"
                answer = yes_no_from_text(result.text)
            answer.text = result.text
            answers.append(answer)
        return answers

    def generate(self, requests: Sequence[tuple[str, Sequence[Path]]], max_tokens: int) -> list[str]:
        conversations = [[user_message(prompt, images, self.detail)] for prompt, images in requests]
        return [r.text for r in self.lm.chat_many(conversations, max_tokens=max_tokens, temperature=0.0)]


def _yes_nos(values: list[dict[str, float]]) -> list[YesNo]:
    """YesNo answers from {"logp_yes", "logp_no"} per request (as computed or cached)."""
    return [YesNo(1.0 / (1.0 + math.exp(v["logp_no"] - v["logp_yes"])), "logprobs") for v in values]


VLM_CACHE_NAMESPACE = "vlm"


@dataclass
class TransformersVLM:
    """An in-process transformers VLM (`hf:NAME_OR_PATH`), or a model and processor already in memory.

    It only computes, one request per forward pass; behind `senso.backends.cached.Cached` each answer is
    cached as soon as it is done, keyed by `yes_no_keys` / `generate_keys` (fingerprint, prompt, image contents).
    """

    CACHED = {
        "yes_probabilities": CachedMethod(VLM_CACHE_NAMESPACE, keys="yes_no_keys", compute="_yes_no_logps",
                                          join=_yes_nos, chunk=1),
        "generate": CachedMethod(VLM_CACHE_NAMESPACE, keys="generate_keys", chunk=1),
    }

    spec: str
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
            from senso.core.fingerprint import hub_fingerprint, path_fingerprint

            name = self.spec.removeprefix("hf:")
            local = Path(name).expanduser()
            self.fingerprint_value = (path_fingerprint(local) if local.exists() else hub_fingerprint(name)) + f"|{self.dtype}"
        return self.fingerprint_value

    def describe(self) -> dict[str, Any]:
        return {"backend": "transformers", "model": self.spec, "fingerprint": self.fingerprint, "dtype": self.dtype}

    @quietly
    def _load(self):
        if self.model is None:
            from senso.backends.dtypes import torch_dtype
            from senso.backends.torchvision_compat import ensure_torchvision_importable

            ensure_torchvision_importable()
            from transformers import AutoModelForImageTextToText, AutoProcessor

            from senso.backends.hub_access import check_hub_model

            name = self.spec.removeprefix("hf:")
            check_hub_model(name)
            try:
                self.processor = AutoProcessor.from_pretrained(name, backend="pil")
                self.model = AutoModelForImageTextToText.from_pretrained(name, dtype=torch_dtype(self.dtype))
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

    def _key(self, kind: str, prompt: str, images: Sequence[Path], extra: Any = None) -> str:
        from senso.core.fingerprint import file_sha256

        return cache_key("transformers-vlm", self.fingerprint, kind, prompt,
                         [file_sha256(Path(p), "image") for p in images], extra)

    def yes_no_keys(self, requests: Sequence[tuple[str, Path]]) -> list[str]:
        """The cache key of each (prompt, image) yes/no request."""
        return [self._key("yes-no", prompt, [image]) for prompt, image in requests]

    def generate_keys(self, requests: Sequence[tuple[str, Sequence[Path]]], max_tokens: int) -> list[str]:
        """The cache key of each (prompt, images) generation with `max_tokens`."""
        return [self._key("generate", prompt, images, max_tokens) for prompt, images in requests]

    def _yes_no_logps(self, requests: Sequence[tuple[str, Path]]) -> list[dict[str, float]]:
        """{"logp_yes", "logp_no"} of each request: log-probs of the next token being yes / no."""
        import torch

        values = []
        for prompt, image in requests:
            model, _ = self._load()
            yes_ids, no_ids = self._answer_token_ids(YES_WORDS), self._answer_token_ids(NO_WORDS)
            if not yes_ids or not no_ids:
                raise SensoError(f"{self.spec}: 'yes' or 'no' is not a single token of its tokenizer")
            with torch.inference_mode():
                logits = model(**self._inputs(prompt, [image])).logits[0, -1].float()
            logp = torch.log_softmax(logits, dim=-1)
            yes, no = torch.logsumexp(logp[yes_ids], 0).item(), torch.logsumexp(logp[no_ids], 0).item()
            values.append({"logp_yes": yes, "logp_no": no})
        return values

    def yes_probabilities(self, requests: Sequence[tuple[str, Path]]) -> list[YesNo]:
        return _yes_nos(self._yes_no_logps(requests))

    def generate(self, requests: Sequence[tuple[str, Sequence[Path]]], max_tokens: int) -> list[str]:
        import torch

        answers = []
        for prompt, images in requests:
            model, processor = self._load()
            inputs = self._inputs(prompt, images)
            with torch.inference_mode():
                out = model.generate(**inputs, max_new_tokens=max_tokens, do_sample=False)
            answers.append(processor.tokenizer.decode(out[0, inputs["input_ids"].shape[1]:], skip_special_tokens=True))
        return answers


def vision_lm(spec: str, base_url: str | None = None, cache: ResponseCache | None = None, device: str = "cpu",
              dtype: str = "float32", settings: dict[str, Any] | None = None) -> VisionLM:
    """`openai:SERVED_NAME` (with base_url; `settings` are the openai backend's --model-args plus
    `judge_scoring` and `image_detail`) or `hf:NAME_OR_PATH`."""
    from senso.backends.specs import parse_spec

    settings = dict(settings or {})
    parsed = parse_spec(spec, "vlm")
    if parsed.backend == "openai":
        from senso.backends.openai import OPENAI_PARAMS, load_openai_lm

        lm = load_openai_lm(parsed, base_url, cache, {k: v for k, v in settings.items() if k in OPENAI_PARAMS})
        own = VlmSettings.from_values(VLM_PARAMS.resolve({k: v for k, v in settings.items() if k in VLM_PARAMS},
                                                         "a served VLM"))
        return OpenAIVisionLM(lm, detail=own.image_detail, scoring=own.judge_scoring)
    return with_cache(TransformersVLM(str(parsed), device=device, dtype=dtype), cache)
