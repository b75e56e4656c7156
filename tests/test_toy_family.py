"""A benchmark family is one folder plus one row in the table of tasks: a small binary word-in-context family,
declared entirely in this file (its items, a trivial system, accuracy with a bootstrap CI, a report section),
registered at run time, then evaluated, compared, reported, exported and run from the command line with no
other file of senso touched."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import senso
from senso import catalog
from senso.core.errors import SensoError
from senso.core.evaluation import Scored
from senso.core.stats import bootstrap_estimate
from senso.core.task import Metric, PairedTest, Section, SystemEntry, Task, column

TASK = "toy-wic"
FAMILY = "toy"
DATA_FILE = Path("toy") / "wic.csv"
ITEMS = [  # id, word, two sentences, gold: 1 when the word has the same sense in both
    ("t1", "bank", "She sat on the river bank", "The bank of the river flooded", 1),
    ("t2", "bank", "He robbed the bank", "The river bank was muddy", 0),
    ("t3", "bark", "The dog's bark woke me", "The bark of the dog was loud", 1),
    ("t4", "bark", "Birch bark is white", "The dog's bark was loud", 0),
    ("t5", "cell", "A prison cell is small", "The cell was small and dark", 1),
    ("t6", "cell", "Charge your cell phone", "A blood cell under the lens", 0),
    ("t7", "pitch", "The pitch was wet after rain", "Rain soaked the pitch", 1),
    ("t8", "pitch", "Perfect pitch in music", "They played on a muddy pitch", 0),
]


@dataclass(frozen=True)
class WicItem:
    id: str
    word: str
    first: str
    second: str
    gold: int


@dataclass
class WicSample:
    id: str
    word: str
    gold: int
    prediction: int
    correct: float

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "word": self.word, "gold": self.gold, "prediction": self.prediction,
                "correct": self.correct}


def shared_words(item: WicItem) -> int:
    """How many words (other than the target) the two sentences share: the trivial system's evidence."""
    words = lambda text: {w.lower().strip("'s") for w in text.split()} - {item.word, "the", "a", "of"}
    return len(words(item.first) & words(item.second))


SYSTEMS = {"overlap": lambda item: int(shared_words(item) >= 1), "always-same": lambda item: 1}


def load_items(data_dir: Path, limit: int | None) -> list[WicItem]:
    path = data_dir / DATA_FILE
    with path.open(encoding="utf-8") as fh:
        rows = [WicItem(r["id"], r["word"], r["first"], r["second"], int(r["gold"])) for r in csv.DictReader(fh)]
    return rows[:limit] if limit else rows


def check(options: Any, system_object: Any = None) -> None:
    options.validate()
    options.check_family(FAMILY, TASK)
    if system_object is None and (options.system or "overlap") not in SYSTEMS:
        raise SensoError(f"unknown system {options.system!r} for {TASK}; choose from {', '.join(SYSTEMS)}")
    if options.system_options:
        raise SensoError(f"{TASK}'s systems have no options: {', '.join(options.system_options)}")


@dataclass
class WicPlan:
    task: str
    system: str
    items: list[WicItem]
    data_files: list[Path]
    predictor: Any
    seed: int
    config: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    family: str = FAMILY
    kind: str = TASK

    def describe_system(self) -> dict[str, Any]:
        return {"name": self.system}

    def predict(self) -> list[int]:
        return [int(self.predictor(item)) for item in self.items]

    def score(self, answers: list[int]) -> Scored:
        samples = [WicSample(i.id, i.word, i.gold, a, float(a == i.gold)) for i, a in zip(self.items, answers)]
        correct = [s.correct for s in samples]
        accuracy = bootstrap_estimate(lambda c: float(c.mean()), correct, seed=self.seed)
        return Scored(samples=samples, metrics={"accuracy": accuracy})


def prepare(options: Any, context: Any) -> WicPlan:
    data_dir = Path(options.data_dir)
    if context.system is not None:
        predictor, name = context.system.classify, f"user:{type(context.system).__name__}"
    else:
        name = options.system or "overlap"
        predictor = SYSTEMS[name]
    return WicPlan(TASK, name, load_items(data_dir, options.limit), [data_dir / DATA_FILE], predictor, options.seed)


SHOWN: list[str] = []


def show(result: Any, by_group: bool = False) -> None:
    SHOWN.append(f"{result.task} {result.system}: accuracy {result.metrics['accuracy'].format()}")
    print(SHOWN[-1])


PAGE = """<section id="toy-items"><h2>Word-in-context items</h2><table>
{% for s in section.rows %}<tr><td>{{ s.id }}</td><td>{{ s.word }}</td><td>{{ s.gold }}</td><td>{{ s.prediction }}</td></tr>
{% endfor %}</table></section>"""

TOY_TASK = Task(
    TASK, family=FAMILY, kind=TASK, description="toy word-in-context: is the word used in the same sense in both "
                                                "sentences (yes/no)",
    check=check, prepare=prepare, show=show,
    metrics=(Metric("accuracy", "accuracy (same sense?)", "mean(prediction = gold)", short="acc.",
                    hub_type="accuracy", paired=PairedTest("mean", column("correct"))),),
    page=Section(lambda: PAGE, lambda run, thumbnails=True: {"rows": run.samples}),
    systems=lambda: [SystemEntry(name, f"toy system {name}", None, name == "overlap") for name in SYSTEMS],
    catalog=lambda: [("toy (toy-wic)", name, f"toy system {name}") for name in SYSTEMS],
)


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """The toy family registered (removed again after the test), and a data folder holding its items."""
    data = tmp_path / "data"
    (data / DATA_FILE).parent.mkdir(parents=True)
    with (data / DATA_FILE).open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["id", "word", "first", "second", "gold"])
        writer.writerows(ITEMS)
    catalog.register(TOY_TASK)
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))
    yield data
    catalog.unregister(TASK)


class SameWord:
    """A researcher's own system for the toy task, passed as an object."""

    def classify(self, item: WicItem) -> int:
        return int(item.first.split()[0] == item.second.split()[0])


def test_evaluate_returns_a_typed_result(toy):
    result = senso.evaluate(TASK, system="overlap", data_dir=toy)
    expected = [int(shared_words(WicItem(*row)) >= 1) for row in ITEMS]
    assert [s.prediction for s in result.samples] == expected
    accuracy = result.metrics["accuracy"]
    assert accuracy.value == pytest.approx(sum(p == row[4] for p, row in zip(expected, ITEMS)) / len(ITEMS))
    assert accuracy.ci_low <= accuracy.value <= accuracy.ci_high
    assert result.results["family"] == FAMILY and result.results["task_kind"] == TASK
    user = senso.evaluate(TASK, system=SameWord(), data_dir=toy, limit=4)
    assert user.system == "user:SameWord" and user.n == 4


def test_a_foreign_option_is_refused_and_the_catalogues_list_it(toy):
    with pytest.raises(SensoError, match="lang is an AdMIRe option; toy-wic does not use it"):
        senso.evaluate(TASK, data_dir=toy, lang="en")
    assert TASK in [t.name for t in senso.tasks()]
    assert any(s.name == "always-same" and s.tasks == (TASK,) for s in senso.systems())


def test_report_compare_export_and_placement(toy, tmp_path):
    from senso.exporting.model_index import model_index, model_index_yaml
    from senso.exporting.publish import export_runs
    from senso.reporting import write_report
    from senso.reporting.compare_likert import compare_likert
    from senso.reporting.run_folder import load_run
    from senso.reporting.summary import summary_row

    a = senso.evaluate(TASK, system="overlap", data_dir=toy).save(tmp_path / "a")
    b = senso.evaluate(TASK, system="always-same", data_dir=toy).save(tmp_path / "b")
    page = write_report([a]).read_text(encoding="utf-8")
    assert 'id="toy-items"' in page and "accuracy (same sense?)" in page and "No published results" in page
    comparison = compare_likert(TASK, a, b)
    [(group, metric, difference)] = comparison.rows
    assert (group, metric) == ("all", "accuracy") and difference.p_value is not None
    assert difference.difference == pytest.approx(load_run(a).results["metrics"]["accuracy"]["value"] - 0.5)
    assert "runs compared" in write_report([a, b], out=tmp_path / "cmp.html").read_text(encoding="utf-8")
    assert summary_row(load_run(a)).metric == "acc."
    outcome = export_runs([a, b], to=tmp_path / "export")
    assert TASK in outcome.configs
    import datasets

    from senso.exporting.dataset import SPLIT

    rows = datasets.load_dataset(str(tmp_path / "export"), TASK, split=SPLIT).to_list()
    assert len(rows) == 2 * len(ITEMS) and {r["system"] for r in rows} == {"overlap", "always-same"}
    index, _ = model_index([a], model_name="toy")
    assert index[0]["results"][0]["metrics"][0]["type"] == "accuracy"
    assert "accuracy" in model_index_yaml(index)


def test_the_command_line_runs_and_compares_it(toy, tmp_path):
    from typer.testing import CliRunner

    from senso.cli import app

    runner = CliRunner()
    for system in ("overlap", "always-same"):
        result = runner.invoke(app, ["run", TASK, "--system", system, "--data-dir", str(toy),
                                     "--out", str(tmp_path / system)])
        assert result.exit_code == 0, result.output
    assert f"{TASK} overlap: accuracy" in SHOWN[-2]
    results = json.loads((tmp_path / "overlap" / "results.json").read_text(encoding="utf-8"))
    assert results["task"] == TASK and "accuracy" in results["metrics"]
    compared = runner.invoke(app, ["compare", TASK, str(tmp_path / "overlap"), str(tmp_path / "always-same")],
                             terminal_width=250, env={"COLUMNS": "250"})
    assert compared.exit_code == 0, compared.output
    assert "accuracy (same sense?)" in compared.output
    listed = runner.invoke(app, ["tasks"], terminal_width=200)
    assert TASK in listed.output
    quiet = runner.invoke(app, ["run", TASK, "--data-dir", str(toy), "--out", str(tmp_path / "q"), "--quiet"])
    assert quiet.exit_code == 0 and f"{TASK} · overlap" in quiet.output
