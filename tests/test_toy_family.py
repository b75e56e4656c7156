"""A benchmark family is one folder plus one row in the table of tasks: a small binary word-in-context family,
declared entirely in this file, that needs what a real family needs: its items keyed by `pair` (not `id`) in two
splits (the common `--split`), its own run option (`--min-shared`), its own kind of task file (`kind =
"toy-pairs"`), its own command (`senso toy-count`), its own way to score a file of answers with a `senso score`
flag of its own (`--toy-answers`), a trivial system, a prompted yes/no choice on a language model (the common
`--protocol`, `--shots`, `--chat-template`), a fitted system scored leave-one-word-out with its regularisation
chosen by grouped cross-validation and its unseen items as the headline, a researcher's own system through its
protocol (`judge`), accuracy with a bootstrap CI and a paired comparison on it, and a report section, all from
the core's building blocks. It is installed as an outside package's family would be: a distribution's metadata
(written by the test on a folder of sys.path) names `TASKS` in the entry-point group `senso.families`, and senso
finds it (`senso.catalog.load_installed`); then it is evaluated, compared, reported, exported and run from the
command line with no other file of senso touched; unregistered, it leaves nothing."""

from __future__ import annotations

import csv
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import typer

import senso
from senso import catalog
from senso.backends.access import ModelAccess
from senso.core.errors import SensoError
from senso.core.evaluation import Scored
from senso.core.options import option
from senso.core.overlap import overlap_record
from senso.core.params import NoOptions
from senso.core.prompting import (
    FEW_SHOT, PROTOCOL_OPTIONS, ZERO_SHOT, ChoicePrompt, argmax_choice, check_protocol, exemplar_positions, few_shot,
    shots_of, solved,
)
from senso.core.ridge_cv import nested_cv_predict
from senso.core.stats import bootstrap_estimate
from senso.core.system_row import MODEL_FLAGS, SystemRow, refuse_name_and_object, refuse_unread_flags, unknown_system
from senso.core.tables import print_run_metrics
from senso.core.task import Family, FileScoring, Metric, PairedTest, Section, SystemEntry, Task, column, score_flag
from senso.core.terminal import terminal
from senso.core.user_system import UserProtocol, UserSystem

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
CHOICES = ("no", "yes")  # the prompted system's answers: index 1 means the same sense
PROTOCOLS = {ZERO_SHOT: "zero-shot", FEW_SHOT: "few-shot"}  # the names the toy records for the two protocols


def toy_prompt(item: WicItem) -> str:
    return f'Is "{item.word}" used in the same sense in "{item.first}" and in "{item.second}"? Answer:'


def toy_prompts(items: list[WicItem], pool: list[WicItem], shots: int) -> list[ChoicePrompt]:
    """One yes/no prompt per item, after `shots` solved exemplars of other words (sorted by gold, then pair)."""
    prompts = []
    for item in items:
        others = sorted((o for o in pool if o.word != item.word), key=lambda o: (o.gold, o.pair))
        exemplars = [others[k] for k in exemplar_positions(len(others), shots)]
        prefix = few_shot([solved(toy_prompt(o), CHOICES[o.gold]) for o in exemplars]) if exemplars else ""
        prompts.append(ChoicePrompt(item.pair, prefix + toy_prompt(item), prefix, tuple(o.pair for o in exemplars),
                                    CHOICES))
    return prompts


@dataclass
class ToyModels(ModelAccess):
    """What the toy's model-reading system is given: the run's options, cache and models."""

    options: Any
    cache: Any
    models: Any
    settings: dict[str, Any] = field(default_factory=dict)


def features(item: WicItem) -> list[float]:
    """The fitted system's evidence: shared words, a shared first word, and the sentences' length difference."""
    first, second = item.first.split(), item.second.split()
    return [float(shared_words(item)), float(first[0] == second[0]), float(len(first) - len(second))]


@dataclass
class Fitted:
    """A ridge on `features`, scored leave-one-word-out, α chosen per fold by a grouped inner cross-validation."""

    folds: list[str] = field(default_factory=list)

    def answers(self, items: list[WicItem]) -> list[int]:
        result = nested_cv_predict(np.array([features(i) for i in items]), np.array([float(i.gold) for i in items]),
                                   [i.word for i in items])
        self.folds = result.fold_of_row
        return [int(p >= 0.5) for p in result.predictions]

    @staticmethod
    def overlaps(items: list[WicItem]) -> list[dict[str, bool]]:
        """What each item shares with its training fold (the other words' items): the word, or a sentence."""
        return [{"word": False, "sentence": bool({i.first, i.second} & {s for o in items if o.word != i.word
                                                                         for s in (o.first, o.second)})}
                for i in items]


@dataclass(frozen=True)
class ToySystem(SystemRow):
    """A row of the toy's table of systems: what it reads of the model flags and the prompted-choice options."""

    name: str
    description: str
    flags: tuple[str, ...] = ()
    options: type = NoOptions


ROWS = {row.name: row for row in (
    ToySystem("overlap", "shared words"), ToySystem("always-same", "always the same sense"),
    ToySystem("prompted", "a language model's yes/no choice (--model, --protocol)",
              ("model", "backend", "base_url", *PROTOCOL_OPTIONS)),
    ToySystem("fitted", "a ridge on shared words, leave-one-word-out (supervised)"))}


def to_judgement(item: WicItem, answer: Any) -> int:
    """A researcher's answer: 1/0, or "yes"/"no"."""
    if answer in (0, 1) and not isinstance(answer, float):
        return int(answer)
    if answer in CHOICES:
        return CHOICES.index(answer)
    raise SensoError(f"pair {item.pair}: a toy system answers True/False, 1/0 or yes/no, got {answer!r}")


JUDGE = UserProtocol("judge", "judge(items)", "toy-wic", "whether the word has the same sense in both sentences",
                     bool, to_judgement)


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
    if system_object is not None:
        refuse_name_and_object(options)
        UserSystem(system_object, JUDGE)  # its method, before anything runs
        return
    name = options.system or "overlap"
    if name not in (*ROWS, ANSWERS):
        raise unknown_system("toy", name, ROWS)
    row = ROWS.get(name, ToySystem(ANSWERS, "a file of answers"))
    refuse_unread_flags(options, row.flags, f"toy system {name}", MODEL_FLAGS + PROTOCOL_OPTIONS)
    if "protocol" in row.flags:
        check_protocol(options.protocol, options.shots, PROTOCOLS, TASK)
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
    facts: dict[str, Any] = field(default_factory=dict)  # what results.json records of the system (its protocol)

    def describe_system(self) -> dict[str, Any]:
        described = self.predictor.describe() if isinstance(self.predictor, UserSystem) else {"name": self.system}
        return {**described, "min_shared": self.least}

    def predict(self) -> list[int]:
        if callable(getattr(self.predictor, "answers", None)):  # a system that answers all items at once
            return [int(a) for a in self.predictor.answers(self.items)]
        return [int(self.predictor(item, self.least)) for item in self.items]

    def accuracy(self, samples: list[WicSample]) -> dict[str, Any]:
        return {"accuracy": bootstrap_estimate(lambda c: float(c.mean()), [s.correct for s in samples], seed=self.seed)}

    def score(self, answers: list[int]) -> Scored:
        samples = [WicSample(i.pair, i.word, i.gold, a, float(a == i.gold)) for i, a in zip(self.items, answers)]
        record = {"split": self.config["split"], **self.facts}
        if isinstance(self.predictor, Fitted):  # the items sharing nothing with their training fold lead
            record.update(overlap_record(Fitted.overlaps(self.items), ("word", "sentence"), "the other words' "
                                         "items (leave-one-word-out)", {"word": "the word", "sentence": "a sentence"},
                                         lambda unseen: self.accuracy([samples[k] for k in unseen])))
        return Scored(samples=samples, metrics=self.accuracy(samples), record=record)


def plan(options: Any, context: Any, path: Path, task: str) -> WicPlan:
    split = options.split or "test"
    items, facts = read_items(path, split, options.limit), {}
    if context.system is not None:
        predictor = UserSystem(context.system, JUDGE)
        name = predictor.name
    elif options.system == ANSWERS:
        answers, name = read_answers(AnswersOptions(**options.system_options).answers), ANSWERS
        predictor = lambda item, least: answers[item.pair]
    elif options.system == "prompted":
        name = "prompted"
        predictor, facts = prompted(options, context, items, read_items(path, split, None))
    else:
        name = options.system or "overlap"
        predictor = Fitted() if name == "fitted" else SYSTEMS[name]
    return WicPlan(task, name, items, [path], predictor, options.seed, options.min_shared or 1,
                   config={"split": split}, facts=facts)


def prompted(options: Any, context: Any, items: list[WicItem], pool: list[WicItem]) -> tuple[Any, dict[str, Any]]:
    """The prompted system (its answers: the likelier of no/yes under --model) and what the run records of it."""
    kind = check_protocol(options.protocol, options.shots, PROTOCOLS, TASK)
    prompts = toy_prompts(items, pool, shots_of(kind, options.shots))
    model = ToyModels(options, context.cache, context.models).scored_lm(chat_template=options.chat_template)

    class Prompted:
        def answers(self, _: list[WicItem]) -> list[int]:
            return [argmax_choice(lp) - 1 for lp in model.loglikelihood_choices(prompts, options.batch_size)]

    exemplars = {p.item_id: list(p.exemplar_ids) for p in prompts if p.exemplar_ids}
    return Prompted(), {"protocol": PROTOCOLS[kind], "exemplar_ids": exemplars}


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
    print_run_metrics(terminal(), f"{result.task} · {result.system} · n={result.n}", result.metrics, {}, result.results)


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

TOY = Family(FAMILY, title="toy", options=ToyOptions, reads=("split", *PROTOCOL_OPTIONS), commands=register_commands,
             scoring=SCORING, catalog=lambda: [("toy (toy-wic)", name, row.description) for name, row in ROWS.items()])
ACCURACY = Metric("accuracy", "accuracy (same sense?)", "mean(prediction = gold)", short="acc.", hub_type="accuracy",
                  paired=PairedTest("mean", column("correct")))
COMMON = dict(family=TOY, check=check, show=show, metrics=(ACCURACY,), item_key="pair", choices={"split": SPLITS},
              page=Section(lambda: PAGE, lambda run, thumbnails=True: {"rows": run.samples}),
              systems=lambda: [SystemEntry(name, row.description, None, name == "overlap") for name, row in ROWS.items()])
TOY_TASK = Task(TASK, kind=TASK, description="toy word-in-context: is the word used in the same sense in both "
                                             "sentences (yes/no)", prepare=prepare, **COMMON)
TOY_FILE = Task("path/to/pairs.toml", kind=TASK, description="a toy task file (kind = \"toy-pairs\")",
                file_kind=FILE_KIND, prepare=prepare_file, **COMMON)
TASKS = (TOY_TASK, TOY_FILE)  # what the toy distribution's entry point names


def install(site: Path, entry_point: str, name: str = "senso-toy") -> Path:
    """A distribution as pip leaves one in site-packages: its metadata, with one line in the group senso.families
    (`toy = module:TASKS`), on a folder that is then put on sys.path."""
    info = site / f"{name.replace('-', '_')}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[senso.families]\n{entry_point}\n", encoding="utf-8")
    return site


def write_items(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["pair", "split", "word", "first", "second", "gold"])
        writer.writerows(ITEMS)
    return path


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """The toy family installed and found (removed again after the test), and a data folder holding its items."""
    data = tmp_path / "data"
    write_items(data / DATA_FILE)
    monkeypatch.syspath_prepend(str(install(tmp_path / "site", f"toy = {__name__}:TASKS")))
    assert catalog.load_installed() == list(TASKS)
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
    """A researcher's own system for the toy task, passed as an object (the toy's protocol: `judge(items)`)."""

    def judge(self, items: list[WicItem]) -> list[Any]:
        return [["no", np.int64(1)][item.first.split()[0] == item.second.split()[0]] for item in items]

    def describe(self) -> dict[str, Any]:
        return {"rule": "the same first word"}


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
                           "--gold is an option of AdMIRe submission scoring; leave it out with --toy-answers"),
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


@pytest.mark.real_model
def test_a_prompted_choice_on_the_built_in_model(toy, default_models, default_lm):
    zero = senso.evaluate(TASK, system="prompted", data_dir=toy, models=default_models, no_cache=True)
    by_hand = ChoicePrompt("t1", 'Is "bank" used in the same sense in "She sat on the river bank" and in "The bank '
                                 'of the river flooded"? Answer:', choices=("no", "yes"))
    assert by_hand.continuations == (" no", " yes")
    [logprobs] = default_lm.loglikelihood_choices([by_hand])
    assert zero.samples[0].prediction == argmax_choice(logprobs) - 1 and zero.results["protocol"] == "zero-shot"
    few = senso.evaluate(TASK, system="prompted", data_dir=toy, models=default_models, protocol="few-shot", shots=2,
                         no_cache=True)
    exemplars = few.results["exemplar_ids"]
    words = {i.pair: i.word for i in TEST_ITEMS}
    assert set(exemplars) == set(words) and all(len(ids) == 2 for ids in exemplars.values())
    assert all(words[e] != words[pair] for pair, ids in exemplars.items() for e in ids)  # other words only
    assert few.results["protocol"] == "few-shot" and {s.prediction for s in few.samples} <= {0, 1}


def test_the_prompting_options_are_read_by_the_families_that_say_so(toy):
    with pytest.raises(SensoError, match=r"protocol is not used by toy system overlap \(it reads none of them\)"):
        senso.evaluate(TASK, system="overlap", data_dir=toy, protocol="few-shot")
    with pytest.raises(SensoError, match="sets the exemplars of the few-shot protocol, but the protocol of this toy-wic "
                                         "run is zero-shot"):
        senso.evaluate(TASK, system="prompted", data_dir=toy, shots=2)
    with pytest.raises(SensoError, match="unknown protocol 'paper' for task toy-wic; choose from few-shot, zero-shot"):
        senso.evaluate(TASK, system="prompted", data_dir=toy, protocol="paper")
    with pytest.raises(SensoError, match="shots is a Likert or toy prompting option; admire-a does not use it"):
        senso.evaluate("admire-a", shots=2)
    with pytest.raises(SensoError, match="unknown toy system 'prompt'; choose from overlap, always-same, prompted"):
        senso.evaluate(TASK, system="prompt", data_dir=toy)


def test_a_fitted_system_leads_with_its_unseen_items(toy, tmp_path):
    from typer.testing import CliRunner

    from senso.cli import app

    fitted = senso.evaluate(TASK, system="fitted", data_dir=toy)
    assert fitted.results["unseen"]["n"] == 8 and fitted.results["overlap"]["n_seen"] == 0
    assert fitted.results["unseen"]["accuracy"]["value"] == fitted.metrics["accuracy"].value
    assert "every item is unseen" in fitted.results["overlap"]["why"]
    # a task file whose "cell" pair repeats a sentence of a "bank" pair: 4 items share it with a training fold
    rows = [row if row[0] != "t5" else ("t5", "test", "cell", "He robbed the bank", "A cell", 1) for row in ITEMS]
    (tmp_path / "f").mkdir()
    with (tmp_path / "f" / "pairs.csv").open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows([("pair", "split", "word", "first", "second", "gold"), *rows])
    path = tmp_path / "f" / "pairs.toml"
    path.write_text(f'kind = "{FILE_KIND}"\nname = "my-pairs"\ndata = "pairs.csv"\n', encoding="utf-8")
    seen = senso.evaluate(path, system="fitted")
    overlap = seen.results["overlap"]
    assert overlap["n_seen"] == 2 and overlap["shared"] == {"word": 0, "sentence": 2}  # t2 and t5
    unseen = [s for s in seen.samples if s.pair not in ("t2", "t5")]
    assert seen.results["unseen"]["n"] == 6
    assert seen.results["unseen"]["accuracy"]["value"] == pytest.approx(sum(s.correct for s in unseen) / 6)
    shown = CliRunner().invoke(app, ["run", str(path), "--system", "fitted", "--out", str(tmp_path / "run")],
                               terminal_width=120, env={"COLUMNS": "120"})
    assert shown.exit_code == 0 and "UNSEEN (n=6)" in shown.output, shown.output
    assert "headline is the 6 unseen items" in " ".join(shown.output.split())


def test_a_researchers_system_follows_the_toy_protocol(toy):
    user = senso.evaluate(TASK, system=SameWord(), data_dir=toy)
    assert [s.prediction for s in user.samples] == [int(i.first.split()[0] == i.second.split()[0]) for i in TEST_ITEMS]
    assert user.results["model"]["rule"] == "the same first word" and user.results["model"]["user_supplied"]

    class Classifier:
        def classify(self, items):
            return [1] * len(items)

    with pytest.raises(SensoError, match=r"has no judge\(items\) method: a toy-wic system returns, per item, whether"):
        senso.evaluate(TASK, system=Classifier(), data_dir=toy)

    class Short:
        def judge(self, items):
            return ["yes"]

    with pytest.raises(SensoError, match="user:Short returned 1 answers for 8 items"):
        senso.evaluate(TASK, system=Short(), data_dir=toy)

    class Unsure:
        def judge(self, items):
            return ["maybe"] * len(items)

    with pytest.raises(SensoError, match="pair t1: a toy system answers True/False, 1/0 or yes/no, got 'maybe'"):
        senso.evaluate(TASK, system=Unsure(), data_dir=toy)


def test_it_is_found_through_its_entry_point_after_senso_s_own(toy):
    assert [family.name for family in catalog.families()] == ["likert", "admire", "wic", FAMILY]
    assert catalog.task_for(TASK) is TOY_TASK and catalog.TASK_FILE_KINDS[FILE_KIND] is TOY_FILE
    assert catalog.load_installed() == []  # found once


@pytest.mark.parametrize("entry_point, says", [
    ("toy = no_such_module_of_toy:TASKS", "could not be loaded: ModuleNotFoundError"),
    (f"toy = {__name__}:SPLITS", "names tuple, not a tuple of senso.core.task.Task values")])
def test_a_broken_entry_point_is_an_error_naming_it(tmp_path, monkeypatch, entry_point, says):
    monkeypatch.syspath_prepend(str(install(tmp_path / "site", entry_point, name="broken-toy")))
    value = entry_point.split(" = ")[1]
    with pytest.raises(SensoError, match=f"the entry point toy = '{value}' of broken-toy \\(group senso.families\\) "
                                         f"{says}"):
        catalog.load_installed()
    assert TASK not in catalog.TASKS


def test_the_command_line_says_a_broken_entry_point_without_a_traceback(tmp_path):
    import os
    import subprocess

    site = install(tmp_path / "site", "toy = no_such_module_of_toy:TASKS", name="broken-toy")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *sys.path])}
    done = subprocess.run([sys.executable, "-m", "senso", "tasks"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith("error: the entry point toy = 'no_such_module_of_toy:TASKS' of broken-toy"), done.stderr
