"""The default system's choice (grouped cross-validation of the candidates over a task file's training rows) is
computed once and reused: remembered in the cache folder by its fingerprint, read again by a second run, computed
again when a training row or the candidates change, neither read nor written with --no-cache. What is counted is
the candidates' cross-validations (calls), and what the run records, never time."""

from __future__ import annotations

import json

import pytest

import senso
import senso.admire.ranking.select as select
from senso.admire.ranking.select import CHOICES_MEMO

from rank_fixtures import write_dataset


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    """A cache folder of the test's own, empty."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("SENSO_CACHE_DIR", str(folder))
    return folder


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return write_dataset(tmp_path_factory.mktemp("choice") / "data")


@pytest.fixture(scope="module")
def pool():
    """One model pool for the module's runs: the embedder loaded once, each text embedded once (what is counted
    is the choice's cross-validations)."""
    from senso.backends.pool import ModelPool

    return ModelPool()


@pytest.fixture()
def cross_validations(monkeypatch) -> list[str]:
    """The systems the choice cross-validates, one entry per call."""
    calls: list[str] = []
    original = select.cross_validate

    def counted(system, *args, **kwargs):
        calls.append(system.name)
        return original(system, *args, **kwargs)

    monkeypatch.setattr(select, "cross_validate", counted)
    return calls


def _run(task, pool, out, **options):
    result = senso.evaluate(task, models=pool, out=out, **options)
    return result, result.results["default_system"]


def test_a_second_run_reads_the_choice_and_a_change_computes_it_again(task, pool, cache, cross_validations,
                                                                      tmp_path, monkeypatch):
    first, choice = _run(task, pool, tmp_path / "first")
    assert cross_validations and choice["from_cache"] is None and len(choice["fingerprint"]) == 64
    computed = len(cross_validations)
    second, again = _run(task, pool, tmp_path / "second")
    assert len(cross_validations) == computed  # no candidate cross-validated again
    assert again["from_cache"] == str(cache / CHOICES_MEMO)
    assert {k: v for k, v in again.items() if k != "from_cache"} == {k: v for k, v in choice.items()
                                                                      if k != "from_cache"}
    assert any("read from the cache, fingerprint " + choice["fingerprint"][:12] in n for n in second.notes)
    assert second.system == first.system
    assert [s.to_json() for s in second.samples] == [s.to_json() for s in first.samples]
    _, seeded = _run(task, pool, tmp_path / "seeded", seed=1)
    assert seeded["from_cache"] is None and len(cross_validations) > computed
    train = task.parent / "ru" / "train.tsv"
    text = train.read_text(encoding="utf-8")
    try:
        train.write_text(text.replace("одинокий чудак", "странный человек"), encoding="utf-8")
        computed = len(cross_validations)
        _, edited = _run(task, pool, tmp_path / "edited")
    finally:
        train.write_text(text, encoding="utf-8")
    assert edited["from_cache"] is None and len(cross_validations) > computed
    candidates = select.default_candidates
    monkeypatch.setattr(select, "default_candidates", lambda types: candidates(types)[:2])
    _, fewer = _run(task, pool, tmp_path / "fewer")
    assert fewer["from_cache"] is None and len(fewer["candidates"]) == 2
    prints = {choice["fingerprint"], seeded["fingerprint"], edited["fingerprint"], fewer["fingerprint"]}
    assert len(prints) == 4
    assert set(json.loads((cache / CHOICES_MEMO).read_text(encoding="utf-8"))) == prints


def test_no_cache_neither_reads_nor_writes_the_choice(task, pool, cache, cross_validations, tmp_path):
    _, choice = _run(task, pool, tmp_path / "uncached", no_cache=True)
    assert choice["from_cache"] is None and not (cache / CHOICES_MEMO).exists()
    _, cached = _run(task, pool, tmp_path / "cached")
    assert cached["from_cache"] is None and cached["fingerprint"] == choice["fingerprint"]
    assert list(json.loads((cache / CHOICES_MEMO).read_text(encoding="utf-8"))) == [choice["fingerprint"]]
    computed = len(cross_validations)
    _, again = _run(task, pool, tmp_path / "uncached-again", no_cache=True)
    assert again["from_cache"] is None and len(cross_validations) > computed
