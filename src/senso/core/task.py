"""What a task is, in one value: everything the rest of senso asks of it.

A family folder (`senso/likert/`, `senso/admire/`, or a test's toy family) declares its tasks as `Task` values;
the one table of tasks (`senso.catalog`) holds them. The command line, `senso.tasks()`, the evaluation loop,
the report pages, comparisons, exports and placement beside published results read a run's `Task` and call
its hooks; none of them branches on a task's name or family.

A hook that has nothing to say for a task keeps its default (no published results, no report section of its
own, the run's language and split as recorded), so a small family declares only what it has.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from senso.core.placement import Placement

Samples = list[dict[str, Any]]  # a run's samples.jsonl rows


@dataclass(frozen=True)
class PairedTest:
    """How one metric is compared between two runs on the same items. A correlation is tested on the
    correlation itself (`core.stats.paired_statistic_difference`, with the gold column `shared` and the row-wise
    `statistic`); a mean of per-item values (accuracy, Top-1, DCG) with a paired permutation test."""

    kind: str  # "correlation" or "mean"
    columns: Callable[[Samples], list[float]]  # the system's per-item column
    shared: Callable[[Samples], list[float]] | None = None  # gold column (correlations)
    statistic: Callable[..., Any] | None = None  # row-wise correlation


@dataclass(frozen=True)
class Metric:
    """A metric as a task declares it, once: its name in results.json, its label, whether higher is better,
    the formula in one line, whether it has a bootstrap CI, its short name in summary tables, the Hub's name for
    it (model-index), what a uniformly random system scores, and how two runs are compared on it."""

    name: str
    label: str
    formula: str = ""
    direction: str = "higher"  # "higher" or "lower" is better
    has_ci: bool = True
    short: str | None = None
    hub_type: str | None = None
    random_baseline: float | None = None
    paired: PairedTest | None = None
    plotted: bool = True  # False: printed for parity with an official scorer, not a quality measure


def column(key: str) -> Callable[[Samples], list[float]]:
    """A per-item column of the samples, as floats (a PairedTest's `columns`)."""
    return lambda samples: [float(s[key]) for s in samples]


@dataclass(frozen=True)
class Scope:
    """Where a run's items come from, as pages and comparisons show and match it: language, split, and the split
    key two runs must share to be compared."""

    lang: str
    split: str
    split_key: str


@dataclass(frozen=True)
class Section:
    """A task's own part of a page: the jinja source of its template (`template()`, read when a page is made)
    and the data it shows (`data(run, thumbnails)` for a run page, `data(runs, thumbnails)` for a comparison).
    The template reads its data as `section`; it may import the macros its package ships as
    `{% import "PACKAGE:FILE" as name %}` (templates/FILE of PACKAGE), and its CSS is `styles()`, put in the page's
    stylesheet."""

    template: Callable[[], str]
    data: Callable[..., Any]
    helpers: Callable[[], dict[str, Any]] = dict  # functions the template calls, by name
    styles: Callable[[], str] = str  # the CSS of its classes (e.g. `template_of(package, "NAME.css")`)


def template_of(package: str, name: str) -> Callable[[], str]:
    """A Section's `template` (or `styles`): the text shipped as `package`'s templates/`name`, read when asked."""
    def read() -> str:
        from importlib import resources

        return resources.files(package).joinpath("templates", name).read_text(encoding="utf-8")

    return read


def baseline_label(value: float) -> str:
    """How a plot marks what a uniformly random system scores: `random 0.2`."""
    return f"random {value:.4f}".rstrip("0")


@dataclass(frozen=True)
class ExportInfo:
    """How a task's runs are named where researchers keep results: the Hub's task type and data set (model-index),
    and the data set's config of a run (`config(run)`; default: the task's name)."""

    hub_task_type: str = "text-classification"
    dataset_type: str | None = None  # default: the task's name
    dataset_name: Callable[[Any], str] | None = None  # default: the task's name
    config: Callable[[Any], str] | None = None


@dataclass(frozen=True)
class TaskCommand:
    """A family's part of a common command (`senso fit`, `senso data overlap`): the function that does it for a
    task (`run`), and the family's tasks it does it for (`tasks`; None: all)."""

    run: Callable[..., Any]
    tasks: tuple[str, ...] | None = None

    def serves(self, task: Any) -> bool:
        return serves(self.tasks, task)


def serves(tasks: tuple[str, ...] | None, task: Any) -> bool:
    """Whether `task` is among `tasks` (None: every task of the family)."""
    return tasks is None or task.name in tasks


def score_flag(default: Any, flag: str, help: str) -> Any:
    """A field of a `FileScoring.flags` dataclass: a `senso score` flag of the family's own, with its one line of
    help (its name and type are the field's)."""
    return field(default=default, metadata={"flag": flag, "help": help})


@dataclass(frozen=True)
class FileScoring:
    """How `senso score TASK ...` scores a family's files of a system's answers (a submission, a harness's logged
    answers) as a run:

    - `flags`: its own `senso score` flags, a dataclass of `score_flag` fields (`--gold`, `--lmeval-samples`),
      given to `options` and `to_json` as an object of that class;
    - `needs`: the flags a file needs to be scored so ("FILE" is the command's positional file), and `missing`,
      the message when one is left out (`{task}`: the task's name);
    - `noun`: what it scores, as a message names it ("submission"); `help`, a line of the command's help;
    - `file_help`: the positional FILE's help, when it reads one ("": it reads none);
    - `tasks`: the tasks of the family it scores (None: all);
    - `options(task, file, flags)`: the run's options (its system, the system's options ...);
    - `to_json(result, file, flags)`: what `--json` prints (None: `--json` is refused);
    - `page`: after the run's tables, its report page and its place beside published results are printed."""

    flags: type
    needs: tuple[str, ...]
    missing: str
    noun: str
    help: str
    options: Callable[..., dict[str, Any]]
    file_help: str = ""
    tasks: tuple[str, ...] | None = None
    to_json: Callable[..., dict[str, Any]] | None = None
    page: bool = False

    def serves(self, task: Any) -> bool:
        return serves(self.tasks, task)


@dataclass(frozen=True)
class SystemEntry:
    """A registered system that answers a task: its name, one line on what it does, its declared options
    (`core.params.Params`), whether it is the task's default, and its registry row (the same row for every task
    it answers)."""

    name: str
    description: str
    options: Any
    default: bool = False
    row: Any = None


def not_placed(run: Any) -> Placement:
    return Placement(notes=[f"No published results for {run.task}: this run is shown on its own."])


def recorded_scope(run: Any) -> Scope:
    """The language and split a run recorded (results.json, else its options), the split as its own key."""
    from senso.core.records import config_option

    lang = run.results.get("lang") or config_option(run.config, "lang") or "—"
    split = run.results.get("split") or config_option(run.config, "split") or "all"
    return Scope(str(lang), str(split), str(split))


@dataclass(frozen=True)
class DataSet:
    """A benchmark's data set as `senso data stats NAME` and `senso data fetch NAME` handle it."""

    name: str
    stats: Callable[..., None]  # (data_dir, out_dir, console): tables printed, figures written
    fetch: Callable[..., None]  # (data_dir, api_url, force, console, err_console)


@dataclass(frozen=True, eq=False)
class Family:
    """What a benchmark family provides once, for all its tasks:

    - `name` (recorded in every run), `title` (how a message names it: "AdMIRe");
    - `options`: its own run options (a dataclass of `core.options.option` fields, with `family=name`), and
      `reads`, the common options its tasks read (`core.options.OFFERED`: `split`, `lang`, `gold`);
    - `flags()`: its systems' options that have a `senso run` flag of their own (each with `.flag`, `.name`,
      `.kind`, `.help`, `.type_name`), shown in the help panel `flags_panel`;
    - `commands(cli)`: registers its own commands on the command line (`cli.app`, `cli.out`, `cli.console`);
      `run_refuses`: flags of those commands that `senso run` refuses, with the message saying why;
    - `check_name(name)`: its own error for a name of its form that is none of its tasks (`admire-c`);
    - `catalog()`, `systems_help()`: its lines in `senso systems` and `senso run --help`; `part_users(name)`:
      the systems that use a part its catalog lists (`senso systems PART`), each as a short label;
    - `data_sets`: what `senso data stats|fetch NAME` handles;
    - `summary_note(evaluations)`: a line printed under a summary table that holds its runs, evaluated so (what
      to compare them with; "" for none);
    - how its runs are read: `scope(run)` (language, split and the split key two runs must share), `gold_keys`
      (the sample fields holding an item's gold: two compared runs must agree on them), `calibration_of` (what
      its calibration measures, as a comparison names it), `distributions(run, samples)` (each item's
      probability distribution and gold index, for paired calibration; None: no calibration), `evaluation(run)`
      (how a run was evaluated, in a few words), `summary_name(run)` (the task as a summary row names it),
      `header(run)` (its rows of a run page's header: a protocol, a track);
    - `placement(run)`, `best_published(run)`: where a run stands beside published results, and the figure a
      summary shows beside it;
    - `scoring`: how `senso score` scores files of its systems' answers, with its own flags (`FileScoring`);
    - `fit`: `senso fit` of its tasks that have a trainable system (`run(options, path) -> (notes, lines)`);
      `overlap`: `senso data overlap` of its tasks with training data (`run(task, train, eval, lang, data_dir)`);
    - `listed`: where the table of tasks (`senso.catalog`) lists it among the installed families: smaller first,
      equal ones by their entry point's name (senso's own: 1, 2, ...; a package's, by default, after them).
    """

    name: str
    title: str = ""
    options: type | None = None
    reads: tuple[str, ...] = ()
    flags: Callable[[], Sequence[Any]] = lambda: ()
    flags_panel: str = ""
    commands: Callable[[Any], None] | None = None
    run_refuses: dict[str, str] = field(default_factory=dict)
    check_name: Callable[[str], None] = lambda name: None
    catalog: Callable[[], list[tuple[str, str, str]]] = lambda: []
    part_users: Callable[[str], list[str]] = lambda name: []
    systems_help: Callable[[], str] = lambda: ""
    data_sets: tuple[DataSet, ...] = ()
    summary_note: Callable[[Sequence[str]], str] = lambda evaluations: ""
    scope: Callable[[Any], Scope] = recorded_scope
    gold_keys: tuple[str, ...] = ("gold",)
    calibration_of: str = "the runs' probabilities"
    distributions: Callable[[Any, Samples], Any] | None = None
    evaluation: Callable[[Any], str] = lambda run: "—"
    summary_name: Callable[[Any], str] = lambda run: str(run.task)
    header: Callable[[Any], list[tuple[str, str]]] = lambda run: []
    placement: Callable[[Any], Placement] = not_placed
    best_published: Callable[[Any], tuple[str | None, str | None]] = lambda run: (None, None)
    scoring: FileScoring | None = None
    fit: TaskCommand | None = None
    overlap: TaskCommand | None = None
    listed: int = 100

    @property
    def called(self) -> str:
        return self.title or self.name


@dataclass(frozen=True)
class Task:
    """One task of a `Family`: what differs from one task to the next (its name, metrics, data and scoring).
    `kind` is the shape of its records (runs of tasks of one kind are read alike); `file_kind`, for a kind of
    task file, is what such a file says in its `kind` key (`kind = "ranking"`). `systems()` lists the
    registered systems that answer it. The hooks:

    - `choices`: the values of the common options it reads that it allows (its languages, its splits: checked
      before `check`; a value of several joined by + has each part checked);
    - `check(options, system_object)`: every option, before anything slow (once per run);
    - `prepare(options, context) -> Plan`: the evaluation loop's protocol (`core.evaluation`);
    - `show(result, by_group=False)`: the terminal tables `senso run` prints;
    - `item_key`, `group_keys`: how a run folder's items are matched across runs and grouped in a comparison;
    - `page`, `comparison`: its sections of a run page and of a comparison page (None: the common parts only);
    - `compare(task, a, b, gold, n_resamples, seed) -> core.comparison.Comparison`: the family's own paired
      comparison (None: the comparison of two run folders on the task's metrics).
    """

    name: str
    family: Family
    description: str
    kind: str
    check: Callable[..., None]
    prepare: Callable[..., Any]
    show: Callable[..., None]
    metrics: tuple[Metric, ...] = ()
    choices: dict[str, tuple[str, ...]] = field(default_factory=dict)  # offered option -> the values it allows
    item_key: str | tuple[str, ...] = "id"  # the sample field(s) naming an item across runs
    group_keys: tuple[str, ...] = ()  # sample fields whose values group items in a comparison (a domain ...)
    page: Section | None = None
    comparison: Section | None = None
    compare: Callable[..., Any] | None = None
    file_kind: str | None = None
    export: ExportInfo = ExportInfo()
    systems: Callable[[], Sequence[SystemEntry]] = lambda: ()
    called: str = ""  # how a sentence names it (default: its name)
    file_default: bool = False  # a kind of task file: files that say no `kind` are of this kind (one kind at most)

    def metric(self, name: str) -> Metric | None:
        return next((m for m in self.metrics if m.name == name), None)

    def folder_name(self, task: str) -> str:
        """Its run's folder in a parent folder: its name, or a task file's stem."""
        return Path(task).stem if self.file_kind is not None else task
