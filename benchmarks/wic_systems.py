"""The word-in-context systems against the issue's goals, on the data we have (WiC EN, WiC-ITA, DWUG EN).

    PYTHONPATH=src python benchmarks/wic_systems.py [--wic-dir ../shared/data/wic] [--part goals|variants|speed|all]

- `goals`: WiC-ITA dev (binary macro F1, ranking Spearman; it-en: no gold exists, so its predicted-positive rate and
  the mean similarity beside it-it's, on the test inputs), English WiC dev accuracy, DWUG EN pair-level Spearman
  (5 folds grouped by lemma), for target-similarity and pair-fitted (fit on train, scored on dev once), and
  tuned-similarity's (blocks tuned on WiC-ITA's and English WiC's training pairs) beside them;
- `variants`: the ideas, each measured by grouped (leave-lemma-out) CV on the training rows, then on dev;
- `speed`: WiC-ITA dev through target-similarity from an empty cache (fit's training vectors cached first, and
  from nothing at all), and the whole WiC-ITA test (1,000 pairs) through pair-fitted including its fit, cold.
Every time is printed with the machine's load (/proc/loadavg) before and after.

    PYTHONPATH=src python benchmarks/wic_systems.py --smoke    # seconds: the first pairs of each set, private cache
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _smoke import add_smoke_option, smoke  # noqa: E402
from _wic_data import DATA, read_dwug, read_wic_en, read_wic_ita, sample_lemmas  # noqa: E402

SMOKE_PAIRS = 24


def load() -> str:
    return open("/proc/loadavg").read().split(" ")[0]


def wic_ita(root: Path, sizes: argparse.Namespace, limit: int | None):
    """(train, dev, test it-it, test it-en) WiC-ITA pairs: train the ranking rows (of `sizes.it_lemmas` lemmas drawn
    at random, or all) with the binary labels joined where the binary file has the pair; dev the binary labels with
    the ranking scores."""
    from dataclasses import replace

    labels = {p.pair_id: p.label for p in read_wic_ita("binary", "train", root)}
    train = [replace(p, label=labels.get(p.pair_id)) for p in read_wic_ita("ranking", "train", root)]
    scores = {p.pair_id: p.score for p in read_wic_ita("ranking", "dev", root)}
    dev = [replace(p, score=scores[p.pair_id]) for p in read_wic_ita("binary", "dev", root)]
    tests = read_wic_ita("binary", "test", root), read_wic_ita("binary", "test_eng", root)
    train = sample_lemmas(train, sizes.it_lemmas) if sizes.it_lemmas else train
    cut = (lambda pairs: pairs[:limit]) if limit else (lambda pairs: pairs)
    return cut(train), cut(dev), cut(tests[0]), cut(tests[1])


def wic_en(root: Path, sizes: argparse.Namespace, limit: int | None):
    """(train, dev) English WiC pairs: train those of `sizes.en_lemmas` lemmas drawn at random (or all)."""
    train = read_wic_en("train", root)
    train = sample_lemmas(train, sizes.en_lemmas) if sizes.en_lemmas else train
    return train[:limit], read_wic_en("dev", root)[:limit]


def binary_figures(system, pairs) -> dict[str, float]:
    from scipy.stats import spearmanr
    from sklearn.metrics import accuracy_score, f1_score

    p = system.judge(pairs)
    decide = getattr(system, "decide", lambda v: v >= 0.5)  # the system's own binary answer where it has one
    answers = [int(decide(v)) for v in p]
    gold = [pair.label for pair in pairs]
    out = {"acc": accuracy_score(gold, answers), "macroF1": f1_score(gold, answers, average="macro")}
    scored = [(pair.score, r) for pair, r in zip(pairs, system.relate(pairs)) if pair.score is not None]
    if scored:
        out["rho"] = float(spearmanr(*zip(*scored)).statistic)
    return out


def grouped_rho(system, pairs, folds: int = 5) -> float:
    """Pair-level Spearman of cross-fitted relatedness (leave-lemma-out folds)."""
    from scipy.stats import spearmanr

    from senso.wic.systems.pair_fitted import cross_fitted

    _, related = cross_fitted(system, pairs, folds)
    return float(spearmanr(related, [p.score for p in pairs]).statistic)


def grouped_binary(system, pairs, folds: int = 5) -> dict[str, float]:
    from sklearn.metrics import accuracy_score, f1_score

    from senso.wic.systems.pair_fitted import cross_fitted

    judged, _ = cross_fitted(system, [p for p in pairs if p.label is not None], folds)
    gold = [p.label for p in pairs if p.label is not None]
    answers = [int(v >= 0.5) for v in judged]
    return {"cv_acc": accuracy_score(gold, answers), "cv_macroF1": f1_score(gold, answers, average="macro")}


def fmt(figures: dict[str, float]) -> str:
    return "  ".join(f"{k} {v:.3f}" for k, v in figures.items())


def make(name: str, context, **values):
    from senso.wic.systems.registry import WIC_SYSTEMS

    return WIC_SYSTEMS[name].make(values, context)


def goals(root: Path, context, sizes: argparse.Namespace, limit: int | None) -> None:
    train, dev, test_it, test_en = wic_ita(root, sizes, limit)
    en_train, en_dev = wic_en(root, sizes, limit)
    for name in ("target-similarity", "pair-fitted"):
        system = make(name, context).fit([p for p in train if p.label is not None] if name == "target-similarity"
                                         else train)
        print(f"WiC-ITA dev  {name:<20} {fmt(binary_figures(system, dev))}", flush=True)
        for label, pairs in (("it-it", test_it), ("it-en", test_en)):
            judged, related = system.judge(pairs), system.relate(pairs)
            print(f"  test {label} (no gold): P(same)>=0.5 {np.mean(np.array(judged) >= 0.5):.3f}  "
                  f"mean relatedness {np.mean(related):.3f}", flush=True)
        en = make(name, context).fit(en_train)
        print(f"WiC EN dev   {name:<20} {fmt(binary_figures(en, en_dev))}", flush=True)
    dwug = read_dwug(root / "dwug_en" / "data", lemmas=4 if limit else None,
                     uses_per_lemma=6 if limit else sizes.dwug_uses)
    # tuned-similarity tunes on WiC-ITA's and English WiC's training pairs (in smoke mode a few, one block)
    tuned = {"tune_pairs": limit, "tune_layers": 1, "tune_epochs": 1} if limit else {}
    for name, values in (("target-similarity", {}), ("pair-fitted", {}), ("tuned-similarity", tuned)):
        print(f"DWUG EN      {name:<20} rho {grouped_rho(make(name, context, **values), dwug):.3f} (5 folds by "
              f"lemma, {len(dwug)} pairs)", flush=True)


MIDDLE = (6, 7, 8, 9)
BARE = {"raw": False, "centred_sentence": False, "cross": False, "own": False}  # pair-fitted's first features only
VARIANTS = {  # name -> (system, options): the ideas, one change at a time
    "cos layer 12 only (the default)": ("target-similarity", {}),
    "cos layers 6-9": ("target-similarity", {"layers": MIDDLE}),
    "cos layers 6-9 centred": ("target-similarity", {"layers": MIDDLE, "centre": True}),
    "cos layers 3-12 centred": ("target-similarity", {"layers": tuple(range(3, 13)), "centre": True}),
    "cos layer 12, passage": ("target-similarity", {"prefix": "passage"}),
    "cos layer 12, no prefix": ("target-similarity", {"prefix": "none"}),
    "cos layer 12, window 64": ("target-similarity", {"window": 64}),
    "fitted: target cos only": ("pair-fitted", {"sentence": False, "centre": False, **BARE}),
    "fitted: + centred": ("pair-fitted", {"sentence": False, **BARE}),
    "fitted: + sentence cos": ("pair-fitted", BARE),
    "fitted: + raw target cos": ("pair-fitted", {**BARE, "raw": True}),
    "fitted: + cross": ("pair-fitted", {**BARE, "raw": True, "cross": True}),
    "fitted: + centred sentence cos, + own (the default)": ("pair-fitted", {}),
    "fitted: default + lemma stats": ("pair-fitted", {"lemma_stats": True}),
    "fitted: default + vectors (layer 8)": ("pair-fitted", {"vectors": True}),
    "fitted: default, graded isotonic": ("pair-fitted", {"graded": "isotonic"}),
}


def variants(root: Path, context, sizes: argparse.Namespace, limit: int | None, names: list[str] | None) -> None:
    train, dev, _, _ = wic_ita(root, sizes, limit)
    en_train, en_dev = wic_en(root, sizes, limit)
    labelled = [p for p in train if p.label is not None]
    print(f"{'variant':<36} {'IT cv F1':>8} {'IT cv rho':>9} {'IT dev F1':>9} {'IT dev rho':>10} {'EN cv acc':>9} "
          f"{'EN dev acc':>10}")
    for label, (name, values) in VARIANTS.items():
        if names and label not in names:
            continue
        it_cv = grouped_binary(make(name, context, **values), labelled)
        it_rho = grouped_rho(make(name, context, **values), train)
        it_dev = binary_figures(make(name, context, **values).fit(labelled if name == "target-similarity" else train), dev)
        en_cv = grouped_binary(make(name, context, **values), en_train)
        en_dev_fig = binary_figures(make(name, context, **values).fit(en_train), en_dev)
        print(f"{label:<36} {it_cv['cv_macroF1']:>8.3f} {it_rho:>9.3f} {it_dev['macroF1']:>9.3f} {it_dev['rho']:>10.3f} "
              f"{en_cv['cv_acc']:>9.3f} {en_dev_fig['acc']:>10.3f}", flush=True)


def cold_context(tag: str):
    from senso.core.cache import ResponseCache
    from senso.wic.systems.context import WicContext

    folder = Path(tempfile.mkdtemp(prefix=f"senso-wic-{tag}-"))
    return WicContext(cache=ResponseCache(folder / "responses.sqlite"))


def timed(label: str, work) -> None:
    before, start = load(), time.perf_counter()
    result = work()
    print(f"{label}: {time.perf_counter() - start:.1f} s (load {before} -> {load()}){result or ''}", flush=True)


def speed(root: Path, context, sizes: argparse.Namespace, limit: int | None) -> None:
    from senso.wic.systems.encoder import engine

    engine("e5-f32")  # the weights' load is not the work measured
    train, dev, test_it, test_en = wic_ita(root, sizes, limit)
    labelled = [p for p in train if p.label is not None]
    system = make("target-similarity", context).fit(labelled)  # training vectors from the warm cache
    fresh = make("target-similarity", cold_context("dev"))
    fresh.mean_, fresh.coef_ = system.mean_, system.coef_
    timed(f"target-similarity judge+relate of WiC-ITA dev ({len(dev)} pairs), empty cache",
          lambda: f"; macroF1 {binary_figures(fresh, dev)['macroF1']:.3f}")
    fitted = make("pair-fitted", cold_context("test"))
    timed(f"pair-fitted fit on {len(train)} train pairs + judge and relate of WiC-ITA test "
          f"({len(test_it) + len(test_en)} pairs, it-it and it-en), empty cache",
          lambda: [fitted.fit(train)] and [fitted.judge(t) + fitted.relate(t) for t in (test_it, test_en)] and None)


def lmeval_records(path: Path) -> list[dict]:
    """lm-eval's `--log_samples` log: per doc its id, (prompt, continuation) requests and log-likelihoods."""
    import json

    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        arguments = record["arguments"]
        requests = [(a["arg_0"], a["arg_1"]) for a in (arguments.values() if isinstance(arguments, dict) else [])] \
            or [tuple(a[:2]) for a in arguments]
        out.append({"doc_id": record["doc_id"], "requests": requests,
                    "loglik": [float(r[0]) for r in record["filtered_resps"]]})
    return sorted(out, key=lambda r: r["doc_id"])


def lmeval_agreement(root: Path, samples: Path, model: str | None) -> None:
    """pair-lm against lm-eval's log of the yardstick's wic_local task on English WiC dev: the same prompt and
    continuations, the same answer, and the log-likelihoods' largest difference."""
    from senso.backends.load import load_model
    from senso.wic.systems.pair_lm import PairLM

    records = lmeval_records(samples)
    dev = read_wic_en("dev", root)
    pairs = [dev[r["doc_id"]] for r in records]
    system = PairLM(prompt="lmeval-wic")
    system._lm = load_model(model, "lm")
    prompts = system.prompts(pairs)
    same_text = sum([(p.context, c) for c in p.continuations] == r["requests"] for p, r in zip(prompts, records))
    ours = system.lm.loglikelihood_choices(prompts)
    same_choice = sum((o[1] > o[0]) == (r["loglik"][1] > r["loglik"][0]) for o, r in zip(ours, records))
    delta = max(abs(a - b) for o, r in zip(ours, records) for a, b in zip(o, r["loglik"]))
    print(f"pair-lm vs lm-eval wic_local on {len(records)} English WiC dev pairs ({system.describe()['model']}): "
          f"same prompt and continuations {same_text}/{len(records)}, same choice {same_choice}/{len(records)}, "
          f"max |delta log-likelihood| {delta:.2e}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--wic-dir", type=Path, default=Path(os.environ.get("SENSO_WIC_DIR", DATA)))
    parser.add_argument("--part", choices=("goals", "variants", "speed", "all", "none"), default="all")
    parser.add_argument("--variant", action="append", help="only this variant (repeatable)")
    parser.add_argument("--lmeval-samples", type=Path, help="lm-eval's --log_samples log of the yardstick's wic_local "
                                                          "task on English WiC dev: pair-lm is compared with it")
    parser.add_argument("--model", default=None, help="pair-lm's model for --lmeval-samples (default: the built-in)")
    parser.add_argument("--it-lemmas", type=int, default=None, help="WiC-ITA train: the pairs of this many lemmas")
    parser.add_argument("--en-lemmas", type=int, default=None, help="WiC EN train: the pairs of this many lemmas")
    parser.add_argument("--dwug-uses", type=int, default=None, help="DWUG: the pairs among each lemma's N most-judged uses")
    add_smoke_option(parser)
    args = smoke(parser.parse_args())
    limit = SMOKE_PAIRS if args.smoke else None
    if args.smoke:  # the goals' code path on the first pairs of each set (the variants and speed parts share it)
        args.part, args.en_lemmas, args.it_lemmas = "goals", None, None
    from senso.core.cache import ResponseCache
    from senso.wic.systems.context import WicContext

    context = WicContext(cache=ResponseCache())
    os.environ["SENSO_DATA_DIR"] = str(args.wic_dir.parent)  # where tuned-similarity reads the sets it tunes on
    if args.lmeval_samples:
        lmeval_agreement(args.wic_dir, args.lmeval_samples, args.model)
    if args.part in ("speed", "all"):
        speed(args.wic_dir, context, args, limit)
    if args.part in ("goals", "all"):
        goals(args.wic_dir, context, args, limit)
    if args.part in ("variants", "all"):
        variants(args.wic_dir, context, args, limit, args.variant)


if __name__ == "__main__":
    main()
