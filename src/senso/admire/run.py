"""`senso run admire-a|admire-b`: load a split, run a system, write the run folder.

The run folder holds config.json (written first), the official submission file, samples.jsonl
(per item: scores, prediction, gold, per-item metrics) and results.json (metrics with 95% bootstrap
CIs over all items and per gold sentence type, track, versions, fingerprints, timings, warnings).
Without gold the run writes its submission and no metrics, and says so.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Sequence

from senso.admire.data import load_subtask_a, load_subtask_b, locate_admire, split_file
from senso.core.errors import SensoError
from senso.core.stats import Estimate
from senso.core.tables import folded
from senso.core.terminal import labelled, terminal
from senso.core.cache import ResponseCache
from senso.core.fingerprint import path_fingerprint
from senso.core.options import RunOptions, check_keys
from senso.admire.tables import metrics_table
from senso.core.records import run_config, RunRecord, RunWriter, default_run_dir
from senso.admire.scoring import GROUPS, PARITY_NOTE, aggregate, score_item_a, score_item_b
from senso.admire.submission import write_submission_a, write_submission_b
from senso.admire.systems.fitting import FIT_SPLITS, cross_validate, fit_cached, is_fittable, load_fitted_model
from senso.admire.task import (
    ABRICOT_ONLY_FLAGS, DEFAULT_LANG, DEFAULT_SPLIT, TEXT_AND_IMAGES, TEXT_ONLY, AdmireTask, check_lang_split,
    get_task, hygiene_warnings, official_size, submission_name, targets_name,
)

console = terminal()
warn_console = terminal(stderr=True)



def make_system(task: AdmireTask, name: str, options: RunOptions, cache: ResponseCache) -> Any:
    from senso.admire.systems.registry import ADMIRE_A_SYSTEMS, ADMIRE_B_SYSTEMS

    registry = ADMIRE_A_SYSTEMS if task.subtask == "a" else ADMIRE_B_SYSTEMS
    if name not in registry:
        raise SensoError(f"unknown {task.name} system {name!r}; choose from {', '.join(sorted(registry))}")
    return registry[name](options, cache)


def _check_rankings(system: Any, items: Sequence[Any], rankings: Sequence[Any]) -> None:
    if len(rankings) != len(items):
        raise SensoError(f"system {system.name!r} returned {len(rankings)} rankings for {len(items)} items")
    for item, ranking in zip(items, rankings):
        if sorted(ranking.order) != sorted(item.image_names):
            raise SensoError(f"system {system.name!r} ranked {list(ranking.order)} for {item.compound!r}, "
                             f"not a permutation of its images {list(item.image_names)}")


def _check_choices(system: Any, items: Sequence[Any], choices: Sequence[Any]) -> None:
    if len(choices) != len(items):
        raise SensoError(f"system {system.name!r} returned {len(choices)} answers for {len(items)} items")
    for item, choice in zip(items, choices):
        names = [c.name for c in item.candidates]
        if choice.expected_item not in names:
            raise SensoError(f"system {system.name!r} chose {choice.expected_item!r} for {item.compound!r}, not a candidate {names}")
        if choice.sentence_type not in GROUPS:
            raise SensoError(f"system {system.name!r} answered sentence type {choice.sentence_type!r} for {item.compound!r}")


def _run_fitted(system: Any, items: Sequence[Any], options: RunOptions, splits: Sequence[str]) -> tuple[list[Any], dict]:
    """A fitted system (see senso.admire.systems.fitting): loaded from --set model=FILE; cross-validated
    by compound on EN train/dev gold; otherwise fit on EN train+dev gold of the data folder (cached)."""
    model_file = options.system_options.get("model")
    if model_file:
        document = load_fitted_model(system, Path(model_file))
        return system.rank(items), {"cross_validated": False, "model_file": str(model_file),
                                    "training_data_sha256": document.get("training_data_sha256")}
    if options.lang == "en" and not options.gold and all(split in FIT_SPLITS for split in splits):
        return cross_validate(system, items, options.data_dir, seed=options.seed)
    info = fit_cached(system, options.data_dir, use_cache=options.use_cache)
    return system.rank(items), {"cross_validated": False, **info}


def check_options(options: RunOptions) -> tuple[RunOptions, list[str]]:
    """The AdMIRe-specific checks, before anything slow and before a run folder: options the task does not
    read, language and split, the system and the --set keys it reads. Returns the options with the AdMIRe
    defaults filled in, and warnings for the terminal and results.json."""
    from senso.admire.systems.registry import (
        ADMIRE_A_SYSTEMS, ADMIRE_B_SYSTEMS, USES_WORDNET, system_keys, system_members,
    )
    from senso.admire.systems.images.factories import check_vlm_judge
    from senso.backends.specs import check_local_spec

    options = replace(options, lang=options.lang or DEFAULT_LANG, split=options.split or DEFAULT_SPLIT)
    for field, flag in ABRICOT_ONLY_FLAGS.items():
        if getattr(options, field) not in (None, False):
            raise SensoError(f"{flag} is an ABRICOT prompting option; {options.task} does not use it (leave it out)")
    splits = options.split.split("+")
    if options.task == "admire-sense":
        subtask, system_name = "sense", "sense"
        if options.lang not in ("en", "pt"):
            raise SensoError(f"admire-sense has no language {options.lang!r}; choose from en, pt")
    else:
        task = get_task(options.task)
        subtask, system_name = task.subtask, options.system or task.default_system
        for split in splits:
            check_lang_split(task, options.lang, split)
        registry = ADMIRE_A_SYSTEMS if subtask == "a" else ADMIRE_B_SYSTEMS
        if system_name not in registry:
            raise SensoError(f"unknown {task.name} system {system_name!r}; choose from {', '.join(sorted(registry))}")
    check_keys(options.system_options, system_keys(subtask, system_name, options),
               f"{options.task} system {system_name!r}" if subtask != "sense" else "admire-sense")
    for flag, spec in (("--model", options.model), ("--generator", options.generator), ("--image-model", options.image_model)):
        check_local_spec(spec, flag)
    if "vlm-judge" in system_members(subtask, system_name, options):
        check_vlm_judge(options)
    warnings = []
    if USES_WORDNET & set(system_members(subtask, system_name, options)) and "wordnet" not in options.system_options:
        from senso.admire.systems.wordnet import WordNet

        if WordNet.locate() is None:
            warnings.append("NO WORDNET: no WordNet database was found, so this system runs without WordNet meanings "
                            "and word signals and scores differently from runs with it. Install Debian's wordnet-base "
                            "(apt-get install wordnet-base) or NLTK's wordnet corpus, or point at one with "
                            "--set wordnet=FOLDER")
    return options, warnings


def _official_gold(options: RunOptions, subtask: str, split: str) -> Path | None:
    """The organisers' targets file for the split in the data folder's reference/ (e.g. b_en_dev_targets.tsv)."""
    path = locate_admire(options.data_dir) / "reference" / targets_name(subtask, options.lang, split)
    return path if path.is_file() else None


@dataclass
class _Loaded:
    """The items of a run and where they came from."""

    items: list[Any]
    data_paths: list[Path]
    gold_files: list[Path]
    notes: list[str]
    n_split: int  # items in the data files, before --limit
    load_s: float


def _load_items(task: AdmireTask, options: RunOptions, splits: Sequence[str], uses_images: bool) -> _Loaded:
    """Every split's items (gold from --gold, the data file, or the organisers' targets shipped beside it)."""
    started = time.perf_counter()
    items: list[Any] = []
    gold_files: list[Path] = [Path(options.gold)] if options.gold else []
    notes = []

    def load(split: str, gold: Path | None) -> list:
        if task.subtask == "a":
            return load_subtask_a(options.data_dir, options.lang, split, gold=gold,
                                  caption_lang=options.caption_lang, need_images=uses_images)
        return load_subtask_b(options.data_dir, options.lang, split, gold=gold, need_images=uses_images)

    for split in splits:
        split_items = load(split, options.gold)
        lacks_gold = all((i.expected_order if task.subtask == "a" else i.expected_item) is None for i in split_items)
        official = _official_gold(options, task.subtask, split) if lacks_gold and not options.gold else None
        if official is not None:  # the organisers' targets shipped beside the data: score against them, and say so
            split_items = load(split, official)
            gold_files.append(official)
            notes.append(f"gold for {options.lang} {split}: the organisers' targets file {official}")
        items += split_items
    repeated = sorted({i.compound for i in items if sum(j.compound == i.compound for j in items) > 1})
    if repeated:
        raise SensoError(f"splits {options.split} share compounds ({', '.join(repeated[:5])}); score them separately")
    n_split = len(items)
    if options.limit is not None:
        items = items[: options.limit]
    data_paths = [split_file(options.data_dir, task.subtask, options.lang, split) for split in splits]
    return _Loaded(items, data_paths, gold_files, notes, n_split, time.perf_counter() - started)


def run_admire(options: RunOptions) -> Path:
    """Run an AdMIRe task end to end; returns the run folder."""
    options.validate()
    options, warnings = check_options(options)
    if options.task == "admire-sense":
        from senso.admire.run_sense import run_admire_sense

        return run_admire_sense(options, warnings)
    task = get_task(options.task)
    splits = options.split.split("+")
    if len(splits) != len(set(splits)):
        raise SensoError(f"split {options.split!r} names a split twice")
    if len(splits) > 1 and options.gold:
        raise SensoError("--gold holds one split's targets; combine splits (e.g. train+dev) only when their inputs carry gold")
    if task.subtask == "b" and options.caption_lang not in (None, "en"):
        raise SensoError("Subtask B has English captions only")
    system_name = options.system or task.default_system
    cache = ResponseCache(enabled=options.use_cache)
    cache.check()
    system = make_system(task, system_name, options, cache)
    loaded = _load_items(task, options, splits, bool(getattr(system, "uses_images", False)))
    out_dir = Path(options.out) if options.out else default_run_dir(task.name, system_name)
    with RunWriter(out_dir, cache=cache) as writer:
        _answer_and_record(writer, task, system, system_name, options, loaded, [*warnings, *writer.warnings])
    cache.close()
    return out_dir


def _fingerprints(options: RunOptions, splits: Sequence[str], loaded: _Loaded) -> dict[str, str]:
    paths = loaded.data_paths
    fingerprints = {"data": path_fingerprint(paths[0], memo=options.use_cache)} if len(paths) == 1 else {
        f"data_{split}": path_fingerprint(path, memo=options.use_cache) for split, path in zip(splits, paths)}
    for gold_file in loaded.gold_files:
        key = "gold" if len(loaded.gold_files) == 1 else f"gold_{gold_file.name}"
        fingerprints[key] = path_fingerprint(gold_file, memo=options.use_cache)
    return fingerprints


def _answers(task: AdmireTask, system: Any, options: RunOptions, items: list[Any], splits: Sequence[str]):
    """(answers, fitting record or None): rankings (A) or choices (B), checked against the items."""
    fitting = None
    if task.subtask == "a" and is_fittable(system):
        answers, fitting = _run_fitted(system, items, options, splits)
        _check_rankings(system, items, answers)
    elif task.subtask == "a":
        answers = system.rank(items)
        _check_rankings(system, items, answers)
    else:
        answers = system.choose(items)
        _check_choices(system, items, answers)
    return answers, fitting


def _write_submission(task: AdmireTask, sub_path: Path, items: list[Any], answers: list[Any],
                      data_paths: list[Path]) -> bool:
    """Write the official submission file; returns whether every item carries gold (then the run is scored)."""
    if task.subtask == "a":
        write_submission_a(sub_path, [(item.compound, ans.order) for item, ans in zip(items, answers)])
        has_gold = [item.expected_order is not None for item in items]
    else:
        write_submission_b(sub_path, [(item.compound, ans.sentence_type, ans.expected_item) for item, ans in zip(items, answers)])
        has_gold = [item.expected_item is not None and item.sentence_type is not None for item in items]
    if any(has_gold) and not all(has_gold):
        raise SensoError(f"{', '.join(map(str, data_paths))}: only {sum(has_gold)} of {len(items)} items carry gold; give a complete targets file with --gold")
    return bool(has_gold) and all(has_gold)


def _sample(task: AdmireTask, item: Any, ans: Any, scored: bool) -> dict[str, Any]:
    if task.subtask == "a":
        sample = {"compound": item.compound, "subset": item.subset, "sentence": item.sentence,
                  "images": list(item.image_names), "scores": ans.scores, "predicted_order": list(ans.order),
                  "gold_order": list(item.expected_order) if item.expected_order else None,
                  "sentence_type": item.sentence_type}
        if scored:
            sample.update(score_item_a(ans.order, item.expected_order))
    else:
        sample = {"compound": item.compound, "subset": item.subset, "images": [c.name for c in item.candidates],
                  "scores": ans.scores, "predicted_item": ans.expected_item,
                  "predicted_sentence_type": ans.sentence_type, "gold_item": item.expected_item,
                  "sentence_type": item.sentence_type}
        if scored:
            sample.update(score_item_b(ans.expected_item, ans.sentence_type, item.expected_item, item.sentence_type))
    if ans.extra:
        sample["extra"] = ans.extra
    return sample


def _run_warnings(task: AdmireTask, system: Any, options: RunOptions, loaded: _Loaded, cross_validated: bool) -> list[str]:
    """Split hygiene (unless cross-validated: no item was ranked by a model fit on its compound) and PARTIAL."""
    items, splits = loaded.items, options.split.split("+")
    warnings = [] if cross_validated else hygiene_warnings(system, [i.compound for i in items], options.split)
    n_official = sum(official_size(task.subtask, options.lang, split) for split in splits)
    if len(items) != n_official:
        warnings.append(f"PARTIAL: {len(items)} of the {n_official} items of the official {options.lang} {options.split} split "
                        f"(--limit {options.limit}); not comparable to the leaderboard" if options.limit is not None else
                        f"PARTIAL: the data file has {loaded.n_split} items, the official split {n_official}; "
                        "not comparable to the leaderboard")
    return warnings


def _answer_and_record(writer: RunWriter, task: AdmireTask, system: Any, system_name: str, options: RunOptions,
                       loaded: _Loaded, warnings: list[str]) -> None:
    """Inside the locked run folder: config, answers, submission, samples, metrics, results, terminal summary."""
    splits, items, notes, cache = options.split.split("+"), loaded.items, loaded.notes, writer.cache
    fingerprints = _fingerprints(options, splits, loaded)
    config = run_config(options, system_name, [*loaded.data_paths, *loaded.gold_files],
                        system_description=system.describe())
    writer.write_config(config)
    started = time.perf_counter()
    answers, fitting = _answers(task, system, options, items, splits)
    predict_s = time.perf_counter() - started
    sub_path = writer.dir / submission_name(options.lang, splits[0] if len(splits) == 1 else "+".join(splits))
    scored = _write_submission(task, sub_path, items, answers, loaded.data_paths)
    samples = [_sample(task, item, ans, scored) for item, ans in zip(items, answers)]
    writer.write_samples(samples)
    cross_validated = bool(fitting and fitting.get("cross_validated"))
    warnings = [*warnings, *_run_warnings(task, system, options, loaded, cross_validated), *cache.warnings]
    metrics, by_group = aggregate(samples, task.metrics + task.parity_metrics, seed=options.seed) if scored else ({}, {})
    if scored and task.parity_metrics:
        notes.append(PARITY_NOTE)
    if scored:
        gold_source = (", ".join(str(p.resolve()) for p in loaded.gold_files) if loaded.gold_files
                       else f"{', '.join(str(p.resolve()) for p in loaded.data_paths)} (gold columns)")
    else:
        gold_source = None
        notes.append(f"no gold for {options.lang} {options.split}: wrote {sub_path.name} only, no metrics. Score it with "
                     f"`senso score {task.name} {sub_path} --gold <targets file>` or rerun with --gold.")
    uses_images = bool(getattr(system, "uses_images", False))
    record = RunRecord(
        task=task.name, system=system_name, n=len(items), metrics=metrics, config=config, metrics_by_group=by_group,
        model=system.describe(), timings={"load_s": round(loaded.load_s, 3), "predict_s": round(predict_s, 3)},
        warnings=warnings,
        extra={"lang": options.lang, "split": options.split, "caption_lang": (options.caption_lang or options.lang) if task.subtask == "a" else "en",
               "track": TEXT_AND_IMAGES if uses_images else TEXT_ONLY,
               "n_official": sum(official_size(task.subtask, options.lang, split) for split in splits),
               "gold": gold_source, "submission": sub_path.name, "fingerprints": fingerprints, "seed": options.seed,
               "batch_size": options.batch_size, "notes": notes,
               "cache": {"hits": cache.hits, "misses": cache.misses},
               **({"cross_validated": cross_validated, "fitting": fitting} if fitting is not None else {})},
    )
    writer.write_results(record)
    group_sizes = {g: sum(1 for s in samples if s["sentence_type"] == g) for g in GROUPS}
    print_summary(task, system_name, options, len(items), metrics, by_group, warnings, notes, group_sizes, sub_path)


def print_summary(task: AdmireTask, system_name: str, options: RunOptions, n: int, metrics: dict[str, Estimate],
                  by_group: dict[str, dict[str, Estimate]], warnings: list[str], notes: list[str],
                  group_sizes: dict[str, int], sub_path: Path) -> None:
    for warning in warnings:
        warn_console.print(labelled("WARNING:", "bold red", warning), soft_wrap=True)
    title = f"{task.name} {options.lang} {options.split} | system {system_name} | n={n}"
    if metrics:
        console.print(folded(metrics_table(title, metrics, by_group, n, group_sizes)))
    else:
        console.print(title, soft_wrap=True)
    for note in notes:
        console.print(note, style="dim", soft_wrap=True)
    console.print(f"submission: {sub_path}", soft_wrap=True)
