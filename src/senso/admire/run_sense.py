"""`senso run admire-sense`: a sense classifier alone, scored on the gold `sentence_type` of Subtask A.

Items come from the Subtask A split file when it is there (English: with captions, so the caption
signal is used); otherwise from the organisers' targets file (`--gold FILE`, or
`admire/reference/a_<lang>_<split>_targets.tsv`), which holds sentences and senses but no captions —
how Portuguese train/dev are scored here. The metric is accuracy (all / idiomatic / literal) with 95%
bootstrap CIs; samples.jsonl holds each item's P(idiomatic) and evidence.
"""

from __future__ import annotations

import time
from pathlib import Path

from senso.admire.data import load_subtask_a, locate_admire, read_targets_a, split_file
from senso.admire.items import AdmireAItem, ImageOption
from senso.core.errors import DataNotFound, SensoError
from senso.core.cache import ResponseCache
from senso.core.options import RunOptions
from senso.core.records import run_config, RunRecord, RunWriter, default_run_dir
from senso.core.terminal import labelled, terminal
from senso.admire.scoring import GROUPS, aggregate
from senso.admire.task import SPLITS, hygiene_warnings

console = terminal()
warn_console = terminal(stderr=True)
METRIC = "sense_accuracy"


def items_from_targets(path: Path, lang: str) -> list[AdmireAItem]:
    """Subtask A items built from a targets file: sentence and gold only; images named, captions empty."""
    return [AdmireAItem(t.compound, t.subset, t.sentence, tuple(ImageOption(n, "") for n in t.expected_order), lang,
                        t.sentence_type, t.expected_order) for t in read_targets_a(path)]


def load_sense_items(options: RunOptions, split: str) -> tuple[list[AdmireAItem], Path]:
    if options.gold:
        return items_from_targets(Path(options.gold), options.lang), Path(options.gold)
    try:
        path = split_file(options.data_dir, "a", options.lang, split)
        return load_subtask_a(options.data_dir, options.lang, split, caption_lang=options.caption_lang), path
    except DataNotFound:
        targets = locate_admire(options.data_dir) / "reference" / f"a_{options.lang}_{split}_targets.tsv"
        if not targets.exists():
            raise
        return items_from_targets(targets, options.lang), targets


def run_admire_sense(options: RunOptions, warnings: list[str]) -> Path:
    """`options` checked by senso.admire.run.check_options; `warnings` are its warnings."""
    from senso.admire.systems.pipeline import build_builder, build_sense

    splits = options.split.split("+")
    for split in splits:
        if split not in SPLITS:
            raise SensoError(f"unknown AdMIRe split {split!r}; choose from {', '.join(SPLITS)}")
    if len(splits) > 1 and options.gold:
        raise SensoError("--gold holds one split's targets; combine splits only without --gold")
    started = time.perf_counter()
    items: list[AdmireAItem] = []
    sources: list[Path] = []
    for split in splits:
        split_items, source = load_sense_items(options, split)
        items += split_items
        sources.append(source)
    if options.limit is not None:
        items = items[: options.limit]
    if any(i.sentence_type is None for i in items):
        raise SensoError(f"{', '.join(map(str, sources))}: no gold sentence types; give the targets file with --gold")
    load_s = time.perf_counter() - started

    cache = ResponseCache(enabled=options.use_cache)
    cache.check()
    builder = build_builder(options, cache)
    classifier = build_sense(options, cache, builder)
    name = classifier.name
    out_dir = Path(options.out) if options.out else default_run_dir("admire-sense", name)
    with RunWriter(out_dir, cache=cache) as writer:
        _classify_and_record(writer, classifier, options, items, sources, [*warnings, *writer.warnings], load_s)
    cache.close()
    return out_dir


def _classify_and_record(writer: RunWriter, classifier, options: RunOptions, items: list[AdmireAItem],
                         sources: list[Path], warnings: list[str], load_s: float) -> None:
    """Inside the locked run folder: config, the classifier's decisions, samples, metrics, results, summary."""
    name, cache = classifier.name, writer.cache
    config = run_config(options, name, sources, sense=classifier.describe())
    writer.write_config(config)
    started = time.perf_counter()
    decisions = classifier.classify(items)
    predict_s = time.perf_counter() - started
    samples = [{"compound": i.compound, "sentence": i.sentence, "sentence_type": i.sentence_type,
                "predicted_sentence_type": d.label, "p_idiomatic": d.p_idiomatic, "evidence": d.evidence,
                METRIC: float(d.label == i.sentence_type)} for i, d in zip(items, decisions)]
    writer.write_samples(samples)
    metrics, by_group = aggregate(samples, [METRIC], seed=options.seed)
    warnings = [*warnings, *hygiene_warnings(classifier, [i.compound for i in items], options.split)]
    if options.limit is not None:
        warnings.append(f"PARTIAL: the first {len(items)} items (--limit {options.limit}) of {options.lang} {options.split}")
    warnings += cache.warnings
    record = RunRecord(task="admire-sense", system=name, n=len(items), metrics=metrics, config=config,
                       metrics_by_group=by_group, model=classifier.describe(),
                       timings={"load_s": round(load_s, 3), "predict_s": round(predict_s, 3)}, warnings=warnings,
                       extra={"lang": options.lang, "split": options.split, "gold": [str(p) for p in sources],
                              "captions_used": all(all(o.caption for o in i.images) for i in items),
                              "cache": {"hits": cache.hits, "misses": cache.misses}, "seed": options.seed})
    writer.write_results(record)

    from senso.admire.tables import metrics_table

    for warning in warnings:
        warn_console.print(labelled("WARNING:", "bold red", warning), soft_wrap=True)
    sizes = {g: sum(1 for s in samples if s["sentence_type"] == g) for g in GROUPS}
    console.print(metrics_table(f"admire-sense {options.lang} {options.split} | sense {name} | n={len(items)}",
                                metrics, by_group, len(items), sizes))
