"""A word-in-context run: `check` (every option, the task file, the split's pairs read once), `prepare` (the
system built) and the plan's `predict` (the system fitted on the training rows, then P(same) or relatedness per
pair) and `score`.

A system that learns (it has `fit`) is fitted on the task's `train` split and scored on another split; scored on
the train split itself, or on a task without one (DWUG), it is evaluated leave-lemma-out: the lemmas dealt into
FOLDS folds, each fold predicted by a copy fitted on the others."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from senso.core.errors import SensoError
from senso.core.taskfile import TaskFileError
from senso.core.evaluation import Scored
from senso.core.user_system import describe_user_system, user_system_name
from senso.core.options import RunOptions
from senso.core.system_row import refuse_unread_flags, unknown_system
from senso.wic.items import WicPair
from senso.wic.scoring import WicSample, by_langs, calibration, metrics_for
from senso.wic.submission import SUBMITTED, answer_files
from senso.wic.systems.context import WicContext
from senso.wic.systems.row import WicSystem
from senso.wic.taskfile import PairsTask, pairs_task

FAMILY = "wic"
FOLDS = 5  # leave-lemma-out folds of a fitted system scored on its own training data


def registered() -> dict[str, WicSystem]:
    """Every registered system, the submission reader last."""
    from senso.wic.systems.registry import WIC_SYSTEMS

    return {**WIC_SYSTEMS, SUBMITTED.name: SUBMITTED}


def default_split(task: PairsTask) -> str:
    """The split a run scores when --split is left out: dev where there is one, else the first that is not the
    training split."""
    if "dev" in task.splits:
        return "dev"
    return next((s for s in task.splits if s != task.train), next(iter(task.splits)))


@dataclass
class Checked:
    task: PairsTask
    split: str
    pairs: list[WicPair]
    train: list[WicPair] | None  # the training rows (None: leave-lemma-out on `pairs`)
    row: WicSystem | None
    values: dict[str, Any]
    total: int  # the split's pairs before --limit


def _system_row(options: RunOptions, task: PairsTask) -> WicSystem:
    from senso.wic.systems.registry import DEFAULT_SYSTEM

    systems = registered()
    name = options.system or task.default_system or DEFAULT_SYSTEM
    if name not in systems:
        error = unknown_system("word-in-context", name, systems)
        if options.system is None:  # the task file's default_system
            raise TaskFileError(task.source, "default_system", str(error))
        raise error
    refuse_unread_flags(options, systems[name].flags, f"--system {name}")
    return systems[name]


def _check_user_system(system: Any, task: PairsTask) -> None:
    needed = "judge" if task.binary else "relate"
    if not callable(getattr(system, needed, None)):
        raise SensoError(f"system={type(system).__name__}(...) has no {needed}(pairs) method: a word-in-context system "
                         "gives judge(pairs) -> P(same meaning) per pair and relate(pairs) -> relatedness per pair")


def check(options: RunOptions, system_object: Any = None) -> Checked:
    """Every option of a word-in-context run, checked before anything slow, and the split's pairs read, once."""
    from senso.wic.data import read_split

    options.validate()
    task = pairs_task(options.task)
    options.check_family(FAMILY, task.name)
    split = options.split or default_split(task)
    if split not in task.splits:
        raise SensoError(f"{task.name} has no split {split!r} (--split); choose from {', '.join(task.splits)}")
    if system_object is not None:
        if options.system is not None:
            raise SensoError("--system names a registered system, but a system object was given too: give one")
        _check_user_system(system_object, task)
        row, values = None, {}
    else:
        row = _system_row(options, task)
        values = row.params.resolve(options.system_options, row.name)
    if options.gold is not None:
        from senso.wic.gold import gold_split

        every = gold_split(task, split, options.data_dir, options.gold)
    else:
        every = read_split(task, split, options.data_dir)
    pairs = every[:options.limit] if options.limit else every
    train = read_split(task, task.train, options.data_dir) if task.train and task.train != split else None
    return Checked(task, split, pairs, train, row, values, len(every))


def prepare(options: RunOptions, context: Any) -> "WicPlan":
    """The run of `options.task` with a registered system or the researcher's `context.system`: pairs read, the
    system built, nothing predicted."""
    checked = context.checked or check(options, context.system)
    if context.system is not None:  # a researcher's object: refitted on each fold
        system, name, fresh = context.system, user_system_name(context.system), lambda: context.system
    else:
        built = WicContext(cache=context.cache, models=context.models, options=options, task=checked.task)
        fresh = lambda: checked.row.make(checked.values, built)
        system, name = fresh(), checked.row.name
    files = list(dict.fromkeys(Path(p.source.rpartition(", ")[0]) for p in checked.pairs))  # each file read
    warnings = []
    if len(checked.pairs) < checked.total:
        warnings.append(f"PARTIAL: the first {len(checked.pairs)} of the {checked.total} pairs of {checked.split} "
                        "(--limit); not comparable to published full-set results")
    config = {"task_file": str(checked.task.source), "split": checked.split,
              "system_options": row_json(checked.row, checked.values)}
    return WicPlan(task=checked.task.name, system=name, items=checked.pairs, data_files=files, config=config,
                   warnings=warnings, checked=checked, system_object=system, user=context.system is not None,
                   fresh=fresh, seed=options.seed)


def row_json(row: WicSystem | None, values: dict[str, Any]) -> dict[str, Any]:
    return row.params.to_json(values) if row is not None else {}


def lemma_folds(pairs: list[WicPair], folds: int = FOLDS) -> list[list[int]]:
    """The pairs' indices dealt into folds by lemma (lemmas in name order, dealt round-robin): no lemma in two."""
    lemmas = sorted({p.lemma for p in pairs})
    fold_of = {lemma: k % min(folds, len(lemmas)) for k, lemma in enumerate(lemmas)}
    dealt: list[list[int]] = [[] for _ in range(min(folds, len(lemmas)))]
    for index, pair in enumerate(pairs):
        dealt[fold_of[pair.lemma]].append(index)
    return dealt


@dataclass
class Answers:
    """The system's answers, in the pairs' order: P(same) (binary tasks) or relatedness (graded tasks), and how
    the system was evaluated."""

    p_same: list[float] | None
    relatedness: list[float] | None
    evaluation: str
    seen: list[bool] | None = None  # a fitted system: whether each pair's lemma was among its training rows
    folds: list[dict[str, Any]] | None = None  # leave-lemma-out: each fold's fitted copy as it describes itself


@dataclass
class WicPlan:
    task: str
    system: str
    items: list[WicPair]
    data_files: list[Path]
    config: dict[str, Any]
    warnings: list[str]
    checked: Checked
    system_object: Any
    user: bool
    fresh: Any  # () -> an unfitted system like `system_object` (one per leave-lemma-out fold)
    seed: int = 0
    family: str = FAMILY
    kind: str = FAMILY

    def describe_system(self, system: Any = None) -> dict[str, Any]:
        """What the run's system (or a fold's fitted copy of it) says of itself."""
        system = self.system_object if system is None else system
        if self.user:
            return describe_user_system(system)
        described = system.describe() if callable(getattr(system, "describe", None)) else {}
        return {"name": self.system, **described}

    def _answer(self, system: Any, pairs: list[WicPair]) -> tuple[list[float] | None, list[float] | None]:
        from senso.wic.answers import checked_answers

        binary = self.checked.task.binary
        values = system.judge(pairs) if binary else system.relate(pairs)
        values = checked_answers(values, pairs, "judge" if binary else "relate", probability=binary)
        return (values, None) if binary else (None, values)

    def predict(self) -> Answers:
        system, pairs, train = self.system_object, self.items, self.checked.train
        if not callable(getattr(system, "fit", None)):
            return Answers(*self._answer(system, pairs), "no training (the system learns nothing)")
        if train is not None:
            system.fit(train)
            if self.checked.row is not None and not self.checked.row.learns_lemmas:
                return Answers(*self._answer(system, pairs), f"fitted on {self.checked.task.train} (what it keeps "
                               "of it is never of the scored pair's lemma)")
            lemmas = {p.lemma for p in train}
            return Answers(*self._answer(system, pairs), f"fitted on {self.checked.task.train}",
                           seen=[p.lemma in lemmas for p in pairs])
        return self._cross_validated(system, pairs)

    def _cross_validated(self, system: Any, pairs: list[WicPair]) -> Answers:
        folds = lemma_folds(pairs)
        p_same: list[float | None] = [None] * len(pairs)
        related: list[float | None] = [None] * len(pairs)
        described = []
        for fold in folds:
            held = set(fold)
            copy = self.fresh().fit([p for k, p in enumerate(pairs) if k not in held])
            p, r = self._answer(copy, [pairs[k] for k in fold])
            for j, k in enumerate(fold):
                p_same[k], related[k] = (p[j] if p else None), (r[j] if r else None)
            described.append(self.describe_system(copy))
        binary = self.checked.task.binary
        return Answers(p_same if binary else None, None if binary else related,
                       f"leave-lemma-out ({len(folds)} folds of lemmas)", folds=described)

    def _samples(self, answers: Answers) -> list[WicSample]:
        decide = getattr(self.system_object, "decide", None)
        samples = []
        for k, pair in enumerate(self.items):
            p = answers.p_same[k] if answers.p_same is not None else None
            decision = None if p is None else int(bool(decide(p)) if callable(decide) else p >= 0.5)
            samples.append(WicSample(
                pair.pair_id, pair.lemma, pair.langs, pair.first.text, pair.second.text,
                (pair.first.start, pair.first.end), (pair.second.start, pair.second.end), label=pair.label,
                score=pair.score, p_same=p, decision=decision,
                relatedness=answers.relatedness[k] if answers.relatedness is not None else None,
                seen=answers.seen[k] if answers.seen is not None else None))
        return samples

    def score(self, answers: Answers) -> Scored:
        from senso.core.overlap import overlap_record

        task, names = self.checked.task, self.checked.task.metric_names
        samples = self._samples(answers)
        record: dict[str, Any] = {"split": self.checked.split, "lang": task.language, "evaluation": answers.evaluation,
                                  "wic_task": {"name": task.name, "gold": task.gold, "scale": task.scale,
                                               "same": task.same, "different": task.different,
                                               "published": task.published, "train": task.train}}
        if answers.seen is not None:  # a fitted system: the pairs whose lemma it never saw are the headline
            scored = any(s.label is not None or s.score is not None for s in samples)
            metrics_of = ((lambda indices: metrics_for([samples[i] for i in indices], names, self.seed))
                          if scored and any(answers.seen) else None)
            record.update(overlap_record([{"lemma": seen} for seen in answers.seen], ["lemma"],
                                         f"{task.name} {task.train}", {"lemma": "its lemma"}, metrics_of))
        if answers.folds is not None:
            record["fold_models"] = answers.folds
        calibrated = calibration(samples, self.seed) if task.binary else None
        if calibrated is not None:
            record["calibration"] = calibrated
        decisions = [s.decision for s in samples] if task.binary else [s.relatedness for s in samples]
        return Scored(samples=samples, metrics=metrics_for(samples, names, self.seed),
                      metrics_by_group=by_langs(samples, names, self.seed), record=record,
                      files=answer_files(task, self.items, decisions))
