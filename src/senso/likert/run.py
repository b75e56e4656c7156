"""A Likert task (built-in or a task file) as the evaluation loop runs it (`senso.core.evaluation`):
`check` (every option, before anything slow), `prepare` (data, the system and its typed options) and the
plan's `predict` (the system's answers) and `score` (typed samples, metrics overall and per domain)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from senso.core.errors import SensoError
from senso.core.evaluation import Partial, RunContext, Scored
from senso.core.options import RunOptions
from senso.backends.load import refuse_model_args_among, resolve_model_args
from senso.core.params import NoOptions
from senso.core.prompting import check_protocol, check_shots
from senso.core.system_row import refuse_name_and_object, refuse_unread_flags
from senso.core.user_system import user_system_name
from senso.likert.items import LikertItem
from senso.core.overlap import overlap_record
from senso.likert.overlap import OVERLAP_FIELDS, leave_one_group_out_overlaps, overlap_words
from senso.likert.scoring import likert_calibration, likert_metrics, likert_metrics_by_domain
from senso.likert.systems.context import LikertRunContext, SystemOutput
from senso.likert.systems.lmeval import SYSTEM_NAME as LMEVAL_SYSTEM, logged_limit
from senso.likert.systems.registry import LIKERT_FLAGS, LikertSystem, get_system
from senso.likert.systems.user import user_runner
from senso.likert.task import LikertPrediction, LikertTask, get_task


@dataclass
class LikertSample:
    """One item's line of samples.jsonl: the item, its gold (label and raw value) and the system's answer;
    `extra` (prompt hash, exemplars, fold, ...) is written beside the fields, as the runs always have."""

    id: str
    domain: str
    lemma: str
    gold: int
    gold_mean: float
    prediction: int | None
    expected: float | None
    logprobs: list[float] | None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "domain": self.domain, "lemma": self.lemma, "gold": self.gold,
                "gold_mean": self.gold_mean, "prediction": self.prediction, "expected": self.expected,
                "logprobs": self.logprobs, **self.extra}


def _served(system: LikertSystem, options: RunOptions) -> bool:
    """Whether the system reads a model behind an OpenAI-compatible server (its --model is openai's)."""
    from senso.backends.specs import parse_spec

    return "model" in system.flags and parse_spec(options.model, "lm", default_backend=options.backend).backend == "openai"


def _check_model(options: RunOptions, system: LikertSystem) -> str:
    from senso.backends.default_model import check_default_model
    from senso.backends.specs import DEFAULT_BACKEND, check_local_spec, parse_spec

    check_local_spec(options.model, "--model")
    spec = parse_spec(options.model, "lm", default_backend=options.backend)
    if spec.backend == DEFAULT_BACKEND:
        check_default_model()
    if system.backends and spec.backend not in system.backends:
        raise SensoError(f"--system {system.name} needs a chat model behind a server: "
                         f"--model openai:NAME --base-url URL (got {spec})")
    if options.base_url and spec.backend != "openai":
        raise SensoError(f"--base-url is for the openai backend, but the model is {spec}: give --model "
                         "openai:NAME, or leave --base-url out")
    return f" with {'an openai' if spec.backend == 'openai' else 'a local'} model"


def check_options(options: RunOptions, task: LikertTask, system: LikertSystem,
                  load: Callable[[], Loaded] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The Likert checks, for built-in tasks and task files alike, before any model loads and before a run
    folder is written: options no Likert task reads, model and prompt flags the system's registry row does
    not declare, the protocol and its shots, the model spec, the system's options and the served model's
    settings (`--model-args`, when --model is served by openai). Returns the typed values of both; `load`
    gives the task's items (read once by the caller)."""
    options.check_family("likert", task.name)
    check_shots(options.shots)
    refuse_unread_flags(options, system.flags, f"--system {system.name}", LIKERT_FLAGS)
    described = f"--system {system.name}"
    if "protocol" in system.flags:  # an unknown protocol names the task's protocols
        check_protocol(options.protocol, options.shots, task.protocols, task.name)
    if "model" in system.flags:
        described += _check_model(options, system)
    refuse_model_args_among(options.system_options)
    params = system.params.resolve(options.system_options, described)
    model_args = resolve_model_args(options.model_args, _served(system, options), described)
    if system.check is not None:
        system.check(task, load or (lambda: _load_items(options, task)), system.options.from_values(params))
    return params, model_args


Loaded = tuple[Path, list[LikertItem], list[LikertItem]]  # the data file, the items scored, the whole pool


@dataclass
class Checked:
    """What a Likert run's checks found, so that `prepare` does not check or read the data again: the task, the
    registered system (None: the researcher's object), its options' typed values and the loaded items."""

    task: LikertTask
    system: LikertSystem | None
    params: dict[str, Any]
    model_args: dict[str, Any]
    loaded: Loaded


def _load_items(options: RunOptions, task: LikertTask) -> Loaded:
    """The task's data file, the items scored (the first --limit) and the whole pool."""
    data_path = task.locate_data(options.data_dir)
    pool = task.load_items(data_path)
    return data_path, (pool[: options.limit] if options.limit else pool), pool


def check(options: RunOptions, system_object: Any = None) -> Checked:
    """Every option of a Likert run, checked before anything slow, and its items read, once."""
    import functools

    options.validate()
    task = get_task(options.task)
    load = functools.lru_cache(maxsize=1)(lambda: _load_items(options, task))
    if system_object is None:
        system = get_system(options.system)
        params, model_args = check_options(options, task, system, load)
        return Checked(task, system, params, model_args, load())
    refuse_name_and_object(options)
    options.check_family("likert", task.name)
    check_shots(options.shots)
    return Checked(task, None, {}, {}, load())


def prepare(options: RunOptions, context: RunContext) -> "LikertPlan":
    """The run of `options.task` (abricot-abs, abricot-inc or a task file) with the registered system
    `options.system` or the researcher's `context.system`: data loaded, options typed, nothing predicted."""
    checked = context.checked or check(options, context.system)
    task, params = checked.task, checked.params
    if context.system is not None:
        runner, name = user_runner(context.system), user_system_name(context.system)
    else:
        runner, name = checked.system.run, checked.system.name
    data_path, items, pool = checked.loaded
    typed = checked.system.options.from_values(params) if checked.system is not None else NoOptions()
    why_partial = f"--limit {options.limit}"
    if context.system is None and name == LMEVAL_SYSTEM and not options.limit:
        logged = logged_limit(task, pool, typed)
        items, why_partial = (pool[:logged], f"lm-eval's log of a `--limit {logged}` run") if logged else (items, "")
    run_context = LikertRunContext(options=options, task=task, items=items, pool=pool, cache=context.cache,
                                   models=context.models, params=typed, settings=checked.model_args)
    warnings = []
    if len(items) < len(pool):
        warnings.append(Partial(f"PARTIAL: the first {len(items)} of the {len(pool)} items ({why_partial}); "
                                "not comparable to published full-set results"))
    return LikertPlan(task=task.name, system=name, items=items, data_files=[data_path],
                      config={"task_file": str(task.source), "system_options": params,
                              "model_args": checked.model_args}, warnings=warnings,
                      likert_task=task, runner=runner, context=run_context)


@dataclass
class LikertPlan:
    task: str
    system: str
    items: list[LikertItem]
    data_files: list[Path]
    config: dict[str, Any]
    warnings: list[str]
    likert_task: LikertTask
    runner: Callable[[LikertRunContext], SystemOutput]
    context: LikertRunContext
    family: str = "likert"
    kind: str = "likert"
    _described: dict[str, Any] = field(default_factory=dict)
    _info: dict[str, Any] = field(default_factory=dict)

    def describe_system(self) -> dict[str, Any]:
        return self._described

    def predict(self) -> list[LikertPrediction]:
        predictions, self._described, self._info = self.runner(self.context)
        if len(predictions) != len(self.items):
            raise SensoError(f"system {self.system} returned {len(predictions)} predictions for {len(self.items)} items")
        return predictions

    def _overlap_record(self, samples: list[LikertSample], scored: list[int],
                        predictions: list[LikertPrediction]) -> dict[str, Any]:
        """A supervised (leave-one-group-out) run's `overlap` with each item's training fold, each sample's
        `overlap`, and `unseen`: the metrics on the scored items that share nothing, each with its CI, and `n`."""
        overlaps = leave_one_group_out_overlaps(self.items, self.context.pool)
        for sample, overlap in zip(samples, overlaps):
            sample.extra["overlap"] = overlap
        task, noun = self.likert_task, self.likert_task.group_noun

        def metrics_of(unseen: list[int]) -> dict[str, Any]:
            return likert_metrics([self.items[i] for i in unseen], [predictions[i] for i in unseen], task,
                                  seed=self.context.options.seed)

        source = f"the other {noun}s of {self.task} (leave-one-{noun}-out)"
        return overlap_record(overlaps, OVERLAP_FIELDS, source, overlap_words(noun), metrics_of, among=scored)

    def score(self, predictions: list[LikertPrediction]) -> Scored:
        task, options, info = self.likert_task, self.context.options, dict(self._info)
        # unparseable generated answers (label None) have no prediction to score: metrics cover the rest
        scored = [i for i, pred in enumerate(predictions) if pred.label is not None]
        warnings = []
        if len(scored) < len(self.items):
            warnings.append(f"{len(self.items) - len(scored)} of {len(self.items)} answers were unparseable and are "
                            f"left out of the metrics (n_scored = {len(scored)}); see unparseable_ids")
            info["n_scored"] = len(scored)
        warnings += info.pop("warnings", [])
        items = [self.items[i] for i in scored]
        answers = [predictions[i] for i in scored]
        samples = [LikertSample(item.id, item.domain, item.group, task.gold_label(item.gold), item.gold, pred.label,
                                pred.expected, pred.logprobs, dict(pred.extra))
                   for item, pred in zip(self.items, predictions)]
        record = {"likert_task": task.describe(), "dtype": options.dtype, "device": options.device,
                  "chat_template": options.chat_template, **info,
                  "calibration": likert_calibration(items, answers, task, seed=options.seed)}
        if info.get("supervised"):
            record.update(self._overlap_record(samples, scored, predictions))
        return Scored(samples=samples, metrics=likert_metrics(items, answers, task, seed=options.seed),
                      metrics_by_group=likert_metrics_by_domain(items, answers, task, seed=options.seed),
                      record=record, warnings=warnings)
