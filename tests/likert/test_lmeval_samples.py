"""lm-eval samples in: a real excerpt of lm-evaluation-harness's `--log_samples` output (0-shot Gemma-3-270M,
float32, lm-eval 0.4.13; tests/fixtures/lmeval: the first 6 documents of each task and the results file)
scored as a senso run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import senso
from senso.core.errors import DataError, SensoError
from senso.core.records import load_results, load_samples
from senso.likert.lmeval_samples import read_lmeval_samples
from senso.likert.systems.likert_lm import argmax_choice

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "lmeval"
STAMP = "2026-12-01T23-13-41.427763"
RESULTS = FIXTURES / f"results_{STAMP}.json"
N = 6  # documents in each excerpt


def samples_file(task: str) -> Path:
    return FIXTURES / f"samples_abricot_{task}_{STAMP}.jsonl"


def lines(task: str) -> list[dict]:
    return [json.loads(line) for line in samples_file(task).read_text(encoding="utf-8").splitlines()]


def write_lines(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def own_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize("task", ["abs", "inc"])
def test_excerpt_scores_as_lmeval_did(data_dir, tmp_path, task):
    result = senso.evaluate(f"abricot-{task}", system="lmeval-samples", samples=samples_file(task), results=RESULTS,
                            data_dir=data_dir, limit=N, out=tmp_path / "run")
    logged = lines(task)
    assert [s.id for s in result.samples] == [r["doc"]["ID"] for r in logged]
    for sample, record in zip(result.samples, logged):
        values = [float(v[0]) for v in record["filtered_resps"]]
        assert sample.logprobs == values
        assert sample.prediction == argmax_choice(values)
        assert sample.gold == int(record["target"]) + 1  # lm-eval's target is the choice's index
        assert (sample.prediction == sample.gold) == bool(record["acc"])  # lm-eval's own per-sample accuracy
    saved = load_results(tmp_path / "run")
    assert saved["system"] == "lmeval-samples" and saved["scores_from"] == "lm-evaluation-harness"
    assert saved["protocol"] == "lm-eval log (0-shot)"
    lmeval = saved["model"]["lmeval"]
    assert lmeval["lm_eval_version"] == "0.4.13" and lmeval["lmeval_task"] == f"abricot_{task}"
    assert lmeval["model_args"] == {"pretrained": "/root/.cache/senso/models/gemma-3-270m-a5fd3b62230a-f32",
                                    "dtype": "float32"}
    assert saved["model"]["samples_file"]["sha256"] == read_lmeval_samples(samples_file(task), "ID").sha256
    assert saved["partial"] == next(w for w in saved["warnings"] if w.startswith("PARTIAL"))
    assert f"counts 127 documents of abricot_{task}, the samples log holds 6" in " ".join(saved["warnings"])
    assert len(load_samples(tmp_path / "run")) == N and (tmp_path / "run" / "samples.parquet").is_file()


def test_lmeval_accuracy_that_is_not_the_logs_is_a_named_warning(data_dir, tmp_path):
    results = json.loads(RESULTS.read_text(encoding="utf-8"))
    logged = lines("abs")
    results["results"]["abricot_abs"].update({"sample_len": N, "acc,none": 0.5})
    other = tmp_path / "results_x.json"
    other.write_text(json.dumps(results), encoding="utf-8")
    result = senso.evaluate("abricot-abs", system="lmeval-samples", samples=samples_file("abs"), results=other,
                            data_dir=data_dir, limit=N)
    own = sum(r["acc"] for r in logged) / N
    assert f"results file (0.5000) differs from that of its logged answers ({own:.4f})" in " ".join(result.warnings)


def test_a_task_file_reads_the_log_too(data_dir, tmp_path):
    task_file = tmp_path / "abs.toml"
    shutil.copy(Path(senso.__file__).parent / "likert" / "tasks" / "abricot-abs.toml", task_file)
    result = senso.evaluate(task_file, system="lmeval-samples", samples=samples_file("abs"), data_dir=data_dir, limit=N)
    assert [s.prediction for s in result.samples] == [argmax_choice([float(v[0]) for v in r["filtered_resps"]])
                                                      for r in lines("abs")]
    assert result.warnings == [w for w in result.warnings if w.startswith("PARTIAL")]  # the same prompts as lm-eval's


def test_choices_in_another_order_are_put_in_the_tasks(data_dir, tmp_path):
    records = lines("abs")
    for r in records:
        keys = sorted(r["arguments"])
        r["arguments"] = {k: r["arguments"][j] for k, j in zip(keys, reversed(keys))}
        r["filtered_resps"] = list(reversed(r["filtered_resps"]))
    shuffled = write_lines(tmp_path / "samples_abricot_abs_x.jsonl", records)
    kw = dict(system="lmeval-samples", data_dir=data_dir, limit=N)
    as_logged = senso.evaluate("abricot-abs", samples=samples_file("abs"), **kw)
    reordered = senso.evaluate("abricot-abs", samples=shuffled, **kw)
    assert [s.logprobs for s in reordered.samples] == [s.logprobs for s in as_logged.samples]


def test_other_prompts_are_a_named_warning(data_dir, tmp_path):
    records = lines("abs")
    records[1]["arguments"]["gen_args_0"]["arg_0"] = "Un altro prompt\n"
    log = write_lines(tmp_path / "samples_abricot_abs_x.jsonl", records)
    result = senso.evaluate("abricot-abs", system="lmeval-samples", samples=log, data_dir=data_dir, limit=N)
    [warning] = [w for w in result.warnings if "prompts differ" in w]
    assert "on 1 of 6 items" in warning and records[1]["doc"]["ID"] in warning


@pytest.mark.parametrize("edit, phrase", [
    (lambda rs: rs[2]["doc"].update(ID="NOPE_1"), "1 logged item(s) are not in the data set (NOPE_1)"),
    (lambda rs: rs[0].update(filtered_resps=rs[0]["filtered_resps"][:4]), "4 choices logged, but abricot-abs has 5"),
    (lambda rs: rs.append(rs[0]), "is logged twice (first on line 1)"),
    (lambda rs: rs[0].update(filtered_resps=["Risposta: 3"]), "expected a log-likelihood"),
    (lambda rs: rs[3]["doc"].pop("ID"), "field 'doc.ID': the document has no item id"),
])
def test_a_log_that_does_not_match_is_an_error_naming_it(data_dir, tmp_path, edit, phrase):
    records = lines("abs")
    edit(records)
    log = write_lines(tmp_path / "samples_abricot_abs_x.jsonl", records)
    with pytest.raises(DataError) as info:
        senso.evaluate("abricot-abs", system="lmeval-samples", samples=log, data_dir=data_dir, limit=N)
    assert phrase in str(info.value) and str(log) in str(info.value)


def test_a_log_of_a_limited_lmeval_run_is_a_partial_run(data_dir):
    """The fixture logs are of `lm_eval --limit 6`: scored on those 6 items and marked PARTIAL, with the count."""
    result = senso.evaluate("abricot-abs", system="lmeval-samples", samples=samples_file("abs"), data_dir=data_dir)
    assert result.n == N
    [partial] = [w for w in result.warnings if w.startswith("PARTIAL")]
    assert f"the first {N} of the 127 items (lm-eval's log of a `--limit {N}` run)" in partial


def test_a_log_missing_items_that_are_not_its_first_ones_is_named(data_dir, tmp_path):
    records = lines("abs")[1:]  # documents 2..6: no lm-eval --limit writes this
    log = write_lines(tmp_path / "samples_abricot_abs_x.jsonl", records)
    with pytest.raises(DataError, match=r"lacks 122 of the 127 items scored"):
        senso.evaluate("abricot-abs", system="lmeval-samples", samples=log, data_dir=data_dir)


def test_a_log_of_the_other_abricot_task_is_refused_by_its_name(data_dir, tmp_path):
    log = shutil.copy(samples_file("inc"), tmp_path / f"samples_abricot_inc_{STAMP}.jsonl")
    with pytest.raises(DataError, match=r"a log of lm-eval's task abricot_inc \(by its file name\), not of abricot-abs"):
        senso.evaluate("abricot-abs", system="lmeval-samples", samples=log, data_dir=data_dir, limit=N)


def test_results_of_another_run_are_refused(data_dir, tmp_path):
    results = json.loads(RESULTS.read_text(encoding="utf-8"))
    results["results"] = {"arc_easy": {}}
    other = tmp_path / "results_x.json"
    other.write_text(json.dumps(results), encoding="utf-8")
    with pytest.raises(DataError, match="has no results of task 'abricot_abs'"):
        senso.evaluate("abricot-abs", system="lmeval-samples", samples=samples_file("abs"), results=other,
                       data_dir=data_dir, limit=N)


def test_without_a_log_the_system_says_what_to_give():
    with pytest.raises(SensoError, match="give the log with samples=FILE"):
        senso.evaluate("abricot-abs", system="lmeval-samples", limit=N)


@pytest.mark.real_model
@pytest.mark.parametrize("task", ["abs", "inc"])
def test_senso_own_run_gives_the_same_predictions(data_dir, default_models, task):
    """The excerpt's items scored by senso itself (the same converted Gemma-3-270M, float32): the same labels and
    log-likelihoods within 1e-3 (on all 127 items: 127/127 per task, within 2.7e-5; README)."""
    kw = dict(data_dir=data_dir, limit=N, no_cache=True)
    own = senso.evaluate(f"abricot-{task}", models=default_models, **kw)
    imported = senso.evaluate(f"abricot-{task}", system="lmeval-samples", samples=samples_file(task), **kw)
    assert [s.prediction for s in own.samples] == [s.prediction for s in imported.samples]
    for mine, theirs in zip(own.samples, imported.samples):
        assert max(abs(a - b) for a, b in zip(mine.logprobs, theirs.logprobs)) < 1e-3
