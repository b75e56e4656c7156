"""Any OpenAI-compatible server (vLLM, SGLang, llama.cpp, llama-cpp-python, hosted APIs) as a backend.

Likert scoring (`loglikelihood_choices`, the same call as the in-process transformers backend), with
lm-evaluation-harness semantics: the context's trailing whitespace moves into each continuation, so
for CALAMITA the continuations are "\\n 1" ... "\\n 5" after the prompt without its final newline.

- `last-token` (used by `auto` when the choices differ only in their last character): ONE
  `completions` request per item whose prompt is the context plus the shared part of the
  continuations ("\\n "), `max_tokens=1`, top-k `logprobs`; each choice's log-prob is read from the
  top-k list. The values are log p(choice's last token | context + shared part): the shared part's
  log-prob is the same for all choices and is not included, so argmax predictions and renormalised
  expected scores equal full-continuation scoring. A choice absent from the top-k gets the k-th
  log-prob, an upper bound, and is flagged (`last_scores[i].bounded`), never guessed.
  Assumes the tokenizer splits the shared part from the choice (true for SentencePiece/Gemma, Llama,
  Qwen digits); use `echo` where it does not.
- `echo` (used by `auto` for multi-token choices): one request per (item, choice) with `echo=True`,
  reading the prompt log-probs of the continuation tokens: the full lm-eval log-likelihood. Needs a
  server that returns prompt log-probs (vLLM, llama-cpp-python); others get a clear error.
- `generate` (chat-only APIs without log-probs): asks `chat/completions` for the answer and parses the
  choice label; unparseable answers are recorded as such. Not the official likelihood protocol.

The model only sends requests (`post_many`, concurrently). Behind `senso.backends.cached.Cached` (what
`load_model` gives unless `--no-cache`) every response is cached (namespace "openai") under the base URLs,
the served model, the model card the server reports and the exact request (`request_keys`), as soon as it
arrives: a run stopped midway (server gone, process killed) resumes without resending finished requests.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from senso.backends.cached import CachedMethod, with_cache
from senso.backends.http_pool import RetryPolicy, ServerError, ServerPool, Session
from senso.backends.logprobs import TokenLogprob, choice_logprobs
from senso.backends.specs import ModelSpec, parse_spec
from senso.core.errors import SensoError
from senso.core.options import DEFAULT_BATCH_SIZE
from senso.core.params import Configurable, declared, param
from senso.core.cache import ResponseCache, cache_key

SCORING_MODES = ("auto", "last-token", "echo", "generate")


@dataclass
class OpenAISettings(Configurable):
    """The settings of a served model (`--model-args KEY=VALUE`, or `model_args={...}` of senso.evaluate)."""

    scoring: str = param("auto", "how choices are scored: auto (last-token when the choices differ in their last "
                                 "character, else echo), last-token, echo, or generate (parse a chat answer)",
                         choices=SCORING_MODES)
    top_logprobs: int = param(20, "log-probs asked per position (a choice outside them is bounded and flagged)",
                              minimum=1)
    api_key_env: str = param("OPENAI_API_KEY", "the environment variable holding the API key (never recorded)")
    concurrency: int = param(4, "requests in flight per server URL", minimum=1)
    timeout: float = param(600.0, "seconds to wait for one response", minimum=0)
    max_retries: int = param(5, "retries of a request on 429/5xx and network errors", minimum=0)
    backoff: float = param(0.5, "seconds before the first retry (doubling, up to 30 s)", minimum=0)


OPENAI_PARAMS = declared(OpenAISettings)
CACHE_NAMESPACE = "openai"


@dataclass(frozen=True)
class ChoiceSplit:
    """A prompt split the lm-eval way: `context` (trailing whitespace removed), the `shared` leading
    part of all continuations (that whitespace included) and each choice's distinct `suffixes`."""

    context: str
    shared: str
    suffixes: tuple[str, ...]

    @property
    def continuations(self) -> tuple[str, ...]:
        return tuple(self.shared + s for s in self.suffixes)


def split_choices(context: str, continuations: Sequence[str]) -> ChoiceSplit:
    stripped = context.rstrip()
    moved = context[len(stripped):]
    full = [moved + c for c in continuations]
    shared = os.path.commonprefix(full)
    suffixes = tuple(c[len(shared):] for c in full)
    if len(set(suffixes)) != len(suffixes) or any(not s for s in suffixes):
        raise SensoError(f"choices {list(continuations)!r} are not distinct continuations of one another")
    return ChoiceSplit(stripped, shared, suffixes)


@dataclass(frozen=True)
class ChoiceScores:
    """Log-probs of one item's choices; `bounded[i]`: choice i was not in the top-k list and its
    value is only an upper bound (the k-th log-prob)."""

    logprobs: tuple[float, ...]
    bounded: tuple[bool, ...]
    mode: str


@dataclass(frozen=True)
class GeneratedAnswer:
    """A generated answer: `choice` is the index of the parsed label, None when unparseable."""

    text: str
    choice: int | None
    reason: str | None = None


@dataclass(frozen=True)
class ChatResult:
    text: str
    finish_reason: str | None
    tokens: tuple[TokenLogprob, ...] | None = None  # with log-probs when asked for and given


def parse_choice(answer: str, labels: Sequence[str]) -> GeneratedAnswer:
    """The one label (e.g. "1"..."5") standing alone in the answer; unparseable when none or several differ."""
    found = {label for label in labels
             if re.search(rf"(?<![0-9A-Za-z]){re.escape(label)}(?![0-9A-Za-z])", answer)}
    if len(found) == 1:
        label = found.pop()
        return GeneratedAnswer(answer, list(labels).index(label))
    reason = "no choice label in the answer" if not found else f"several choice labels in the answer: {sorted(found)}"
    return GeneratedAnswer(answer, None, reason)


Request = tuple[str, dict[str, Any]]  # (path, JSON body) of one POST


class OpenAICompatLM:
    """A model served by OpenAI-compatible server(s); `model` is the served name (`openai:NAME` spec)."""

    CACHED = {"post_many": CachedMethod(CACHE_NAMESPACE, keys="request_keys", streams=True, progress_indices=True)}
    CACHED_INNER = True  # scoring and chat call `post_many`: through the wrapper, they are served from the cache

    def __init__(self, model: str, base_urls: Sequence[str] | str, *,
                 scoring: str = "auto", top_logprobs: int = 20, api_key_env: str = "OPENAI_API_KEY",
                 concurrency: int = 4, retry: RetryPolicy = RetryPolicy()):
        if scoring not in SCORING_MODES:
            raise SensoError(f"unknown scoring {scoring!r}; choose from {', '.join(SCORING_MODES)}")
        if top_logprobs < 1:
            raise SensoError(f"top_logprobs must be at least 1, got {top_logprobs}")
        if isinstance(base_urls, str):
            base_urls = [u for u in base_urls.split(",") if u.strip()]
        self.model = model
        self.pool = ServerPool(base_urls, api_key_env=api_key_env, concurrency=concurrency, retry=retry)
        self.scoring = scoring
        self.top_logprobs = top_logprobs
        self.last_scores: list[ChoiceScores] = []
        self.bounded_choices = 0
        self.requests_asked = 0  # requests scoring and chat needed (from the cache or sent)
        self.requests_posted = 0  # of those, the ones sent to the server
        self._card: dict[str, Any] | None = None
        self._system_fingerprints: set[str] = set()

    # ---- identity -------------------------------------------------------------------------
    @property
    def spec(self) -> str:
        return f"openai:{self.model}"

    @property
    def model_card(self) -> dict[str, Any]:
        """The server's /models entry for the served model (timestamps dropped); queried once."""
        if self._card is None:
            async def fetch(session: Session):
                return await session.request("GET", "/models")

            listing = self.pool.run([fetch])[0]
            entries = listing.get("data", []) if isinstance(listing, dict) else []
            ids = [e.get("id") for e in entries if isinstance(e, dict)]
            matches = [e for e in entries if isinstance(e, dict) and e.get("id") == self.model]
            if not matches:
                raise SensoError(f"{self.pool.base_urls[0]}/models does not list model {self.model!r}; "
                                 f"it serves {ids}. Use --model openai:NAME with one of these.")
            self._card = {k: v for k, v in matches[0].items() if k != "created"}
        return self._card

    @property
    def fingerprint(self) -> str:
        """sha256 of the server's model card (what it reports about the model: vLLM's root path and
        context length, llama.cpp's parameter count and sizes, or just the name)."""
        blob = json.dumps(self.model_card, sort_keys=True, ensure_ascii=False)
        return "server:" + hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def describe(self) -> dict[str, Any]:
        """What a run record says about this model (never the API key)."""
        return {
            "backend": "openai",
            "spec": self.spec,
            "served_model": self.model,
            "server": self.pool.describe(),
            "model_card": self.model_card,
            "fingerprint": self.fingerprint,
            "system_fingerprints": sorted(self._system_fingerprints),
            "scoring": self.scoring,
            "official_protocol": self.scoring != "generate",
            "values": ("log p(last token of each choice | context + shared continuation prefix)"
                       if self.scoring in ("auto", "last-token") else
                       "full continuation log-likelihood (echo)" if self.scoring == "echo" else
                       "generated answer parsed for a choice label (no log-likelihoods)"),
            "top_logprobs": self.top_logprobs,
            "bounded_choices": self.bounded_choices,
            "requests_sent": self.pool.requests_sent,
            "requests_from_cache": self.requests_cached,
            "retries": self.pool.retries,
        }

    @property
    def requests_cached(self) -> int:
        """Requests answered without sending them (from the cache, or the same request in one call)."""
        return self.requests_asked - self.requests_posted

    # ---- requests -------------------------------------------------------------------------
    def _key(self, path: str, body: dict[str, Any]) -> str:
        return cache_key("openai-request", sorted(self.pool.base_urls), self.model, self.fingerprint, path, body)

    def request_keys(self, requests: Sequence[Request]) -> list[str]:
        """The cache key of each request's response: base URLs, served model, model card and exact request."""
        return [self._key(path, body) for path, body in requests]

    def post_many(self, requests: Sequence[Request], progress: Callable[[list[int]], None] | None = None,
                  on_batch: Callable[[dict[int, Any]], None] | None = None) -> list[Any]:
        """The JSON response of each POST, sent concurrently; as each arrives, `on_batch({its index: response})`
        (the cache wrapper stores it there) and `progress([its index])` are called."""
        self.fingerprint  # the card first: a wrong model name fails before any work
        self.requests_posted += len(requests)

        async def one(session: Session, i: int) -> Any:
            path, body = requests[i]
            response = await session.request("POST", path, body, index=i)
            if isinstance(response, dict) and response.get("system_fingerprint"):
                self._system_fingerprints.add(str(response["system_fingerprint"]))
            if on_batch is not None:
                on_batch({i: response})
            if progress is not None:
                progress([i])
            return response

        return self.pool.run([lambda s, i=i: one(s, i) for i in range(len(requests))])

    def _responses(self, requests: list[Request], owners: list[int],
                   progress: Callable[[int], None] | None) -> list[Any]:
        """`post_many(requests)`, with `progress(n)` counting the callers' items (`owners[j]`: request j's item)
        whose requests have all been answered."""
        self.fingerprint
        self.requests_asked += len(requests)
        left = Counter(owners)

        def done(indices: list[int]) -> None:
            finished = 0
            for j in indices:
                left[owners[j]] -= 1
                finished += left[owners[j]] == 0
            if finished:
                progress(finished)

        return self.post_many(requests, progress=done if progress is not None else None)

    # ---- Likert / multiple choice ---------------------------------------------------------
    def _mode(self, split: ChoiceSplit) -> str:
        if self.scoring == "generate":
            raise SensoError("scoring=generate has no log-likelihoods: use generate_choices() "
                             "(the run is then not the official likelihood protocol)")
        if self.scoring != "auto":
            return self.scoring
        return "last-token" if all(len(s) == 1 for s in split.suffixes) else "echo"

    def _last_token_body(self, split: ChoiceSplit) -> dict[str, Any]:
        return {"model": self.model, "prompt": split.context + split.shared, "max_tokens": 1,
                "temperature": 0, "logprobs": self.top_logprobs}

    def _score_last_token(self, split: ChoiceSplit, response: Any) -> ChoiceScores:
        tokens = choice_logprobs(response, f"{self.pool.base_urls[0]}/completions")
        if not tokens or not tokens[0].top:
            raise ServerError("completions response has no top log-probs for the generated token "
                              f"(asked for {self.top_logprobs}); the server may cap `logprobs` lower")
        top = tokens[0].top
        floor = min(top.values())
        values = tuple(top.get(s, floor) for s in split.suffixes)
        bounded = tuple(s not in top for s in split.suffixes)
        return ChoiceScores(values, bounded, "last-token")

    def _echo_body(self, split: ChoiceSplit, continuation: str) -> dict[str, Any]:
        return {"model": self.model, "prompt": split.context + continuation, "max_tokens": 1, "temperature": 0,
                "logprobs": 1, "echo": True}

    def _score_echo(self, split: ChoiceSplit, responses: list[Any]) -> ChoiceScores:
        values = tuple(self._echo_loglikelihood(response, split.context, split.context + continuation)
                       for continuation, response in zip(split.continuations, responses, strict=True))
        return ChoiceScores(values, (False,) * len(values), "echo")

    def _echo_loglikelihood(self, response: Any, context: str, prompt: str) -> float:
        where = f"{self.pool.base_urls[0]}/completions (echo)"
        tokens = choice_logprobs(response, where)
        if not tokens or any(t.offset is None for t in tokens):
            raise ServerError(f"{where}: the server returns no prompt log-probs with text offsets (echo); "
                              "multi-token choices need one that does (vLLM, llama-cpp-python), "
                              "or a tokenizer-aware backend (hf)")
        start = len(context)
        offsets = [t.offset for t in tokens]
        if start not in offsets:
            raise ServerError(f"{where}: a token spans the end of the context (offset {start}); "
                              "context and continuation do not tokenize apart")
        scored = [t for t in tokens if start <= t.offset < len(prompt)]
        if any(t.logprob is None for t in scored):
            raise ServerError(f"{where}: missing log-prob for a continuation token")
        return float(sum(t.logprob for t in scored))

    def score_choices(self, prompts: Sequence[Any], progress: Callable[[int], None] | None = None) -> list[ChoiceScores]:
        """ChoiceScores per prompt (each with `.context` and `.continuations`)."""
        splits = [split_choices(p.context, p.continuations) for p in prompts]
        modes = [self._mode(split) for split in splits]
        requests: list[Request] = []
        owners: list[int] = []
        for i, (split, mode) in enumerate(zip(splits, modes)):
            bodies = ([self._last_token_body(split)] if mode == "last-token" else
                      [self._echo_body(split, c) for c in split.continuations])
            requests += [("/completions", body) for body in bodies]
            owners += [i] * len(bodies)
        responses = self._responses(requests, owners, progress)
        per_item: list[list[Any]] = [[] for _ in splits]
        for owner, response in zip(owners, responses):
            per_item[owner].append(response)
        scores = [self._score_last_token(split, got[0]) if mode == "last-token" else self._score_echo(split, got)
                  for split, mode, got in zip(splits, modes, per_item)]
        self.last_scores = scores
        self.bounded_choices += sum(sum(s.bounded) for s in scores)
        return scores

    def loglikelihood_choices(self, prompts: Sequence[Any], batch_size: int = DEFAULT_BATCH_SIZE,
                              progress: Callable[[int], None] | None = None) -> list[list[float]]:
        """Per prompt, one log-prob per continuation (see the module docstring for what they are).
        `batch_size` is accepted for interface parity; the server batches, `concurrency` bounds requests."""
        return [list(s.logprobs) for s in self.score_choices(prompts, progress)]

    # ---- generation -----------------------------------------------------------------------
    def _chat_body(self, messages: list[dict[str, Any]], max_tokens: int, temperature: float,
                   top_logprobs: int | None, seed: int | None) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": messages, "max_tokens": max_tokens,
                                "temperature": temperature}
        if seed is not None:
            body["seed"] = seed
        if top_logprobs is not None:
            body["logprobs"] = True
            body["top_logprobs"] = top_logprobs
        return body

    def _chat_result(self, response: Any, want_logprobs: bool) -> ChatResult:
        where = f"{self.pool.base_urls[0]}/chat/completions"
        try:
            choice = response["choices"][0]
            text = choice["message"].get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError):
            raise ServerError(f"{where}: response has no message: {str(response)[:300]}") from None
        tokens = tuple(choice_logprobs(response, where)) if want_logprobs else None
        return ChatResult(text, choice.get("finish_reason"), tokens)

    def chat_many(self, conversations: Sequence[list[dict[str, Any]]], max_tokens: int = 256, temperature: float = 0.0,
                  logprobs: int | None = None, seed: int | None = None,
                  progress: Callable[[int], None] | None = None) -> list[ChatResult]:
        """One `chat/completions` answer per conversation; `logprobs=k` asks for the top-k per token.
        Cached by exact request: with temperature > 0 pass a `seed` to get distinct cached samples."""
        requests = [("/chat/completions", self._chat_body(list(m), max_tokens, temperature, logprobs, seed))
                    for m in conversations]
        responses = self._responses(requests, list(range(len(requests))), progress)
        return [self._chat_result(response, logprobs is not None) for response in responses]

    def chat(self, messages: list[dict[str, Any]], max_tokens: int = 256, temperature: float = 0.0,
             logprobs: int | None = None, seed: int | None = None) -> ChatResult:
        return self.chat_many([messages], max_tokens, temperature, logprobs, seed)[0]

    def generate_choices(self, prompts: Sequence[Any], max_tokens: int = 8,
                         progress: Callable[[int], None] | None = None) -> list[GeneratedAnswer]:
        """`generate` mode: the prompt (without trailing whitespace) as one user message, greedy,
        answer parsed for exactly one choice label (continuations stripped: "1" ... "5")."""
        conversations = [[{"role": "user", "content": p.context.rstrip()}] for p in prompts]
        results = self.chat_many(conversations, max_tokens=max_tokens, temperature=0.0, progress=progress)
        return [parse_choice(r.text, [c.strip() for c in p.continuations]) for r, p in zip(results, prompts)]


def load_openai_lm(spec: str | ModelSpec, base_url: str | None, cache: ResponseCache | None = None,
                   settings: dict[str, Any] | None = None) -> OpenAICompatLM:
    """`openai:NAME` (or a bare NAME) served at `base_url` (comma-separated for several), behind `cache`
    (`senso.backends.cached.with_cache`: none when None or disabled); `settings` are values of OpenAISettings' parameters
    (scoring, top_logprobs, api_key_env, concurrency, timeout, max_retries, backoff), typed by their declaration."""
    own = OpenAISettings.from_values(OPENAI_PARAMS.resolve(settings or {}, "the openai backend"))
    name = (spec if isinstance(spec, ModelSpec) else parse_spec(spec, "lm", default_backend="openai")).name
    base_url = base_url or os.environ.get("OPENAI_BASE_URL")
    if not base_url:
        raise SensoError(f"{spec}: no server; pass --base-url http://HOST:PORT/v1 (or set OPENAI_BASE_URL)")
    retry = RetryPolicy(max_retries=own.max_retries, backoff=own.backoff, timeout=own.timeout)
    return with_cache(OpenAICompatLM(name, base_url, scoring=own.scoring, top_logprobs=own.top_logprobs,
                                     api_key_env=own.api_key_env, concurrency=own.concurrency, retry=retry), cache)


def load_loglikelihood_model(name: str, *, cache: ResponseCache | None = None, chat_template: bool = False,
                             base_url: str | None = None, **settings: Any) -> OpenAICompatLM:
    """Entry point for `senso.backends.specs.load_loglikelihood_model` (spec `openai:NAME`):
    `base_url` (comma-separated for several) and `--model-args` settings as keyword arguments."""
    scoring = OpenAISettings.from_values(OPENAI_PARAMS.resolve(settings, "the openai backend")).scoring
    if chat_template and scoring != "generate":
        raise SensoError("--chat-template with the openai backend: servers apply chat templates only in "
                         "chat/completions; use --model-args scoring=generate (not the official likelihood protocol)")
    return load_openai_lm(ModelSpec("openai", name), base_url, cache, settings)
