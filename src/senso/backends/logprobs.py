"""Token log-probabilities out of OpenAI-compatible responses, whatever shape the server uses.

Two shapes exist for a choice's `logprobs`:
- legacy completions (OpenAI `/v1/completions`, vLLM, llama-cpp-python):
  `{"tokens": [...], "token_logprobs": [...], "top_logprobs": [{token: logprob}, ...], "text_offset": [...]}`
- content list (chat completions everywhere; llama.cpp's own server also for `/v1/completions`):
  `{"content": [{"token", "logprob", "top_logprobs": [{"token", "logprob"}, ...]}, ...]}`;
  llama.cpp with `post_sampling_probs` sends `prob` / `top_probs` instead (probabilities, not logs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from senso.backends.http_pool import ServerError


@dataclass(frozen=True)
class TokenLogprob:
    """One token: its text, log-prob (None where the server gives none, e.g. the first echoed
    token), character offset in the returned text (legacy shape only) and the top-k alternatives."""

    token: str
    logprob: float | None
    offset: int | None = None
    top: dict[str, float] = field(default_factory=dict)


def _log(prob: float) -> float:
    return math.log(prob) if prob > 0 else float("-inf")


def _merge_top(entries: list[dict[str, Any]], where: str) -> dict[str, float]:
    """List of {token, logprob|prob} -> {token: logprob}; the same text twice (two token ids that
    decode alike) keeps the higher value, which is the one a text continuation is scored by."""
    top: dict[str, float] = {}
    for entry in entries:
        if not isinstance(entry, dict) or "token" not in entry:
            raise ServerError(f"{where}: top log-prob entry without a token: {entry!r}")
        if "logprob" in entry:
            value = float(entry["logprob"])
        elif "prob" in entry:
            value = _log(float(entry["prob"]))
        else:
            raise ServerError(f"{where}: top log-prob entry without logprob/prob: {entry!r}")
        top[entry["token"]] = max(value, top.get(entry["token"], float("-inf")))
    return top


def parse_logprobs(logprobs: Any, where: str = "response") -> list[TokenLogprob]:
    """The tokens of one choice, in order, from either shape; an error naming the shape otherwise."""
    if not isinstance(logprobs, dict):
        raise ServerError(f"{where}: no log-probs in the response (got {logprobs!r}); "
                          "the server may not support `logprobs` for this endpoint")
    if "content" in logprobs and isinstance(logprobs["content"], list):
        tokens = []
        for entry in logprobs["content"]:
            if "logprob" in entry:
                value = entry["logprob"]
                value = None if value is None else float(value)
            elif "prob" in entry:
                value = _log(float(entry["prob"]))
            else:
                value = None
            top_entries = entry.get("top_logprobs", entry.get("top_probs")) or []
            tokens.append(TokenLogprob(entry.get("token", ""), value, None, _merge_top(top_entries, where)))
        return tokens
    if "tokens" in logprobs and "token_logprobs" in logprobs:
        names = logprobs["tokens"]
        values = logprobs["token_logprobs"]
        tops = logprobs.get("top_logprobs") or [None] * len(names)
        offsets = logprobs.get("text_offset") or [None] * len(names)
        if not (len(names) == len(values) == len(tops) == len(offsets)):
            raise ServerError(f"{where}: log-prob lists of different lengths")
        return [
            TokenLogprob(name, None if value is None else float(value), offset,
                         {k: float(v) for k, v in (top or {}).items()})
            for name, value, top, offset in zip(names, values, tops, offsets)
        ]
    raise ServerError(f"{where}: log-probs in an unknown shape (keys {sorted(logprobs)})")


def choice_logprobs(response: Any, where: str) -> list[TokenLogprob]:
    """Parsed log-probs of the first choice of a completions or chat response."""
    try:
        choice = response["choices"][0]
    except (KeyError, IndexError, TypeError):
        raise ServerError(f"{where}: response has no choices: {str(response)[:300]}") from None
    return parse_logprobs(choice.get("logprobs"), where)
