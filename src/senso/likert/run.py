"""Run an ABRICOT task end to end: data -> prompts -> system -> metrics -> run folder."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from senso.likert.data import AbricotItem, load_abricot, locate_abricot
from senso.core.errors import SensoError
from senso.core.cache import ResponseCache
from senso.core.options import RunOptions, check_keys
from senso.core.records import RunRecord, RunWriter, data_file_entry, default_run_dir, text_hash
from senso.likert.task import LikertPrediction
from senso.likert.task import PROTOCOLS, AbricotTask, build_prompts, get_task, gold_label
from senso.likert.scoring import abricot_metrics, abricot_metrics_by_domain

LM_SYSTEM = "likert-lm"
ABRICOT_SYSTEMS = {
    LM_SYSTEM: "the published protocol: the most likely of the choices 1..5 under a language model (--model, --protocol)",
    "embedding-ridge": "ridge regression on sentence embeddings, evaluated leave-one-lemma-out (supervised)",
    "likert-generate": "a chat model (--model openai:NAME) asked for the digit, its answer parsed: NOT the official "
                       "likelihood protocol; for chat-only APIs without log-probs",
}

# AdMIRe options (field: flag) that no ABRICOT task reads: giving one is an error, not a silent drop.
ADMIRE_ONLY_OPTIONS = {"lang": "--lang", "split": "--split", "gold": "--gold", "caption_lang": "--caption-lang",
                       "allow_partial": "--allow-partial"}
# Model flags (field: flag) each system reads; any other one given is an error.
MODEL_FLAGS = {"model": "--model", "backend": "--backend", "base_url": "--base-url", "embedder": "--embedder",
               "generator": "--generator", "image_model": "--image-model", "protocol": "--protocol",
               "shots": "--shots", "chat_template": "--chat-template"}
SYSTEM_FLAGS = {
    LM_SYSTEM: ("model", "backend", "base_url", "protocol", "shots", "chat_template"),
    "embedding-ridge": ("embedder",),
    "likert-generate": ("model", "backend", "base_url", "protocol", "shots"),
}

console = Console(stderr=True)


def _progress() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                    console=console, transient=False)


def _predict_prompts(system, prompts, description: str) -> list[LikertPrediction]:
    """Predictions for the prompts with a progress bar, each recording the hash of its rendered prompt."""
    with _progress() as progress:
        bar = progress.add_task(description, total=len(prompts))
        predictions = system.predict_prompts(prompts, progress=lambda n: progress.advance(bar, n))
    for prompt, pred in zip(prompts, predictions):
        pred.extra["prompt_hash"] = text_hash(prompt.context)
    return predictions


def load_model(options: RunOptions, cache: ResponseCache):
    """The scored LM named by --model/--backend (default: the built-in Gemma-3-270M)."""
    from senso.backends.specs import load_loglikelihood_model, parse_model_spec

    spec = parse_model_spec(options.model, default_backend=options.backend or "hf")
    backend_options = {}
    if options.base_url:
        backend_options["base_url"] = options.base_url
    if spec.backend == "openai":
        backend_options.update(options.system_options)
    return load_loglikelihood_model(spec, dtype=options.dtype, device=options.device, cache=cache,
                                    chat_template=options.chat_template, **backend_options)


def _run_lm(options: RunOptions, task: AbricotTask, items: list[AbricotItem], pool: list[AbricotItem],
            cache: ResponseCache) -> tuple[list[LikertPrediction], dict[str, Any], dict[str, Any]]:
    from senso.likert.systems.likert_lm import LikertLM

    protocol = options.protocol or "calamita"
    model = load_model(options, cache)
    prompts = build_prompts(items, task, protocol, shots=options.shots, pool=pool)
    system = LikertLM(model, batch_size=options.batch_size)
    predictions = _predict_prompts(system, prompts, f"{task.name} [{protocol}]")
    # A server backend flags choices absent from its top-k list (their value is an upper bound, not a guess).
    for pred, scores in zip(predictions, getattr(model, "last_scores", None) or []):
        pred.extra["bounded_choices"] = [k + 1 for k, flag in enumerate(scores.bounded) if flag]
    info = {
        "protocol": protocol,
        "shots": len(prompts[0].exemplar_ids) if prompts else 0,
        "prompt_template_hash": text_hash(task.template),
        "exemplar_ids": {p.item_id: list(p.exemplar_ids) for p in prompts if p.exemplar_ids},
        "supervised": False,
    }
    counters = {k: getattr(model, k) for k in ("tokens_in_prompts", "tokens_computed") if hasattr(model, k)}
    if counters:
        info["token_counts"] = counters
    return predictions, system.describe(), info


def _run_generate(options: RunOptions, task: AbricotTask, items: list[AbricotItem], pool: list[AbricotItem],
                  cache: ResponseCache) -> tuple[list[LikertPrediction], dict[str, Any], dict[str, Any]]:
    from senso.backends.openai import load_openai_lm
    from senso.likert.systems.likert_generate import NOTE, LikertGenerate

    from senso.backends.specs import parse_model_spec

    spec = parse_model_spec(options.model, default_backend=options.backend or "hf")
    if spec.backend != "openai":
        raise SensoError(f"--system likert-generate needs a chat model behind a server: "
                         f"--model openai:NAME --base-url URL (got {spec})")
    protocol = options.protocol or "calamita"
    model = load_openai_lm(str(spec), options.base_url, cache, settings=options.system_options)
    prompts = build_prompts(items, task, protocol, shots=options.shots, pool=pool)
    system = LikertGenerate(model)
    predictions = _predict_prompts(system, prompts, f"{task.name} [{protocol}, generate]")
    info = {
        "protocol": protocol,
        "official_protocol": False,
        "scoring": NOTE,
        "shots": len(prompts[0].exemplar_ids) if prompts else 0,
        "prompt_template_hash": text_hash(task.template),
        "exemplar_ids": {p.item_id: list(p.exemplar_ids) for p in prompts if p.exemplar_ids},
        "supervised": False,
        "unparseable_ids": [p.item_id for p in predictions if p.label is None],
    }
    return predictions, system.describe(), info


def _run_ridge(options: RunOptions, task: AbricotTask, items: list[AbricotItem], pool: list[AbricotItem],
               cache: ResponseCache) -> tuple[list[LikertPrediction], dict[str, Any], dict[str, Any]]:
    from senso.likert.systems.ridge import EmbeddingRidge

    system = EmbeddingRidge.from_options(options.embedder, options.system_options, cache, seed=options.seed)
    predictions = system.cross_validated_predict(pool, task)
    by_id = {p.item_id: p for p in predictions}
    info = {"protocol": "supervised, leave-one-lemma-out cross-validation", "supervised": True, "cross_validated": True}
    return [by_id[item.id] for item in items], system.describe(), info


def check_options(options: RunOptions) -> str:
    """The ABRICOT-specific checks, before any model loads and before a run folder is written: the system,
    options it does not read, the protocol and its shots, the --set keys. Returns the system's name."""
    from senso.backends.openai import SETTINGS as OPENAI_SETTINGS
    from senso.backends.specs import check_local_spec, parse_model_spec
    from senso.likert.systems.ridge import EmbeddingRidge

    system_name = options.system or LM_SYSTEM
    if system_name not in ABRICOT_SYSTEMS:
        raise SensoError(f"unknown ABRICOT system {system_name!r}; choose from {', '.join(ABRICOT_SYSTEMS)}")
    for field, flag in ADMIRE_ONLY_OPTIONS.items():
        if getattr(options, field) not in (None, False):
            raise SensoError(f"{flag} is an AdMIRe option; {options.task} does not use it (ABRICOT has one split, "
                             "the whole Italian file): leave it out")
    for field, flag in MODEL_FLAGS.items():
        if getattr(options, field) not in (None, False) and field not in SYSTEM_FLAGS[system_name]:
            raise SensoError(f"{flag} is not used by --system {system_name} (it reads "
                             f"{', '.join(MODEL_FLAGS[f] for f in SYSTEM_FLAGS[system_name])}): leave it out")
    if system_name == "embedding-ridge":
        check_keys(options.system_options, EmbeddingRidge.OPTION_KEYS, "--system embedding-ridge")
        return system_name
    protocol = options.protocol or "calamita"
    if protocol not in PROTOCOLS:
        raise SensoError(f"--protocol {protocol!r} is not an ABRICOT protocol; choose from {', '.join(PROTOCOLS)} "
                         "(paper is the 3-shot one)")
    if options.shots is not None and protocol != "paper":
        raise SensoError(f"--shots {options.shots} sets the exemplars of the few-shot protocol, but the protocol is "
                         f"{protocol} (0-shot): add --protocol paper")
    check_local_spec(options.model, "--model")
    spec = parse_model_spec(options.model, default_backend=options.backend or "hf")
    if options.base_url and spec.backend != "openai":
        raise SensoError(f"--base-url is for the openai backend, but the model is {spec}")
    if system_name == "likert-generate" and spec.backend != "openai":
        raise SensoError(f"--system likert-generate needs a chat model behind a server: "
                         f"--model openai:NAME --base-url URL (got {spec})")
    check_keys(options.system_options, OPENAI_SETTINGS if spec.backend == "openai" else (),
               f"--system {system_name} with {'an openai' if spec.backend == 'openai' else 'a local'} model")
    return system_name


def run_abricot(options: RunOptions) -> Path:
    """Run `options.task` (abricot-abs / abricot-inc); returns the run folder."""
    started = time.perf_counter()
    task = get_task(options.task)
    system_name = check_options(options)
    data_path = locate_abricot(options.data_dir)
    pool = load_abricot(data_path)
    items = pool[: options.limit] if options.limit else pool
    cache = ResponseCache(enabled=options.use_cache)
    cache.check()
    out_dir = Path(options.out) if options.out else default_run_dir(task.name, system_name)
    writer = RunWriter(out_dir)
    config = {**{k: v for k, v in options.to_json().items() if k not in ADMIRE_ONLY_OPTIONS}, "system": system_name,
              "data_files": [data_file_entry(data_path)]}
    writer.write_config(config)

    runner = {LM_SYSTEM: _run_lm, "likert-generate": _run_generate}.get(system_name, _run_ridge)
    t0 = time.perf_counter()
    predictions, system_info, info = runner(options, task, items, pool, cache)
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
    metrics = abricot_metrics(scored_items, scored_predictions, task, seed=options.seed)
    by_domain = abricot_metrics_by_domain(scored_items, scored_predictions, task, seed=options.seed)
    writer.write_samples(
        {
            "id": item.id, "domain": item.domain, "lemma": item.target_lemma,
            "gold": gold_label(item.score(task.dimension)), "gold_mean": item.score(task.dimension),
            "prediction": pred.label, "expected": pred.expected, "logprobs": pred.logprobs, **pred.extra,
        }
        for item, pred in zip(items, predictions)
    )
    record = RunRecord(
        task=task.name, system=system_name, n=len(items), metrics=metrics, metrics_by_group=by_domain,
        config=config, model=system_info, warnings=warnings,
        timings={"predict_seconds": round(predict_seconds, 3), "total_seconds": round(time.perf_counter() - started, 3),
                 "items_per_second": round(len(items) / predict_seconds, 3) if predict_seconds else None},
        extra={"limit": options.limit, "seed": options.seed, "batch_size": options.batch_size, "dtype": options.dtype,
               "device": options.device, "chat_template": options.chat_template,
               "cache": {"hits": cache.hits, "misses": cache.misses, "enabled": cache.enabled}, **info},
    )
    warnings += cache.warnings
    writer.write_results(record)
    cache.close()
    for warning in warnings:
        console.print(f"[bold red]WARNING:[/] {warning}", highlight=False, soft_wrap=True)
    print_summary(task, system_name, info, metrics, by_domain, len(items))
    return writer.dir


def print_summary(task: AbricotTask, system: str, info: dict[str, Any], metrics, by_domain, n: int) -> None:
    from rich.console import Console as _Console

    table = Table(title=f"{task.name} · {system} · {info.get('protocol')} · n={n}")
    table.add_column("metric")
    table.add_column("all", justify="right")
    for domain in by_domain:
        table.add_column(domain, justify="right")
    for name, estimate in metrics.items():
        table.add_row(name, estimate.format(), *(by_domain[d][name].format() for d in by_domain))
    terminal = _Console()
    _Console(width=None if terminal.is_terminal else 120).print(table)
