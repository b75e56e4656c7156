"""target-similarity and pair-fitted on hand-made pairs of two senses of four words: fit, judge, relate, their
options (scikit-learn's protocol) and their errors."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from senso.core.errors import SensoError
from senso.core.params import OptionError, clone
from senso.wic.systems.context import WicContext
from senso.wic.systems.context_similarity import ContextSimilarity
from senso.wic.systems.pair_fitted import PairFitted, cross_fitted
from senso.wic.systems.registry import DEFAULT_SYSTEM, WIC_SYSTEMS


def test_context_similarity_separates_senses_it_was_not_fit_on(toy, wic_context):
    train = [p for p in toy if p.lemma in ("bank", "bat", "plant")]
    held = [p for p in toy if p.lemma == "spring"]
    system = ContextSimilarity().bind(wic_context).fit(train)
    p = np.array(system.judge(held))
    gold = np.array([pair.label for pair in held])
    assert ((p > 0) & (p < 1)).all()
    assert p[gold == 1].mean() > p[gold == 0].mean()
    related = np.array(system.relate(held))
    assert related[gold == 1].mean() > related[gold == 0].mean()
    assert system.describe()["threshold"] == pytest.approx(system.threshold)


def test_judging_before_fit_says_so(toy, wic_context):
    with pytest.raises(SensoError, match="must be fit on training pairs before judging"):
        ContextSimilarity().judge(toy[:2])
    with pytest.raises(SensoError, match="must be fit"):
        ContextSimilarity(centre=True).relate(toy[:2])  # centring's offset comes from the training rows
    assert len(ContextSimilarity().bind(wic_context).relate(toy[:2])) == 2


def test_pair_fitted_learns_from_labels_and_scores(toy, wic_context):
    system = PairFitted(folds=2, layers=(4, 8, 12)).bind(wic_context).fit([p for p in toy if p.lemma != "spring"])
    held = [p for p in toy if p.lemma == "spring"]
    p, related = np.array(system.judge(held)), np.array(system.relate(held))
    gold = np.array([pair.label for pair in held])
    assert p[gold == 1].mean() > p[gold == 0].mean() and related[gold == 1].mean() > related[gold == 0].mean()
    assert set(system.chosen_) == {"C", "alpha"}
    assert len(system.feature_names) == system.features(held).shape[1]
    again = pickle.loads(pickle.dumps(system))  # the run's cache is left behind, what was fit kept
    assert again.judge(held) == list(p) and again.relate(held) == list(related)


def test_cross_fitted_scores_every_pair_by_a_model_that_never_saw_its_lemma(toy, wic_context):
    judged, related = cross_fitted(PairFitted(folds=2, layers=(8,)).bind(wic_context), toy, folds=4)
    assert len(judged) == len(related) == len(toy) and all(0 <= p <= 1 for p in judged)


def test_options_follow_scikit_learns_protocol():
    system = PairFitted()
    assert system.get_params()["layers"] == tuple(range(13))
    system.set_params(layers=(1, 2), graded="isotonic")
    assert clone(system).get_params() == system.get_params()
    with pytest.raises(OptionError):
        system.set_params(graded="cubic")
    with pytest.raises(SensoError, match="layers are 0 .* to 12"):
        ContextSimilarity(layers=(13,))
    assert pickle.loads(pickle.dumps(ContextSimilarity())).layers == ContextSimilarity().layers


def test_wrong_inputs_are_errors_naming_them(toy):
    with pytest.raises(SensoError, match="takes a list of WicPair, got str"):
        ContextSimilarity(centre=False).relate("bank")
    with pytest.raises(SensoError, match="item 1 is a dict"):
        ContextSimilarity(centre=False).relate([toy[0], {"id": 1}])
    with pytest.raises(SensoError, match="with a gold label or score"):
        PairFitted().fit([toy[0].__class__(**{**toy[0].__dict__, "label": None, "score": None})])


def test_registry_makes_each_system_bound_to_a_context():
    context = WicContext()
    for name, row in WIC_SYSTEMS.items():
        system = row.make({}, context)
        assert type(system) is row.options and set(row.params.names) <= set(system.get_params())
        assert getattr(system, "_context", context) is context
    assert set(WIC_SYSTEMS) == {"word-overlap", "lemma-prior", "target-similarity", "tuned-similarity",
                                "pair-fitted", "pair-lm"}
    assert DEFAULT_SYSTEM == "pair-fitted"


def test_the_systems_of_one_run_share_its_encoder():
    context = WicContext()
    first, second = (WIC_SYSTEMS["pair-fitted"].make({}, context) for _ in range(2))
    assert first.encoder_ is second.encoder_  # each leave-lemma-out fold's copy reads the same memo
    assert WIC_SYSTEMS["target-similarity"].make({}, context).encoder_ is first.encoder_
    assert WIC_SYSTEMS["target-similarity"].make({"prefix": "none"}, context).encoder_ is not first.encoder_
    assert ContextSimilarity().encoder_ is not ContextSimilarity().encoder_  # no run: each its own


def test_pair_fitted_features_do_not_depend_on_the_pairs_order(toy, wic_context):
    from dataclasses import replace

    system = WIC_SYSTEMS["pair-fitted"].make({}, wic_context).fit(toy)
    swapped = [replace(p, first=p.second, second=p.first) for p in toy]
    assert np.allclose(system.features(toy), system.features(swapped), atol=1e-6)
    assert np.allclose(system.judge(toy), system.judge(swapped), atol=1e-6)
    fewer = WIC_SYSTEMS["pair-fitted"].make({"cross": False, "own": False, "raw": False, "centred_sentence": False},
                                            wic_context).fit(toy)
    tuned = lambda s: len(s.tuned_.weights) if s.tuned_ is not None else 0  # noqa: E731  (kept where it paid)
    assert fewer.features(toy).shape[1] == 2 * len(fewer.layers) + tuned(fewer) == len(fewer.feature_names)
    assert system.features(toy).shape[1] == 8 * len(system.layers) + tuned(system) == len(system.feature_names)


def test_features_in_chunks_are_the_features_at_once(toy, wic_context, monkeypatch):
    from senso.wic.systems import features

    system = WIC_SYSTEMS["pair-fitted"].make({"lemma_stats": True}, wic_context).fit(toy)
    similarity = WIC_SYSTEMS["target-similarity"].make({"centre": True}, wic_context).fit(toy)
    whole, means = system.features(toy), (system.mean_, system.sentence_mean_)
    cosines = similarity.similarity(toy)
    monkeypatch.setattr(features, "CHUNK_PAIRS", 3)
    assert np.array_equal(system.features(toy), whole) and np.array_equal(similarity.similarity(toy), cosines)
    refit = WIC_SYSTEMS["pair-fitted"].make({"lemma_stats": True}, wic_context).fit(toy)
    assert all(np.allclose(a, b, atol=1e-6) for a, b in zip((refit.mean_, refit.sentence_mean_), means))
