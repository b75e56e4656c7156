"""A benchmark family is one folder plus one row in the table of tasks: a small binary word-in-context family,
declared entirely in this file, that needs what a real family needs: its items keyed by `pair` (not `id`) in two
splits (the common `--split`), its own run option (`--min-shared`), its own kind of task file (`kind =
"toy-pairs"`), its own command (`senso toy-count`), its own way to score a file of answers with a `senso score`
flag of its own (`--toy-answers`), a trivial system, accuracy with a bootstrap CI and a paired comparison on it,
and a report section. It is registered at run time, then evaluated, compared, reported,
exported and run from the command line with no other file of senso touched; unregistered, it leaves nothing."""

from __future__ import annotations

import csv
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import typer

import senso
from senso import catalog
from senso.core.errors import SensoError
from senso.core.evaluation import Scored
from senso.core.options import option
from senso.core.stats import bootstrap_estimate
from senso.core.task import Family, FileScoring, Metric, PairedTest, Section, SystemEntry, Task, column, score_flag

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

TASK = "toy-wic"
FAMILY = "toy"
FILE_KIND = "toy-pairs"
SPLITS = ("dev", "test")
DATA_FILE = Path("toy") / "wic.csv"
ITEMS = [  # pair, split, word, two sentences, gold: 1 when the word has the same sense in both
    ("t1", "test", "bank", "She sat on the river bank", "The bank of the river flooded", 1),
    ("t2", "test", "bank", "He robbed the bank", "The river bank was muddy", 0),
    ("t3", "test", "bark", "The dog's bark woke me", "The bark of the dog was loud", 1),
    ("t4", "test", "bark", "Birch bark is white", "The dog's bark was loud", 0),
    ("t5", "test", "cell", "A prison cell is small", "The cell was small and dark", 1),
    ("t6", "test", "cell", "Charge your cell phone", "A blood cell under the lens", 0),
    ("t7", "test", "pitch", "The pitch was wet after rain", "Rain soaked the pitch", 1),
    ("t8", "test", "pitch", "Perfect pitch in music", "They played on a muddy pitch", 0),
    ("d1", "dev", "spring", "Flowers bloom in spring", "In spring the flowers bloom", 1),
    ("d2", "dev", "spring", "The spring in the mattress broke", "We drank from a cold spring", 0),
]


@dataclass(frozen=True)
class WicItem:
    pair: str
    split: str
    word: str
    first: str
    second: str
    gold: int


@dataclass
class WicSample:
    pair: str
    word: str
    gold: int
    prediction: int
    correct: float

    def to_json(self) -> dict[str, Any]:
        return {"pair": self.pair, "word": self.word, "gold": self.gold, "prediction": self.prediction,
                "correct": self.correct}


@dataclass
class ToyOptions:
    """The toy family's own run option, declared as a real family declares its own."""

    min_shared: int | None = option(None, "--min-shared", "toy: words two sentences must share to be called the "
                                    "same sense (default 1).", "protocol", FAMILY,
                                    "is a toy option; {task} does not use it (leave it out)")


def shared_words(item: WicItem) -> int:
    """How many words (other than the target) the two sentences share: the trivial system's evidence."""
    words = lambda text: {w.lower().strip("'s") for w in text.split()} - {item.word, "the", "a", "of"}
    return len(words(item.first) & words(item.second))


SYSTEMS = {"overlap": lambda item, least=1: int(shared_words(item) >= least),
           "always-same": lambda item, least=1: 1}


def read_items(path: Path, split: str, limit: int | None) -> list[WicItem]:
    with path.open(encoding="utf-8") as fh:
        rows = [WicItem(r["pair"], r["split"], r["word"], r["first"], r["second"], int(r["gold"]))
                for r in csv.DictReader(fh)]
    rows = [row for row in rows if row.split == split]
    return rows[:limit] if limit else rows


@dataclass(frozen=True)
class AnswersOptions:
    """The options of the system that reads a file of answers (`senso score toy-wic --toy-answers FILE`)."""

    answers: Path


def read_answers(path: Path) -> dict[str, int]:
    with path.open(encoding="utf-8") as fh:
        return {row["pair"]: int(row["prediction"]) for row in csv.DictReader(fh)}


ANSWERS = "answers"  # the system that reads a file of answers


def check(options: Any, system_object: Any = None) -> None:
    options.validate()
    options.check_family(FAMILY, TASK)
    if system_object is None and (options.system or "overlap") not in (*SYSTEMS, ANSWERS):
        raise SensoError(f"unknown system {options.system!r} for {TASK}; choose from {', '.join(SYSTEMS)}")
    if options.system_options and options.system != ANSWERS:
        raise SensoError(f"{TASK}'s systems have no options: {', '.join(options.system_options)}")


@dataclass
class WicPlan:
    task: str
    system: str
    items: list[WicItem]
    data_files: list[Path]
    predictor: Any
    seed: int
    least: int
    config: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    family: str = FAMILY
    kind: str = TASK

    def describe_system(self) -> dict[str, Any]:
        return {"name": self.system, "min_shared": self.least}

    def predict(self) -> list[int]:
        return [int(self.predictor(item, self.least)) for item in self.items]

    def score(self, answers: list[int]) -> Scored:
        samples = [WicSample(i.pair, i.word, i.gold, a, float(a == i.gold)) for i, a in zip(self.items, answers)]
        correct = [s.correct for s in samples]
        accuracy = bootstrap_estimate(lambda c: float(c.mean()), correct, seed=self.seed)
        return Scored(samples=samples, metrics={"accuracy": accuracy}, record={"split": self.config["split"]})


def plan(options: Any, context: Any, path: Path, task: str) -> WicPlan:
    split = options.split or "test"
    if context.system is not None:
        predictor, name = (lambda item, least: context.system.classify(item)), f"user:{type(context.system).__name__}"
    elif options.system == ANSWERS:
        answers, name = read_answers(AnswersOptions(**options.system_options).answers), ANSWERS
        predictor = lambda item, least: answers[item.pair]
    else:
        name = options.system or "overlap"
        predictor = SYSTEMS[name]
    return WicPlan(task, name, read_items(path, split, options.limit), [path], predictor, options.seed,
                   options.min_shared or 1, config={"split": split})


def prepare(options: Any, context: Any) -> WicPlan:
    return plan(options, context, Path(options.data_dir) / DATA_FILE, TASK)


def prepare_file(options: Any, context: Any) -> WicPlan:
    """A toy task file: `kind = "toy-pairs"`, its name and its data file (beside it)."""
    path = Path(options.task)
    declared = tomllib.loads(path.read_text(encoding="utf-8"))
    return plan(options, context, path.parent / declared["data"], declared["name"])


SHOWN: list[str] = []


def show(result: Any, by_group: bool = False) -> None:
    SHOWN.append(f"{result.task} {result.system}: accuracy {result.metrics['accuracy'].format()}")
    print(SHOWN[-1])


COUNTED: list[str] = []


def register_commands(cli: Any) -> None:
    """The toy family's own command: `senso toy-count DATA_DIR`, the items of each split."""

    @cli.app.command("toy-count")
    def toy_count(data_dir: Path = typer.Argument(..., help="The folder holding toy/wic.csv.")) -> None:
        """How many toy items each split holds."""
        counts = {split: len(read_items(data_dir / DATA_FILE, split, None)) for split in SPLITS}
        COUNTED.append(", ".join(f"{split} {n}" for split, n in counts.items()))
        cli.out.print(COUNTED[-1])


@dataclass
class ToyScoreFlags:
    """The toy family's own `senso score` flag."""

    toy_answers: Path | None = score_flag(None, "--toy-answers", "toy: a CSV of pair,prediction to score.")


def answers_options(task: str, file: Path | None, flags: ToyScoreFlags) -> dict[str, Any]:
    return {"system": ANSWERS, "system_options": {"answers": flags.toy_answers}}


def answers_json(result: Any, file: Path | None, flags: ToyScoreFlags) -> dict[str, Any]:
    return {"answers": str(flags.toy_answers), "n": result.n, "accuracy": result.metrics["accuracy"].value}


SCORING = FileScoring(ToyScoreFlags, needs=("--toy-answers",), missing="senso score {task}: give --toy-answers FILE",
                      noun="answers file", help="a toy answers file (--toy-answers)", tasks=(TASK,),
                      options=answers_options, to_json=answers_json)

PAGE = """<section id="toy-items"><h2>Word-in-context items</h2><table>
{% for s in section.rows %}<tr><td>{{ s.pair }}</td><td>{{ s.word }}</td><td>{{ s.gold }}</td><td>{{ s.prediction }}</td></tr>
{% endfor %}</table></section>"""

TOY = Family(FAMILY, title="toy", options=ToyOptions, reads=("split",), commands=register_commands, scoring=SCORING,
             catalog=lambda: [("toy (toy-wic)", name, f"toy system {name}") for name in SYSTEMS])
ACCURACY = Metric("accuracy", "accuracy (same sense?)", "mean(prediction = gold)", short="acc.", hub_type="accuracy",
                  paired=PairedTest("mean", column("correct")))
COMMON = dict(family=TOY, check=check, show=show, metrics=(ACCURACY,), item_key="pair", choices={"split": SPLITS},
              page=Section(lambda: PAGE, lambda run, thumbnails=True: {"rows": run.samples}),
              systems=lambda: [SystemEntry(name, f"toy system {name}", None, name == "overlap") for name in SYSTEMS])
TOY_TASK = Task(TASK, kind=TASK, description="toy word-in-context: is the word used in the same sense in both "
                                             "sentences (yes/no)", prepare=prepare, **COMMON)
TOY_FILE = Task("path/to/pairs.toml", kind=TASK, description="a toy task file (kind = \"toy-pairs\")",
                file_kind=FILE_KIND, prepare=prepare_file, **COMMON)


def write_items(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["pair", "split", "word", "first", "second", "gold"])
        writer.writerows(ITEMS)
    return path


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """The toy family registered (removed again after the test), and a data folder holding its items."""
    data = tmp_path / "data"
    write_items(data / DATA_FILE)
    catalog.register(TOY_TASK)
    catalog.register(TOY_FILE)
    from huggingface_hub import constants  # imported before HF_HUB_OFFLINE is set: its import-time copy stays
                                           # unset for the tests after this one; the offline value is patched in

    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))
    yield data
    catalog.unregister(TOY_FILE.name)
    catalog.unregister(TASK)


class SameWord:
    """A researcher's own system for the toy task, passed as an object."""

    def classify(self, item: WicItem) -> int:
        return int(item.first.split()[0] == item.second.split()[0])


TEST_ITEMS = [WicItem(*row) for row in ITEMS if row[1] == "test"]


def test_evaluate_returns_a_typed_result(toy):
    result = senso.evaluate(TASK, system="overlap", data_dir=toy)
    expected = [int(shared_words(item) >= 1) for item in TEST_ITEMS]
    assert [s.prediction for s in result.samples] == expected and [s.pair for s in result.samples][0] == "t1"
    accuracy = result.metrics["accuracy"]
    assert accuracy.value == pytest.approx(sum(p == i.gold for p, i in zip(expected, TEST_ITEMS)) / len(TEST_ITEMS))
    assert accuracy.ci_low <= accuracy.value <= accuracy.ci_high
    assert result.results["family"] == FAMILY and result.results["task_kind"] == TASK
    user = senso.evaluate(TASK, system=SameWord(), data_dir=toy, limit=4)
    assert user.system == "user:SameWord" and user.n == 4


def test_its_own_option_and_the_common_split_are_keywords(toy):
    dev = senso.evaluate(TASK, data_dir=toy, split="dev")
    assert [s.pair for s in dev.samples] == ["d1", "d2"] and dev.results["split"] == "dev"
    strict = senso.evaluate(TASK, data_dir=toy, min_shared=3)
    assert [s.prediction for s in strict.samples] == [int(shared_words(i) >= 3) for i in TEST_ITEMS]
    assert strict.results["model"]["min_shared"] == 3
    with pytest.raises(SensoError, match="min_shared= expects a whole number"):
        senso.evaluate(TASK, data_dir=toy, min_shared="3")
    with pytest.raises(SensoError, match=r"toy-wic has no split 'train' \(split\); choose from dev, test"):
        senso.evaluate(TASK, data_dir=toy, split="train")


def test_a_foreign_option_is_refused_both_ways_and_the_catalogues_list_it(toy):
    with pytest.raises(SensoError, match="lang is an AdMIRe option; toy-wic does not use it"):
        senso.evaluate(TASK, data_dir=toy, lang="en")
    with pytest.raises(SensoError, match="min_shared is a toy option; abricot-abs does not use it"):
        senso.evaluate("abricot-abs", min_shared=2)
    with pytest.raises(SensoError, match="split is an AdMIRe or word-in-context or toy option; abricot-abs does not use it"):
        senso.evaluate("abricot-abs", split="dev")  # one common split, read by both families that say so
    assert TASK in [t.name for t in senso.tasks()]
    assert any(s.name == "always-same" and TASK in s.tasks for s in senso.systems())


def test_its_task_file_kind_is_chosen_by_the_kind_key(toy, tmp_path):
    write_items(tmp_path / "files" / "pairs.csv")
    path = tmp_path / "files" / "pairs.toml"
    path.write_text(f'kind = "{FILE_KIND}"\nname = "my-pairs"\ndata = "pairs.csv"\n', encoding="utf-8")
    assert catalog.task_for(str(path)) is TOY_FILE
    result = senso.evaluate(path, split="dev")
    assert result.task == "my-pairs" and result.n == 2
    path.write_text('kind = "Toy-Pairs"\nname = "my-pairs"\n', encoding="utf-8")
    with pytest.raises(SensoError, match=f"'Toy-Pairs' is no kind of task file; the kinds are .*'{FILE_KIND}'"):
        senso.evaluate(path)


def test_report_compare_export_and_placement(toy, tmp_path):
    from senso.exporting.model_index import model_index, model_index_yaml
    from senso.exporting.publish import export_runs
    from senso.reporting import write_report
    from senso.reporting.run_folder import load_run
    from senso.reporting.summary import summary_row

    a = senso.evaluate(TASK, system="overlap", data_dir=toy).save(tmp_path / "a")
    b = senso.evaluate(TASK, system="always-same", data_dir=toy).save(tmp_path / "b")
    page = write_report([a]).read_text(encoding="utf-8")
    assert 'id="toy-items"' in page and "accuracy (same sense?)" in page and "No published results" in page
    comparison = senso.compare(a, b, n_resamples=500)
    [difference] = comparison.differences
    assert (difference.group, difference.metric) == ("all", "accuracy") and difference.p_value is not None
    assert difference.difference == pytest.approx(load_run(a).results["metrics"]["accuracy"]["value"] - 0.5)
    assert comparison.n == len(TEST_ITEMS)
    assert "runs compared" in write_report([a, b], out=tmp_path / "cmp.html").read_text(encoding="utf-8")
    assert summary_row(load_run(a)).metric == "acc."
    outcome = export_runs([a, b], to=tmp_path / "export")
    assert TASK in outcome.configs
    import datasets

    from senso.exporting.dataset import SPLIT

    rows = datasets.load_dataset(str(tmp_path / "export"), TASK, split=SPLIT).to_list()
    assert len(rows) == 2 * len(TEST_ITEMS) and {r["system"] for r in rows} == {"overlap", "always-same"}
    index, _ = model_index([a], model_name="toy")
    assert index[0]["results"][0]["metrics"][0]["type"] == "accuracy"
    assert "accuracy" in model_index_yaml(index)


def test_runs_of_other_items_are_not_compared(toy, tmp_path):
    a = senso.evaluate(TASK, data_dir=toy).save(tmp_path / "a")
    b = senso.evaluate(TASK, data_dir=toy, limit=4).save(tmp_path / "b")
    with pytest.raises(SensoError, match="are not on the same items"):
        senso.compare(a, b)


def test_the_command_line_runs_compares_and_has_its_command(toy, tmp_path):
    from typer.testing import CliRunner

    from senso.cli import app

    runner = CliRunner()
    for system in ("overlap", "always-same"):
        result = runner.invoke(app, ["run", TASK, "--system", system, "--data-dir", str(toy), "--split", "test",
                                     "--min-shared", "1", "--out", str(tmp_path / system)])
        assert result.exit_code == 0, result.output
    assert f"{TASK} overlap: accuracy" in SHOWN[-2]
    results = json.loads((tmp_path / "overlap" / "results.json").read_text(encoding="utf-8"))
    assert results["task"] == TASK and "accuracy" in results["metrics"]
    compared = runner.invoke(app, ["compare", str(tmp_path / "overlap"), str(tmp_path / "always-same")],
                             terminal_width=250, env={"COLUMNS": "250"})
    assert compared.exit_code == 0, compared.output
    assert "accuracy (same sense?)" in compared.output
    listed = runner.invoke(app, ["tasks"], terminal_width=200)
    assert TASK in listed.output
    counted = runner.invoke(app, ["toy-count", str(toy)])
    assert counted.exit_code == 0 and COUNTED[-1] == "dev 2, test 8"
    helped = runner.invoke(app, ["run", "--help"], terminal_width=200, env={"COLUMNS": "200"})
    assert "--min-shared" in helped.output
    quiet = runner.invoke(app, ["run", TASK, "--data-dir", str(toy), "--out", str(tmp_path / "q"), "--quiet"])
    assert quiet.exit_code == 0 and f"{TASK} · overlap" in quiet.output


def test_senso_score_has_its_own_flag_and_words(toy, tmp_path):
    from typer.testing import CliRunner

    from senso.cli import app

    answers = tmp_path / "answers.csv"
    answers.write_text("pair,prediction\n" + "".join(f"{i.pair},{i.gold if i.pair != 't1' else 0}\n"
                                                       for i in TEST_ITEMS), encoding="utf-8")
    pairs = tmp_path / "pairs.toml"
    pairs.write_text(f'kind = "{FILE_KIND}"\nname = "my-pairs"\ndata = "pairs.csv"\n', encoding="utf-8")
    runner = CliRunner()
    scored = runner.invoke(app, ["score", TASK, "--toy-answers", str(answers), "--data-dir", str(toy), "--json",
                                 "--out", str(tmp_path / "scored")])
    assert scored.exit_code == 0, scored.output
    assert json.loads(scored.output) == {"answers": str(answers), "n": 8, "accuracy": 7 / 8}
    assert json.loads((tmp_path / "scored" / "results.json").read_text(encoding="utf-8"))["system"] == ANSWERS
    helped = runner.invoke(app, ["score", "--help"], terminal_width=200, env={"COLUMNS": "200"})
    assert "--toy-answers" in helped.output and "toy: a CSV of pair,prediction to score." in helped.output
    words = " ".join(helped.output.replace("│", " ").split())
    assert "toy-wic (with --toy-answers)" in words and "; or a toy answers file (--toy-answers)" in words
    for args, message in (([TASK], "senso score toy-wic: give --toy-answers FILE"),
                          (["abricot-abs", "--toy-answers", str(answers)],
                           "--toy-answers is for toy tasks (toy-wic), not abricot-abs"),
                          ([TASK, "--toy-answers", str(answers), "--gold", "x.tsv"],
                           "--gold: AdMIRe submission options; leave them out with --toy-answers"),
                          ([str(pairs)], f"senso score: {pairs} scores no file of answers; abricot-abs, "
                                         "abricot-inc, a task file, admire-a, admire-b, wic-en, wicita-binary, wicita-ranking, "
                                         "dwug-en, a pairs task file, toy-wic do")):
        refused = runner.invoke(app, ["score", *args])
        assert isinstance(refused.exception, SensoError) and message in str(refused.exception), refused.output


def test_unregistered_it_leaves_no_option_or_command(toy):
    from typer.testing import CliRunner

    from senso.cli import app

    catalog.unregister(TOY_FILE.name)
    catalog.unregister(TASK)
    assert "min_shared" not in catalog.RUN_FIELDS and TOY not in catalog.families()
    assert CliRunner().invoke(app, ["toy-count", "."]).exit_code != 0
    helped = CliRunner().invoke(app, ["score", "--help"], terminal_width=200, env={"COLUMNS": "200"})
    assert helped.exit_code == 0 and "--toy-answers" not in helped.output
    with pytest.raises(SensoError, match="unknown keyword min_shared="):
        senso.evaluate("abricot-abs", min_shared=2)
    catalog.register(TOY_TASK)  # the fixture removes it again
    catalog.register(TOY_FILE)
    assert "min_shared" in catalog.RUN_FIELDS


def test_an_option_declared_twice_is_refused_not_shadowed():
    from dataclasses import replace

    @dataclass
    class OwnSplit:
        split: str | None = option(None, "--split", "toy: its own split.", "data", FAMILY, "is a toy option")

    with pytest.raises(SensoError, match="family 'toy' declares split, which the core already declares \\(a common "
                                         "option: name it in Family.reads\\)"):
        catalog.register(replace(TOY_TASK, family=replace(TOY, options=OwnSplit)))
    assert TASK not in catalog.TASKS


def test_a_score_flag_declared_twice_is_refused():
    from dataclasses import replace

    @dataclass
    class OwnGold:
        gold: Path | None = score_flag(None, "--gold", "toy: its own targets.")

    with pytest.raises(SensoError, match="family 'toy' declares the senso score flag gold, which family 'admire' "
                                         "already declares"):
        catalog.register(replace(TOY_TASK, family=replace(TOY, scoring=replace(SCORING, flags=OwnGold))))
    assert TASK not in catalog.TASKS
