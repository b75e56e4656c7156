"""Travel measures on a task file: every supervised system records `generalisation` through the file's group
and domain columns, prints the travel table and shows it on the report page; measures that cannot be
computed (one domain, no group column) are undefined with a reason; `senso fit` without --system picks
the best-travelling system; `senso predict` warns on seen groups and unlike input."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from test_taskfile_run import ROWS, _hash_embed, invoke, write_dataset

from senso.backends.embedders import Embedder
from senso.core.stats import pearson

SUPERVISED = ("embedding-ridge", "lexical-prior", "decomposed")
GROUP_MEASURES = ["logo_r", "between_group_r", "within_group_r"]


@pytest.fixture(autouse=True)
def fake_embedder(tmp_path, monkeypatch):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(Embedder, "_compute", lambda self, texts, kind: _hash_embed(texts, kind))


def run(task: Path, system: str, out: Path) -> tuple[dict, list[dict], str]:
    result = invoke(["run", str(task), "--system", system, "--embedder", "st:fake", "--out", str(out)])
    results = json.loads((out / "results.json").read_text())
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    return results, samples, " ".join(result.output.split())


@pytest.mark.parametrize("system", SUPERVISED)
def test_supervised_runs_on_a_task_file_record_and_show_the_travel_block(tmp_path, system):
    task = write_dataset(tmp_path / "data")
    results, samples, output = run(task, system, tmp_path / "run")
    travel = results["generalisation"]
    assert travel["system"] == system and travel["n"] == len(ROWS)
    assert list(travel["measures"]) == GROUP_MEASURES + ["lodo_r[fiction→news]", "lodo_r[news→fiction]"]
    # the leave-one-group-out r is the one of the run's own (unclipped) predictions against the raw gold
    gold = {f"item{k}": rating for k, (_, _, rating) in enumerate(ROWS)}
    expected_r = pearson([s["pred"] for s in samples], [gold[s["id"]] for s in samples])
    assert travel["measures"]["logo_r"]["value"] == pytest.approx(expected_r)
    assert travel["measures"]["lodo_r[news→fiction]"]["value"] is not None
    assert f"how far {system} travels" in output and "leave-one-domain-out news→fiction" in output
    html = Path(invoke(["report", str(tmp_path / "run")]).output.strip().replace("\n", "")).read_text()
    assert "How far the model travels" in html and "leave-one-group-out" in html
    assert f"{travel['measures']['logo_r']['value']:.3f}" in html


def test_one_domain_and_no_group_column_are_undefined_with_a_reason(tmp_path):
    task = write_dataset(tmp_path / "data")
    data = task.parent / "items.csv"
    rows = list(csv.reader(data.open(encoding="utf-8")))
    with data.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows([rows[0]] + [row[:-1] + ["news"] for row in rows[1:]])
    results, _, output = run(task, "embedding-ridge", tmp_path / "one-domain")
    measures = results["generalisation"]["measures"]
    assert measures["lodo_r"] == {"value": None,
                                  "reason": "one domain (news): leave-one-domain-out needs at least two"}
    assert measures["within_group_r"]["value"] is not None and "one domain (news)" in output
    html = Path(invoke(["report", str(tmp_path / "one-domain")]).output.strip().replace("\n", "")).read_text()
    assert "leave-one-domain-out needs at least two" in html

    task.write_text(task.read_text().replace('group = "lemma"\n', ""))  # the group column is no longer read
    results, samples, _ = run(task, "decomposed", tmp_path / "no-groups")
    measures = results["generalisation"]["measures"]
    assert {s["fold"] for s in samples} == {s["id"] for s in samples}  # each item its own group
    for key in ("between_group_r", "within_group_r"):
        assert measures[key]["value"] is None and "no 'group' column" in measures[key]["reason"]
    assert measures["logo_r"]["value"] is not None

    model = tmp_path / "one.model"  # no --system: LODO is undefined for every candidate and left out
    fitted = invoke(["fit", str(task), "--embedder", "st:fake", "-o", str(model)])
    selection = json.loads(model.read_text())["selection"]
    assert selection["chosen"] in SUPERVISED and selection["reason"] in " ".join(fitted.stderr.split())
    assert [c["system"] for c in selection["candidates"]] == ["lexical-prior", "embedding-ridge", "decomposed"]


def test_fit_picks_the_best_travelling_system_and_predict_warns(tmp_path):
    task = write_dataset(tmp_path / "data")
    model = tmp_path / "conc.model"
    fitted = invoke(["fit", str(task), "--embedder", "st:fake", "-o", str(model)])
    saved = json.loads(model.read_text())
    chosen = saved["selection"]["chosen"]
    assert f"fitted {chosen} on 12 items (4 groups)" in " ".join(fitted.stdout.split())
    assert saved["train_profile"]["domains"] == ["fiction", "news"]
    new = tmp_path / "new.csv"
    new.write_text("id,text,word,lemma,domain\nn1,A dog on the sofa.,dog,dog,tweets\n", encoding="utf-8")
    scored = invoke(["predict", str(model), str(new), "-o", str(tmp_path / "scored.csv")])
    stderr = " ".join(scored.stderr.split())
    assert "1 of 1 rows have a group the model was trained on (dog)" in stderr
    assert "domain(s) tweets, not seen in training (fiction, news)" in stderr
    for system in ("lexical-prior", "decomposed"):  # an explicit system, reloaded by its file format
        invoke(["fit", str(task), "--system", system, "--embedder", "st:fake", "-o", str(tmp_path / f"{system}.model")])
        invoke(["predict", str(tmp_path / f"{system}.model"), str(new), "-o", str(tmp_path / f"{system}.csv")])
        with (tmp_path / f"{system}.csv").open(encoding="utf-8") as fh:
            header, row = list(csv.reader(fh))
        assert header[-2:] == ["concreteness_en_pred", "concreteness_en_pred_label"] and 1 <= float(row[-2]) <= 7


def test_systems_lists_the_supervised_systems():
    systems = " ".join(invoke(["systems"]).output.split())
    for name in SUPERVISED:
        assert name in systems
