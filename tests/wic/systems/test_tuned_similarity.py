"""tuned-similarity: blocks tuned on other tasks' training pairs (each task's gold scaled on its own), tuned once per
run, a tuned-on pair refused, its threshold, its options and errors, and a run of it through a task file."""

from __future__ import annotations

import json

import numpy as np
import pytest

import senso
from senso.core.errors import SensoError
from senso.wic.data import read_split
from senso.wic.systems.context import WicContext
from senso.wic.systems.tuned_similarity import TunedSimilarity
from senso.wic.systems.tuning import training_targets, tuned_cosines
from senso.wic.taskfile import parse_task_file
from conftest import toy_pairs
from wic_fixtures import write_wicita

SMALL = {"tune_layers": 2, "tune_epochs": 1, "tune_pairs": 24}


def _toy_task(folder, gold: str) -> str:
    """The hand-made English pairs as a pairs task file whose one split, train, has `gold` ("label" or "score")."""
    rows = [{"id": p.pair_id, "lemma": p.lemma, "sentence1": p.first.text, "start1": p.first.start,
             "end1": p.first.end, "sentence2": p.second.text, "start2": p.second.start, "end2": p.second.end,
             gold: getattr(p, gold)} for p in toy_pairs()]
    (folder / f"toy-{gold}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    kind = 'gold = "binary"' if gold == "label" else 'gold = "graded"\nscale = [1, 4]'
    task = folder / f"toy-{gold}.toml"
    task.write_text(f'kind = "pairs"\nname = "toy-{gold}"\nlanguage = "en"\n{kind}\ntrain = "train"\n'
                    f'[splits]\ntrain = ["toy-{gold}.jsonl"]\n', encoding="utf-8")
    return str(task)


@pytest.fixture(scope="module")
def mini(tmp_path_factory):
    """WiC-ITA's layout (scored) and the English toy pairs as two tasks (tuned on): no pair in both."""
    folder = tmp_path_factory.mktemp("tuned") / "data"
    files = write_wicita(folder)
    return {**files, "toy-label": _toy_task(folder, "label"), "toy-score": _toy_task(folder, "score")}


def _pairs(path, split):
    return read_split(parse_task_file(path), split)


def _own(wic_context) -> WicContext:
    """A context of its own (the session's cache, its own usage encoders): the toy usages' token states this file
    computes stay out of the memo other files' systems read (e5-f32's states move with the batch that computed
    them)."""
    return WicContext(cache=wic_context.cache)


def test_blocks_are_tuned_once_a_run_on_each_tasks_pairs_scaled_on_its_own(mini, wic_context):
    context = _own(wic_context)
    both = (mini["toy-label"], mini["toy-score"])
    system = TunedSimilarity(tune_on=both, **SMALL).bind(context)
    chosen, targets, sources = system._tuning_pairs()
    assert [s["task"] for s in sources] == ["toy-label", "toy-score"] and [s["pairs"] for s in sources] == [24, 24]
    scored = _pairs(mini["toy-score"], "train")
    assert len(scored) == 60 and chosen[24:] == [p for p in scored if p in chosen[24:]]  # a seeded sample, in order
    scores = [p.score for p in chosen[24:]]
    assert np.allclose(targets[24:], training_targets([None] * 24, scores))  # the scores' own range, not the labels'
    assert set(targets[:24].tolist()) == set(targets[24:].tolist()) == {0.0, 1.0}

    dev = _pairs(mini["binary"], "dev")
    system.fit(dev)
    again = TunedSimilarity(tune_on=both, **SMALL).bind(context).fit(dev)
    assert again.tuning_ is system.tuning_ and len(context.tuned) == 1  # a fold's copy reuses the run's blocks
    related = np.array(system.relate(dev))
    assert np.allclose(related, tuned_cosines(system.encoder_, system.tuning_.blocks, dev, 64).mean(axis=1))
    p_same = np.array(system.judge(dev))
    slope, intercept = system.coef_
    assert slope > 0 and np.allclose(p_same, 1 / (1 + np.exp(-(slope * related + intercept))))
    described = system.describe()
    assert described["tuned"]["on"] == sources and len(described["tuned"]["fingerprint"]) == 16
    other = TunedSimilarity(tune_on=both[:1], **SMALL).bind(context).fit(dev)
    assert other.tuning_.fingerprint != system.tuning_.fingerprint and len(context.tuned) == 2


def test_a_pair_the_blocks_were_tuned_on_is_refused(mini, wic_context):
    system = TunedSimilarity(tune_on=(mini["toy-label"],), **SMALL).bind(_own(wic_context))
    train = _pairs(mini["toy-label"], "train")
    system.fit(_pairs(mini["ranking"], "dev"))  # graded pairs: no threshold
    assert system.coef_ is None
    with pytest.raises(SensoError, match="judging"):
        system.judge(train[:1])
    tuned_on = system._tuning_pairs()[0][0]
    assert tuned_on in train
    with pytest.raises(SensoError, match=f"{tuned_on.source} is one of the pairs its blocks were tuned on "
                                         r"\(.*toy-label.toml\); score it with a tune_on that leaves its task out"):
        system.relate([train[5], tuned_on])


def test_options_and_sources_are_checked(mini):
    with pytest.raises(SensoError, match="tune_on names at least one task"):
        TunedSimilarity(tune_on=())
    with pytest.raises(SensoError, match="no word-in-context task 'nope': give a shipped one"):
        TunedSimilarity(tune_on=("nope",)).fit(_pairs(mini["binary"], "dev"))
    with pytest.raises(SensoError, match="tune_on names dwug-en, which has no training split"):
        TunedSimilarity(tune_on=("dwug-en",)).fit(_pairs(mini["binary"], "dev"))
    with pytest.raises(SensoError, match="tune_layers is 1 to the encoder's 12 blocks, got 13"):
        TunedSimilarity(tune_on=(mini["toy-label"],), tune_layers=13).fit(_pairs(mini["binary"], "dev"))
    with pytest.raises(SensoError, match="must be fit"):
        TunedSimilarity().relate(_pairs(mini["binary"], "dev"))
    system = senso.system("tuned-similarity", tune_on=[str(mini["binary"])], tune_layers=1)
    assert system.get_params()["tune_on"] == (str(mini["binary"]),)


def test_a_run_scores_another_task_and_refuses_its_tuning_rows(mini, tmp_path, monkeypatch):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))  # its tuned blocks stored there
    result = senso.evaluate(mini["ranking"], system="tuned-similarity", split="dev", tune_on=[mini["toy-score"]],
                            **SMALL)
    assert result.n == 24 and list(result.metrics) == ["spearman", "pearson"]
    assert result.results["model"]["tuned"]["on"][0]["task"] == "toy-score"
    assert len(list((tmp_path / "cache" / "tuned-blocks").glob("*.pt"))) == 1
    with pytest.raises(SensoError, match="is one of the pairs its blocks were tuned on"):
        senso.evaluate(mini["toy-label"], system="tuned-similarity", split="train", tune_on=[mini["toy-score"]],
                       **SMALL)


def test_a_later_run_reads_the_blocks_an_earlier_one_stored(mini, tmp_path, monkeypatch):
    from senso.core.cache import ResponseCache
    from senso.wic.systems import tuned_similarity

    cache = ResponseCache(tmp_path / "cache" / "responses.sqlite")
    dev = _pairs(mini["binary"], "dev")
    first = TunedSimilarity(tune_on=(mini["toy-label"],), **SMALL).bind(WicContext(cache=cache)).fit(dev)
    stored = tmp_path / "cache" / "tuned-blocks" / f"{first.tuning_.fingerprint}.pt"
    assert stored.exists() and not list(stored.parent.glob("*.partial"))

    def no_tuning(*args, **kwargs):
        raise AssertionError("tuned again")

    monkeypatch.setattr(tuned_similarity, "tune_on_pairs", no_tuning)
    later = TunedSimilarity(tune_on=(mini["toy-label"],), **SMALL).bind(WicContext(cache=cache)).fit(dev)
    assert later.relate(dev) == first.relate(dev) and later.judge(dev) == first.judge(dev)
    stored.write_bytes(b"not a torch file")  # unreadable: tuned again, not an error
    monkeypatch.undo()
    again = TunedSimilarity(tune_on=(mini["toy-label"],), **SMALL).bind(WicContext(cache=cache)).fit(dev)
    assert again.relate(dev) == first.relate(dev)


def test_its_threshold_may_be_fit_on_the_pairs_it_was_tuned_on(mini, wic_context):
    train = _pairs(mini["toy-label"], "train")
    system = TunedSimilarity(tune_on=(mini["toy-label"],), **SMALL).bind(_own(wic_context)).fit(train)
    assert system.coef_ is not None and len(system.judge(_pairs(mini["binary"], "dev"))) == 24
