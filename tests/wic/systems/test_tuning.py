"""pair-fitted's fine-tuned blocks: their training targets, that training moves the cosines toward the gold and
repeats itself exactly, the token states the encoder keeps, and the tuned features pair-fitted reads."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from senso.core.errors import SensoError
from senso.wic.systems.encoder import UsageEncoder, engine
from senso.wic.systems.features import pair_usages, rowwise_cosine
from senso.wic.systems.pair_fitted import PairFitted
from senso.wic.systems.tuning import TunedBlocks, training_targets, tune_blocks

from conftest import usage


def test_targets_are_labels_else_scores_scaled_by_their_range():
    got = training_targets([1, None, 0, None, None], [None, 4.0, 3.0, 1.0, None])
    assert got[:4].tolist() == [1.0, 1.0, 0.0, 0.0] and np.isnan(got[4])
    assert training_targets([None, None], [2.0, 2.0]).tolist() == [0.5, 0.5]  # one score: no range to scale by


def _gap(model, blocks, first, second, gold) -> float:
    """Mean tuned cosine of the 'same' pairs minus that of the 'different' pairs."""
    cosine = rowwise_cosine(blocks.vectors(model, first), blocks.vectors(model, second)).mean(axis=1)
    return float(cosine[gold == 1].mean() - cosine[gold == 0].mean())


def test_tuning_pulls_same_sense_pairs_together_and_repeats_itself(toy):
    model, encoder = engine("e5-f32"), UsageEncoder()
    train = [p for p in toy if p.lemma != "spring"]
    states = encoder.token_states(*pair_usages(train), 10, 64)
    first, second = states[: len(train)], states[len(train):]
    gold = np.array([p.label for p in train], dtype=float)
    untuned = TunedBlocks(10, model.block_weights(10))
    tuned = tune_blocks(model, first, second, gold, 10, epochs=4, rate=1e-3)
    assert _gap(model, tuned, first, second, gold) > _gap(model, untuned, first, second, gold) + 0.05
    again = tune_blocks(model, first, second, gold, 10, epochs=4, rate=1e-3)
    assert all(np.array_equal(a.numpy(), b.numpy()) for one, two in zip(tuned.weights, again.weights)
               for name in one for a, b in zip(one[name], two[name]))
    assert not np.array_equal(tuned.weights[0]["fi"][0].numpy(), untuned.weights[0]["fi"][0].numpy())
    together = tuned.vectors(model, first)  # a usage's vector is its own, whatever is scored with it
    assert all(np.array_equal(tuned.vectors(model, [first[i]])[0], together[i]) for i in (0, 7, len(first) - 1))
    with pytest.raises(SensoError, match="at least two training pairs"):
        tune_blocks(model, first[:1], second[:1], gold[:1], 10, epochs=1, rate=1e-3)


def test_states_kept_by_the_vectors_pass_are_the_states_computed_alone():
    short = usage("He swung the bat at the ball.", "bat")
    long = usage("The bat flew out of the cave " + "and over the hills " * 12 + ".", "bat")
    keeping = UsageEncoder(keep_states=(8, 16))
    keeping.encode([short, long])
    assert set(keeping._states) == {(keeping.key(short), 8, 16)}  # the long one's 16-token window is not its pass's
    kept = keeping.token_states([short, long], ["", ""], 8, 16)
    alone = UsageEncoder().token_states([short, long], ["", ""], 8, 16)
    assert len(kept[1].states) == len(alone[1].states) == 18  # 16 content tokens, <s> and </s>
    for one, other in zip(kept, alone):
        assert np.array_equal(one.target, other.target) and np.allclose(one.states, other.states, atol=1e-4)


def _prefer(tuned: bool):
    """A held-out check that finds the features with the tuned cosines better (or worse) than those without."""
    def loss(system, pairs, x, train, held):
        return float(x.shape[1] == system._base_width) if tuned else float(x.shape[1] != system._base_width)
    return loss


@pytest.mark.parametrize("pays", [True, False])
def test_pair_fitted_keeps_the_tuned_cosines_where_they_pay_on_held_out_lemmas(toy, wic_context, monkeypatch, pays):
    train, held = [p for p in toy if p.lemma != "spring"], [p for p in toy if p.lemma == "spring"]
    base = PairFitted(folds=2, layers=(8, 12), tune_layers=0).bind(wic_context).fit(train)
    monkeypatch.setattr(PairFitted, "_base_width", base.features(held).shape[1], raising=False)
    monkeypatch.setattr(PairFitted, "_held_out_loss", _prefer(pays))
    system = PairFitted(folds=2, layers=(8, 12), tune_layers=2, tune_epochs=1).bind(wic_context).fit(train)
    assert system.describe()["tuned"]["kept"] is pays and system.describe()["tuned"]["held_out_pairs"] > 0
    assert (system.tuned_ is not None) is pays
    assert system.features(held).shape[1] == len(system.feature_names) == base.features(held).shape[1] + 2 * pays
    assert np.array_equal(system.features(held)[:, : base.features(held).shape[1]], base.features(held))
    if pays:
        assert system.feature_names[-2:] == ["tuned_target_cos_11", "tuned_target_cos_12"]
    again = pickle.loads(pickle.dumps(system))
    assert again.judge(held) == system.judge(held) and again.relate(held) == system.relate(held)


def test_the_held_out_check_reads_log_loss_of_labels_and_spearman_of_scores(toy, wic_context):
    from scipy.stats import spearmanr
    from sklearn.metrics import log_loss

    system = PairFitted(folds=2, layers=(12,), tune_layers=0).bind(wic_context).fit(toy)
    x, lemmas = system.features(toy), np.array([p.lemma for p in toy])
    train, held = np.flatnonzero(lemmas != "spring"), np.flatnonzero(lemmas == "spring")
    classifier, regressor, _ = system._fit_models([toy[i] for i in train], x[train])
    gold = [toy[i].label for i in held]
    expected = log_loss(gold, classifier.predict_proba(x[held])[:, 1])
    assert system._held_out_loss(toy, x, train, held) == pytest.approx(expected)
    scored_only = [p.__class__(**{**p.__dict__, "label": None}) for p in toy]
    rho = spearmanr(regressor.predict(x[held]), [toy[i].score for i in held]).statistic
    assert system._held_out_loss(scored_only, x, train, held) == pytest.approx(-rho)


@pytest.mark.parametrize("values", [{"tune_layers": -1}, {"tune_rate": "fast"}, {"tune_epochs": 0},
                                    {"tune_pairs": 1}, {"tune_window": True}])
def test_wrong_tuning_options_are_errors_naming_them(values):
    with pytest.raises(SensoError, match=next(iter(values))):
        PairFitted().set_params(**values)


def test_more_tuned_blocks_than_the_encoder_has_is_an_error(toy):
    with pytest.raises(SensoError, match="tune_layers is 0 to the encoder's 12 blocks, got 13"):
        PairFitted(folds=2, tune_layers=13).fit(toy)
