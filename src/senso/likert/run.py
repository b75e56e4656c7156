"""Run a Likert task (built-in or a task file) end to end: data -> prompts -> system -> metrics -> run folder."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Sequence

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from senso.core.errors import SensoError
from senso.core.cache import ResponseCache
from senso.core.options import RunOptions
from senso.core.records import RunRecord, RunWriter, default_run_dir, run_config, text_hash
from senso.likert.systems.context import LikertRunContext
from senso.likert.systems.registry import get_system
from senso.likert.tables import print_summary, print_travel
from senso.likert.task import LikertPrediction, LikertPrompt, get_task
from senso.likert.scoring import likert_metrics, likert_metrics_by_domain

console = Console(stderr=True)


def _progress() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                    console=console, transient=False)


def _predict_prompts(system, prompts: Sequence[LikertPrompt], description: str) -> list[LikertPrediction]:
    """Predictions for the prompts with a progress bar, each recording the hash of its rendered prompt."""
    with _progress() as progress:
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


def run_likert(options: RunOptions) -> Path:
    """Run `options.task` (abricot-abs, abricot-inc or a path to a task file); returns the run folder."""
    started = time.perf_counter()
    task = get_task(options.task)
    system = get_system(options.system)
    task.protocol(options.protocol)  # an unknown protocol fails before anything is read
    data_path = task.locate_data(options.data_dir)
    pool = task.load_items(data_path)
    if options.limit is not None and options.limit < 1:
        raise SensoError(f"--limit must be at least 1, got {options.limit}")
    items = pool[: options.limit] if options.limit else pool
    out_dir = Path(options.out) if options.out else default_run_dir(task.name, system.name)
    writer = RunWriter(out_dir)
    config = run_config(options, system.name, [data_path], task_file=str(task.source))
    writer.write_config(config)
    cache = ResponseCache(enabled=options.use_cache)

    t0 = time.perf_counter()
    # load_model is looked up here, at call time, so tests (and callers) can replace it
    context = LikertRunContext(options=options, task=task, items=items, pool=pool, cache=cache,
                               load_model=load_model, predict_prompts=_predict_prompts)
    predictions, system_info, info = system.run(context)
    predict_seconds = time.perf_counter() - t0

    # unparseable generated answers (label None) have no prediction to score: metrics cover the rest
    scored = [i for i, pred in enumerate(predictions) if pred.label is not None]
    warnings = []
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
    writer.write_results(record)
    print_summary(task.name, system.name, info, metrics, by_domain, len(items))
    if "generalisation" in info:
        print_travel(info["generalisation"])
    return writer.dir
