"""embedding-ridge: folds, nested-CV isolation, save/load, CSV prediction, and the real-data score.

Unit tests replace the embedding model by a deterministic hash embedding (no model weights needed);
the real-data test uses the default embedder (e5-f64) on ../shared/data.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from senso.backends.cached import with_cache
from senso.backends.embedders import Embedder
from senso.likert.data import AbricotItem, load_abricot, locate_abricot
from senso.core.errors import DataError, SensoError
from senso.core.stats import pearson
from senso.core.cache import ResponseCache
from senso.core import ridge_cv
from senso.core.grouped_cv import leave_one_group_out
from senso.likert.systems.ridge import EmbeddingRidge, SeenLemmaWarning, marked_sentence, to_prediction
from senso.likert.systems.ridge_files import predict_csv
from senso.likert.task import as_likert_items, get_task, gold_label

LEMMAS = ["cane", "gatto", "libertà", "tavolo", "idea", "fiume"]
COLUMNS = ["ID", "domain", "begin", "end", "text", "target_token", "target_lemma"]


def _hash_embed(texts: list[str], kind: str) -> np.ndarray:
    rows = []
    for text in texts:
        seed = int.from_bytes(hashlib.sha256(f"{kind}|{text}".encode()).digest()[:8], "little")
        rows.append(np.random.default_rng(seed).normal(size=16))
    return np.asarray(rows, dtype=np.float32)


@pytest.fixture(autouse=True)
def fake_embedder(monkeypatch):
    """Every Embedder computes a hash embedding: deterministic, model-free (real-data test excepted)."""
    monkeypatch.setattr(Embedder, "_compute", lambda self, texts, kind: _hash_embed(texts, kind))


def make_item(i: int, lemma: str, abs_mean: float | None = 0.5, inc_mean: float | None = 0.5) -> AbricotItem:
    word = lemma
    prefix = f"Frase {i}: il "
    text = f"{prefix}{word} è qui, numero {i}."
    return AbricotItem(id=f"{lemma.upper()}_{i}", domain="wikihow", text=text, begin=len(prefix),
                       end=len(prefix) + len(word) - 1, target_token=word, target_lemma=lemma,
                       abs_mean=abs_mean, abs_std=None if abs_mean is None else 0.1,
                       inc_mean=inc_mean, inc_std=None if inc_mean is None else 0.1)


def synthetic_items(lemmas=LEMMAS, per_lemma: int = 4) -> list[AbricotItem]:
    rng = np.random.default_rng(1)
    items = []
    for li, lemma in enumerate(lemmas):
        for k in range(per_lemma):
            items.append(make_item(li * per_lemma + k, lemma, float(rng.uniform()), float(rng.uniform())))
    return items


def test_marked_sentence_wraps_the_target_at_its_inclusive_offsets():
    item = make_item(3, "gatto")
    assert marked_sentence(item) == "Frase 3: il «gatto» è qui, numero 3."


def test_prediction_maps_follow_the_official_discretisation():
    assert (to_prediction("a", 0.5).label, to_prediction("a", 0.5).expected) == (3, 3.5)  # round(2.5) = 2
    low = to_prediction("a", -0.2)
    assert (low.label, low.expected, low.extra["pred"], low.extra["pred_clipped"]) == (1, 1.0, -0.2, 0.0)
    assert (to_prediction("a", 0.95).label, to_prediction("a", 0.95).expected) == (5, 5.0)
    for p in np.linspace(0, 1, 41):
        assert to_prediction("a", p).label == gold_label(p)


def test_folds_leave_each_lemma_out_exactly_once():
    items = synthetic_items()
    groups = [item.target_lemma for item in items]
    folds = leave_one_group_out(groups)
    assert [f.group for f in folds] == LEMMAS
    tested = np.concatenate([f.test for f in folds])
    assert sorted(tested.tolist()) == list(range(len(items)))
    for fold in folds:
        assert {groups[i] for i in fold.test} == {fold.group}
        assert fold.group not in {groups[i] for i in fold.train}
        assert len(fold.train) + len(fold.test) == len(items)


def test_folds_on_the_real_lemmas(data_dir):
    items = load_abricot(locate_abricot(data_dir))
    folds = leave_one_group_out([item.target_lemma for item in items])
    assert len(folds) == 20
    for fold in folds:
        train_lemmas = {items[i].target_lemma for i in fold.train}
        test_lemmas = {items[i].target_lemma for i in fold.test}
        assert train_lemmas.isdisjoint(test_lemmas)


def test_dual_ridge_equals_the_primal_closed_form():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(30, 50)), rng.normal(size=30)
    model = ridge_cv.fit_ridge(x, y, 0.3)
    xc = x - x.mean(axis=0)
    coef = np.linalg.solve(xc.T @ xc + 0.3 * np.eye(50), xc.T @ (y - y.mean()))
    np.testing.assert_allclose(model.coef, coef, atol=1e-10)
    np.testing.assert_allclose(model.predict(x[:3]), x[:3] @ coef + y.mean() - x.mean(axis=0) @ coef, atol=1e-10)


def test_select_alpha_takes_the_lowest_inner_cv_error():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(40, 5))
    y = x @ np.array([1.0, -1.0, 0.5, 0.0, 2.0]) + 0.01 * rng.normal(size=40)
    choice = ridge_cv.select_alpha(x, y, [str(i % 8) for i in range(40)])
    assert choice.alpha == min(choice.mse, key=choice.mse.get)
    assert choice.alpha <= 0.1  # nearly noiseless linear data: little shrinkage wins
    assert set(choice.groups_seen) == {str(i) for i in range(8)}


def test_inner_cv_never_sees_the_outer_test_lemma():
    items = synthetic_items()
    calls = []

    def spy(x, y, groups, alphas):
        calls.append(set(groups))
        return ridge_cv.select_alpha(x, y, groups, alphas)

    system = EmbeddingRidge(embedder="st:fake", selector=spy)
    preds = system.cross_validated_predict(items, "abricot-abs")
    assert len(calls) == len(LEMMAS)
    for lemma, seen in zip(LEMMAS, calls):
        assert seen == set(LEMMAS) - {lemma}
    for item, pred in zip(items, preds):
        assert pred.extra["fold"] == item.target_lemma
        assert pred.extra["alpha"] in ridge_cv.ALPHA_GRID


def test_predictions_do_not_depend_on_the_gold_of_their_own_lemma():
    items = synthetic_items()
    system = EmbeddingRidge(embedder="st:fake")
    before = system.cross_validated_predict(items, "abricot-inc")
    changed = [dataclasses.replace(it, inc_mean=1.0 - it.inc_mean) if it.target_lemma == "idea" else it for it in items]
    after = system.cross_validated_predict(changed, "abricot-inc")
    for item, b, a in zip(items, before, after):
        if item.target_lemma == "idea":
            assert a.extra["pred"] == b.extra["pred"]
    assert any(a.extra["pred"] != b.extra["pred"] for it, b, a in zip(items, before, after) if it.target_lemma != "idea")


def test_logprob_features_are_used_and_checked():
    items = as_likert_items(synthetic_items(), get_task("abricot-abs"))
    logprobs = np.log(np.random.default_rng(3).dirichlet(np.ones(5), size=len(items)))
    system = EmbeddingRidge(embedder="st:fake", features=("sentence",))
    x_plain = system.feature_matrix(items)
    x_lp = system.feature_matrix(items, logprobs)
    assert x_lp.shape == (len(items), x_plain.shape[1] + 5)
    np.testing.assert_allclose(x_lp[:, -5:].sum(axis=1), 1.0)
    with pytest.raises(SensoError, match="shape"):
        system.feature_matrix(items, logprobs[:, :4])
    system.fit(items, "abricot-abs", logprobs)
    with pytest.raises(SensoError, match="log-probs"):
        system.predict(items[:2])
    assert len(system.predict(items[:2], logprobs=logprobs[:2], warn=False)) == 2
    with pytest.raises(SensoError, match="fitted for abricot-abs"):
        system.predict(items[:2], "abricot-inc", logprobs=logprobs[:2])


def test_save_load_round_trip_gives_identical_predictions(tmp_path):
    items = synthetic_items()
    cache = ResponseCache(tmp_path / "cache.sqlite")
    system = EmbeddingRidge(embedder="st:fake", cache=cache).fit(items[4:], "abricot-abs")
    new = items[:4]  # lemma "cane": left out of the fit
    path = system.save(tmp_path / "abs.model")
    loaded = EmbeddingRidge.load(path, cache=cache)
    assert [p.extra["pred"] for p in loaded.predict(new)] == [p.extra["pred"] for p in system.predict(new)]
    assert [p.label for p in loaded.predict(new)] == [p.label for p in system.predict(new)]
    assert loaded.describe() == system.describe()
    saved = json.loads(path.read_text())
    assert saved["embedder"] == "st:fake" and saved["embedder_fingerprint"] == "st:fake"
    assert saved["task"] == "abricot-abs" and saved["senso_version"]
    assert saved["train_item_ids"] == [it.id for it in items[4:]]
    assert set(saved["train_lemmas"]) == set(LEMMAS) - {"cane"}


def test_accepts_a_ready_embedder_as_the_runner_passes_it(tmp_path):
    items = synthetic_items()
    cache = ResponseCache(tmp_path / "cache.sqlite")
    by_spec = EmbeddingRidge(embedder="st:fake", cache=cache).cross_validated_predict(items, "abricot-abs")
    system = EmbeddingRidge(with_cache(Embedder("st:fake"), cache), seed=3)
    assert system.describe()["embedder"] == "st:fake" and system.describe()["seed"] == 3
    by_object = system.cross_validated_predict(items, "abricot-abs")
    assert [p.extra["pred"] for p in by_object] == [p.extra["pred"] for p in by_spec]


def test_load_rejects_other_files(tmp_path):
    bad = tmp_path / "x.model"
    bad.write_text('{"format": "something-else"}')
    with pytest.raises(SensoError, match="not a senso"):
        EmbeddingRidge.load(bad)


def test_predict_on_training_lemmas_warns():
    items = synthetic_items()
    system = EmbeddingRidge(embedder="st:fake").fit(items[4:], "abricot-inc")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        system.predict(items[:4])  # lemma "cane" unseen: no warning
    with pytest.warns(SeenLemmaWarning, match="1 of 2 rows"):
        system.predict([items[0], items[5]])


def write_csv(path: Path, rows: list[list[str]], header: list[str]) -> Path:
    with path.open("w", encoding="utf-8-sig", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def item_row(item: AbricotItem, note: str) -> list[str]:
    return [item.id, item.domain, str(item.begin), str(item.end), item.text, item.target_token, item.target_lemma, note]


@pytest.fixture
def abs_model(tmp_path) -> Path:
    items = synthetic_items()
    return EmbeddingRidge(embedder="st:fake").fit(items[4:], "abricot-abs").save(tmp_path / "abs.model")


def test_predict_csv_without_gold_writes_input_columns_then_predictions(tmp_path, abs_model):
    new = [make_item(100 + k, "cane", None, None) for k in range(3)]
    header = COLUMNS + ["note"]
    src = write_csv(tmp_path / "new.csv", [item_row(it, f"n{k}") for k, it in enumerate(new)], header)
    report = predict_csv(abs_model, src, tmp_path / "scored.csv")
    assert report.warning is None and report.seen_rows == []
    with (tmp_path / "scored.csv").open(encoding="utf-8", newline="") as fh:
        out_rows = list(csv.reader(fh))
    assert out_rows[0] == header + ["abricot_abs_pred", "abricot_abs_pred_label"]
    expected = EmbeddingRidge.load(abs_model).predict(new)
    for row, item, pred in zip(out_rows[1:], new, expected):
        assert row[:len(header)] == item_row(item, row[len(header) - 1])
        assert float(row[-2]) == pred.extra["pred_clipped"]
        assert int(row[-1]) == pred.label == gold_label(float(row[-2]))
    assert [r[len(header) - 1] for r in out_rows[1:]] == ["n0", "n1", "n2"]


def test_predict_csv_bad_row_names_row_and_field(tmp_path, abs_model):
    rows = [item_row(make_item(100, "cane", None, None), "ok"), item_row(make_item(101, "cane", None, None), "bad")]
    rows[1][2] = "12x"
    src = write_csv(tmp_path / "bad.csv", rows, COLUMNS + ["note"])
    with pytest.raises(DataError) as info:
        predict_csv(abs_model, src, tmp_path / "scored.csv")
    assert (info.value.row, info.value.field) == (2, "begin")
    assert "row 2" in str(info.value) and "'begin'" in str(info.value)
    assert not (tmp_path / "scored.csv").exists()


def test_predict_csv_with_gold_columns_and_training_lemmas_warns(tmp_path, abs_model):
    items = synthetic_items()
    header = COLUMNS + ["abs_mean", "abs_std", "inc_mean", "inc_std"]
    rows = [item_row(make_item(200, "cane", None, None), "")[:7] + ["0.2", "0.1", "", ""],
            item_row(items[5], "")[:7] + ["0.9", "0.1", "0.3", "0.1"]]
    src = write_csv(tmp_path / "mixed.csv", rows, header)
    report = predict_csv(abs_model, src, tmp_path / "scored.csv")
    assert report.seen_rows == [2]
    assert "gatto" in report.warning and "not out-of-sample" in report.warning


def test_predict_csv_refuses_to_overwrite_an_existing_prediction_column(tmp_path, abs_model):
    row = item_row(make_item(100, "cane", None, None), "0.3")
    src = write_csv(tmp_path / "new.csv", [row], COLUMNS + ["abricot_abs_pred"])
    with pytest.raises(DataError, match="abricot_abs_pred"):
        predict_csv(abs_model, src, tmp_path / "scored.csv")


def test_cli_fit_and_predict(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from senso.cli import app

    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    items = synthetic_items()
    header = COLUMNS + ["inc_mean", "inc_std", "abs_mean", "abs_std"]
    data = tmp_path / "data" / "abricot"
    data.mkdir(parents=True)
    write_csv(data / "dataset_it.csv",
              [item_row(it, "")[:7] + [str(it.inc_mean), "0.1", str(it.abs_mean), "0.1"] for it in items], header)
    runner = CliRunner()
    fitted = runner.invoke(app, ["fit", "abricot-inc", "--embedder", "st:fake", "--data-dir", str(tmp_path / "data"),
                                 "-o", str(tmp_path / "inc.model")])
    assert fitted.exit_code == 0, fitted.output
    assert "24 items (6 lemmas)" in fitted.stdout
    src = write_csv(tmp_path / "new.csv", [item_row(items[0], "")[:7], item_row(make_item(300, "cane"), "")[:7]], COLUMNS)
    scored = runner.invoke(app, ["predict", str(tmp_path / "inc.model"), str(src), "-o", str(tmp_path / "out.csv")])
    assert scored.exit_code == 0, scored.output
    stderr = " ".join(scored.stderr.split())  # rich wraps long lines
    assert "warning: 2 of 2 rows have a lemma the model was trained on (cane)" in stderr and "(rows 1-2)" in stderr
    with (tmp_path / "out.csv").open(encoding="utf-8") as fh:
        assert next(csv.reader(fh))[-2:] == ["abricot_inc_pred", "abricot_inc_pred_label"]


@pytest.fixture(scope="module")
def real_results(data_dir, tmp_path_factory):
    """Leave-one-lemma-out predictions of the default system (real e5-f64) for both tasks."""
    items = load_abricot(locate_abricot(data_dir))
    cache = ResponseCache(tmp_path_factory.mktemp("emb") / "cache.sqlite")
    results = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Embedder, "_compute", REAL_COMPUTE)  # undo the autouse fake for this fixture
        system = EmbeddingRidge(cache=cache)
        for task in ("abricot-abs", "abricot-inc"):
            results[task] = system.cross_validated_predict(items, task)
    return items, results


REAL_COMPUTE = Embedder._compute


@pytest.mark.real_data
@pytest.mark.parametrize("task,dimension", [("abricot-abs", "abs"), ("abricot-inc", "inc")])
def test_real_data_leave_one_lemma_out_reaches_r_070(real_results, task, dimension):
    items, results = real_results
    preds = results[task]
    assert [p.item_id for p in preds] == [it.id for it in items]
    assert len({p.extra["fold"] for p in preds}) == 20
    gold = [gold_label(it.score(dimension)) for it in items]
    r_labels = pearson([p.label for p in preds], gold)
    r_means = pearson([p.extra["pred"] for p in preds], [it.score(dimension) for it in items])
    assert r_labels >= 0.70, f"{task}: r(labels, gold labels) = {r_labels:.3f} under leave-one-lemma-out"
    assert r_means >= 0.70, f"{task}: r(prediction, raw means) = {r_means:.3f}"


def test_the_ridge_options_are_declared_once_and_checked_from_that_declaration(data_dir):
    """embedding-ridge, lexical-prior and decomposed read one declaration (RidgeOptions): the registry's options,
    the classes' defaults and the messages all come from it."""
    import senso
    from senso.core.params import OptionError, Text
    from senso.likert.systems.decomposed import Decomposed
    from senso.likert.systems.registry import LIKERT_SYSTEMS
    from senso.likert.systems.ridge import RidgeOptions

    for name in ("embedding-ridge", "lexical-prior", "decomposed"):
        assert LIKERT_SYSTEMS[name].options is RidgeOptions
    described = {d["name"]: d for d in LIKERT_SYSTEMS["decomposed"].params.describe()}
    assert described["kind"]["type"] == "query | passage" and described["features"]["default"] == ["target-sentence"]
    ridge = EmbeddingRidge(embedder=Embedder("st:fake"))
    assert RidgeOptions().get_params() == {"features": ("target-sentence",), "kind": "query"}
    assert ridge.set_params(features=Text("sentence,marked")).features == ("sentence", "marked")
    assert Decomposed.__dataclass_fields__["kind"].default == RidgeOptions().kind
    with pytest.raises(OptionError, match="did you mean kind"):
        ridge.set_params(kinds="passage")
    with pytest.raises(SensoError, match=r"unknown keyword feature= \(did you mean features=\?\) for abricot-abs; .*"
                                         r"system embedding-ridge's own: features \(comma-separated list\); "
                                         r"kind \(query \| passage\)"):
        senso.evaluate("abricot-abs", system="embedding-ridge", feature="sentence", data_dir=data_dir)


def test_embedding_ridge_gives_every_parameter_and_clones_unfitted():
    """get_params names every constructor argument (the embedder, the alpha grid and the seed too), set_params
    checks each by its type and reruns the class's own checks, clone gives a fresh unfitted model."""
    from senso.core.params import OptionError, clone

    ridge = EmbeddingRidge(embedder="st:fake", alphas=(1.0, 10.0), seed=3)
    params = ridge.get_params()
    assert {"embedder": "st:fake", "features": ("target-sentence",), "kind": "query", "alphas": (1.0, 10.0),
            "seed": 3}.items() <= params.items()
    items = synthetic_items()
    ridge.fit(items, get_task("abricot-abs"))
    copy = clone(ridge)
    assert copy is not ridge and copy.get_params() == params
    assert "alpha" in ridge.describe() and "alpha" not in copy.describe()  # the clone is not fitted
    assert ridge.set_params(alphas=[2, 3], seed=4).get_params()["alphas"] == (2.0, 3.0)
    for wrong, name in (({"seed": "4"}, "seed"), ({"alphas": "1,2"}, "alphas")):
        with pytest.raises(OptionError, match=name):
            ridge.set_params(**wrong)
    with pytest.raises(SensoError, match="embedding kind must be query or passage, got 'both'"):  # its own check
        ridge.set_params(kind="both")
    assert ridge.kind == "query"
    with pytest.raises(SensoError, match="unknown feature"):
        ridge.set_params(features=("nothing",))
    with pytest.raises(OptionError, match=r"unknown parameter alpha of EmbeddingRidge; .*did you mean alphas\?"):
        ridge.set_params(alpha=1.0)

