"""Run a Likert task (built-in or a task file) end to end: data -> prompts -> system -> metrics -> run folder."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Sequence

from senso.core.errors import SensoError
from senso.core.cache import ResponseCache
from senso.core.options import RunOptions, check_keys
from senso.core.records import RunRecord, RunWriter, default_run_dir, run_config, text_hash
from senso.core.terminal import labelled, progress_bar, terminal
from senso.likert.systems.context import LikertRunContext
from senso.likert.systems.registry import MODEL_FLAGS, LikertSystem, get_system
from senso.likert.tables import print_summary, print_travel
from senso.likert.task import LikertPrediction, LikertPrompt, LikertTask, get_task
from senso.likert.taskfile import FEW_SHOT
from senso.likert.scoring import likert_metrics, likert_metrics_by_domain

# AdMIRe options (RunOptions field: flag) that no Likert task reads: giving one is an error, not a silent drop.
# (--allow-partial is refused for every run by RunOptions.validate.)
ADMIRE_ONLY_OPTIONS = {"lang": "--lang", "split": "--split", "gold": "--gold", "caption_lang": "--caption-lang"}

console = terminal(stderr=True)


def _predict_prompts(system, prompts: Sequence[LikertPrompt], description: str) -> list[LikertPrediction]:
    """Predictions for the prompts with a progress bar, each recording the hash of its rendered prompt."""
    with progress_bar(console) as progress:
        bar = progress.add_task(description, total=len(prompts))
        predictions = system.predict_prompts(prompts, progress=lambda n: progress.advance(bar, n))
    for prompt, pred in zip(prompts, predictions):
        pred.extra["prompt_hash"] = text_hash(prompt.context)
    return predictions


def load_model(options: RunOptions, cache: ResponseCache):
    """The scored LM named by --model/--backend (default: the built-in Gemma-3-270M)."""
    from senso.backends.load import load_model as load_backend_model
    from senso.backends.specs import parse_spec

    spec = parse_spec(options.model, "lm", default_backend=options.backend)
    return load_backend_model(spec, "lm", base_url=options.base_url, dtype=options.dtype, device=options.device,
                              batch_size=options.batch_size, cache=cache, chat_template=options.chat_template,
                              settings=options.system_options if spec.backend == "openai" else None)


def check_options(options: RunOptions, task: LikertTask, system: LikertSystem) -> None:
    """The Likert checks, for built-in tasks and task files alike, before any model loads and before a run
    folder is written: options no Likert task reads, model and prompt flags the system's registry row does
    not declare, the protocol and its shots, the model spec, and the --set keys (the row's own, plus the
    openai backend's settings when the system's --model is served by openai)."""
    from senso.backends.openai import SETTINGS as OPENAI_SETTINGS
    from senso.backends.default_model import check_default_model
    from senso.backends.specs import DEFAULT_BACKEND, check_local_spec, parse_spec

    for field, flag in ADMIRE_ONLY_OPTIONS.items():
        if getattr(options, field) not in (None, False):
            raise SensoError(f"{flag} is an AdMIRe option; {task.name} does not use it (a Likert task reads one "
                             "data file, with no languages or splits): leave it out")
    for field, flag in MODEL_FLAGS.items():
        if getattr(options, field) not in (None, False) and field not in system.flags:
            reads = ", ".join(MODEL_FLAGS[f] for f in system.flags) or "none of them"
            raise SensoError(f"{flag} is not used by --system {system.name} (it reads {reads}): leave it out")
    valid_keys = list(system.set_keys)
    described = f"--system {system.name}"
    if "protocol" in system.flags:
        kind, own = task.protocol(options.protocol)  # an unknown protocol names the task's protocols
        if options.shots is not None and kind != FEW_SHOT:
            raise SensoError(f"--shots {options.shots} sets the exemplars of the few-shot protocol, but the protocol "
                             f"of this {task.name} run is {own} (zero-shot): add --protocol {task.protocols[FEW_SHOT]}")
    if "model" in system.flags:
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
        if spec.backend == "openai":
            valid_keys += OPENAI_SETTINGS
        described += f" with {'an openai' if spec.backend == 'openai' else 'a local'} model"
    check_keys(options.system_options, valid_keys, described)


def run_likert(options: RunOptions) -> Path:
    """Run `options.task` (abricot-abs, abricot-inc or a path to a task file); returns the run folder."""
    started = time.perf_counter()
    options.validate()
    task = get_task(options.task)
    system = get_system(options.system)
    check_options(options, task, system)
    data_path = task.locate_data(options.data_dir)
    pool = task.load_items(data_path)
    items = pool[: options.limit] if options.limit else pool
    cache = ResponseCache(enabled=options.use_cache)
    cache.check()
    out_dir = Path(options.out) if options.out else default_run_dir(task.name, system.name)
    with RunWriter(out_dir, cache=cache) as writer:
        config = run_config(options, system.name, [data_path], task_file=str(task.source))
        writer.write_config(config)
        # load_model is looked up here, at call time, so tests (and callers) can replace it
        context = LikertRunContext(options=options, task=task, items=items, pool=pool, cache=cache,
                                   load_model=load_model, predict_prompts=_predict_prompts)
        _predict_and_record(writer, context, system, config, started)
    return writer.dir


def _predict_and_record(writer: RunWriter, context: LikertRunContext, system: LikertSystem, config: dict,
                        started: float) -> None:
    """Run the system on the context's items, then write samples and results and print the summary."""
    options, task, items, pool, cache = context.options, context.task, context.items, context.pool, context.cache
    t0 = time.perf_counter()
    predictions, system_info, info = system.run(context)
    predict_seconds = time.perf_counter() - t0

    # unparseable generated answers (label None) have no prediction to score: metrics cover the rest
    scored = [i for i, pred in enumerate(predictions) if pred.label is not None]
    warnings = list(writer.warnings)
    if len(items) < len(pool):
        warnings.append(f"PARTIAL: the first {len(items)} of the {len(pool)} items (--limit {options.limit}); "
                        "not comparable to published full-set results")
    if len(scored) < len(items):
        warnings.append(f"{len(items) - len(scored)} of {len(items)} answers were unparseable and are left out "
                        f"of the metrics (n_scored = {len(scored)}); see unparseable_ids")
        info["n_scored"] = len(scored)
    scored_items = [items[i] for i in scored]
    scored_predictions = [predictions[i] for i in scored]
    metrics = likert_metrics(scored_items, scored_predictions, task, seed=options.seed)
    by_domain = likert_metrics_by_domain(scored_items, scored_predictions, task, seed=options.seed)
    writer.write_samples(
        {
            "id": item.id, "domain": item.domain, "lemma": item.group,
            "gold": task.gold_label(item.gold), "gold_mean": item.gold,
            "prediction": pred.label, "expected": pred.expected, "logprobs": pred.logprobs, **pred.extra,
        }
        for item, pred in zip(items, predictions)
    )
    record = RunRecord(
        task=task.name, system=system.name, n=len(items), metrics=metrics, metrics_by_group=by_domain,
        config=config, model=system_info, warnings=warnings,
        timings={"predict_seconds": round(predict_seconds, 3), "total_seconds": round(time.perf_counter() - started, 3),
                 "items_per_second": round(len(items) / predict_seconds, 3) if predict_seconds else None},
        extra={"family": "likert", "likert_task": task.describe(),
               "limit": options.limit, "seed": options.seed, "batch_size": options.batch_size, "dtype": options.dtype,
               "device": options.device, "chat_template": options.chat_template,
               "cache": {"hits": cache.hits, "misses": cache.misses, "enabled": cache.enabled}, **info},
    )
    warnings += cache.warnings
    writer.write_results(record)
    cache.close()
    for warning in warnings:
        console.print(labelled("WARNING:", "bold red", warning), soft_wrap=True)
    print_summary(task.name, system.name, info, metrics, by_domain, len(items))
    if "generalisation" in info:
        print_travel(info["generalisation"])
