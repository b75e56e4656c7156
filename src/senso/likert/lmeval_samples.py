"""lm-evaluation-harness's per-sample logs of a Likert task (`lm_eval ... --log_samples`), read for senso.

A log (`samples_<task>_<date>.jsonl`) holds one JSON object per document: the document as lm-eval read it
(`doc`, the data set's row: ABRICOT's `ID`, text, means, ...), the request arguments (`arguments`: the prompt
and each choice's continuation) and the log-likelihood of each choice (`filtered_resps`: `[loglikelihood,
is_greedy]` per choice). `read_lmeval_samples` reads one, naming the file, line and field of every fault;
`match_items` lines it up with a task's items: unknown ids, missing items, a wrong number of choices, or gold
that is another task's are errors that name them, never dropped. `read_lmeval_results` reads the run's
`results_<date>.json` for what the record keeps (lm-eval's version, model and model args, shots).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from senso.core.errors import DataError, SensoError, not_utf8
from senso.core.fingerprint import file_sha256
from senso.likert.items import LikertItem
from senso.core.prompting import TARGET_DELIMITER
from senso.likert.task import LikertTask, render_prompt

SHOWN = 5  # how many ids a message names before "and N more"


@dataclass
class LmevalSample:
    """One document of the log: its item id, line, the choices' continuations and log-likelihoods, lm-eval's
    target (its gold: a choice's index or text) and the prompt it scored (None where the log lacks them)."""

    id: str
    line: int
    continuations: list[str]
    loglikelihoods: list[float]
    target: str | None = None
    prompt: str | None = None


@dataclass
class LmevalLog:
    path: Path
    sha256: str
    samples: dict[str, LmevalSample] = field(default_factory=dict)


def named(ids: Sequence[str]) -> str:
    """`a, b, c` (at most SHOWN, then "and N more")."""
    shown = ", ".join(map(str, ids[:SHOWN]))
    return shown + (f" and {len(ids) - SHOWN} more" if len(ids) > SHOWN else "")


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise not_utf8(path) from None
    except FileNotFoundError:
        raise SensoError(f"{path}: no such file (an lm-eval samples log: samples_<task>_<date>.jsonl)") from None
    except OSError as exc:
        raise SensoError(f"{path}: cannot read it ({exc.strerror})") from None


def _loglikelihoods(path: Path, line: int, record: dict[str, Any]) -> list[float]:
    """Each choice's log-likelihood: `filtered_resps` ([[ll, is_greedy], ...]), else `resps` ([[[ll, g]], ...])."""
    if isinstance(record.get("filtered_resps"), list):
        key, values = "filtered_resps", record["filtered_resps"]
    elif isinstance(record.get("resps"), list):
        key, values = "resps", [r[0] if isinstance(r, list) and r else r for r in record["resps"]]
    else:
        raise DataError(path, "no filtered_resps or resps: not a samples log written by lm-eval --log_samples",
                        row=line, field="filtered_resps")
    result = []
    for k, value in enumerate(values):
        first = value[0] if isinstance(value, (list, tuple)) and value else value
        try:
            result.append(float(first))
        except (TypeError, ValueError):
            raise DataError(path, f"choice {k + 1}: expected a log-likelihood, got {first!r} (a generate_until "
                                  "task's log? senso reads the log of a multiple_choice task)",
                            row=line, field=key) from None
    return result


def _arguments(record: dict[str, Any]) -> list[tuple[str, str]]:
    """(prompt, continuation) of each request: lm-eval >= 0.4.3 writes {"gen_args_0": {"arg_0", "arg_1"}, ...},
    older versions a list of [prompt, continuation]."""
    arguments = record.get("arguments")
    if isinstance(arguments, dict):
        def position(key: str) -> tuple[int, str]:  # gen_args_2 before gen_args_10
            tail = str(key).rpartition("_")[2]
            return (int(tail) if tail.isdigit() else -1, str(key))

        arguments = [arguments[k] for k in sorted(arguments, key=position)]
        return [(a.get("arg_0"), a.get("arg_1")) for a in arguments if isinstance(a, dict)]
    if isinstance(arguments, list):
        return [tuple(a[:2]) for a in arguments if isinstance(a, list) and len(a) >= 2]
    return []


def _sample(path: Path, line: int, record: dict[str, Any], id_column: str) -> LmevalSample:
    doc = record.get("doc")
    if not isinstance(doc, dict):
        raise DataError(path, "no `doc` object: not a samples log written by lm-eval --log_samples", row=line, field="doc")
    if doc.get(id_column) in (None, ""):
        raise DataError(path, f"the document has no item id in column {id_column!r} (its columns: "
                              f"{named(sorted(doc))}): a log of another data set's task?", row=line,
                        field=f"doc.{id_column}")
    loglikelihoods = _loglikelihoods(path, line, record)
    arguments = _arguments(record)
    target = record.get("target")
    return LmevalSample(id=str(doc[id_column]), line=line, loglikelihoods=loglikelihoods,
                        continuations=[str(a[1]) for a in arguments],
                        target=None if target is None else str(target),
                        prompt=str(arguments[0][0]) if arguments else None)


def read_lmeval_samples(path: str | Path, id_column: str) -> LmevalLog:
    """The log at `path`, its documents keyed by item id (the data set's `id_column`, ABRICOT: ID)."""
    path = Path(path)
    lines = _lines(path)
    log = LmevalLog(path=path, sha256=file_sha256(path))
    last = max((n for n, text in enumerate(lines, 1) if text.strip()), default=0)
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
        except json.JSONDecodeError as exc:
            cut = " (the last line, cut short: a killed lm-eval run or a partial copy?)" if number == last else ""
            raise DataError(path, f"not valid JSON ({exc.msg}){cut}", row=number) from None
        if not isinstance(record, dict):
            raise DataError(path, f"a JSON {type(record).__name__}, not the object lm-eval writes per document", row=number)
        sample = _sample(path, number, record, id_column)
        if sample.id in log.samples:
            raise DataError(path, f"item {sample.id!r} is logged twice (first on line {log.samples[sample.id].line}): "
                                  "two runs' logs put together?", row=number, field=f"doc.{id_column}")
        log.samples[sample.id] = sample
    if not log.samples:
        raise DataError(path, "holds no document: an empty samples log")
    return log


def _target_choice(target: str | None, choices: Sequence[str], as_index: bool) -> str | None:
    """lm-eval's gold as a choice's text: its target read as the choice's index (an int target) or its text."""
    if target is None:
        return None
    if as_index:
        return choices[int(target)] if target.isdigit() and int(target) < len(choices) else None
    return target if target in choices else None


def _check_gold(log: LmevalLog, task: LikertTask, items: Sequence[LikertItem]) -> None:
    """lm-eval's targets are the task's gold labels (read as indices or as texts); else the log is another
    task's (ABRICOT: abricot-inc's log given for abricot-abs shares its ids, not its gold)."""
    pairs = [(item, log.samples[item.id]) for item in items if item.gold is not None]
    pairs = [(item, s) for item, s in pairs if s.target is not None]
    if not pairs:
        return
    readings = [[item.id for item, s in pairs
                 if _target_choice(s.target, task.choices, as_index) != str(task.gold_label(item.gold))]
                for as_index in (True, False)]
    wrong = min(readings, key=len)
    if not wrong:
        return
    raise DataError(log.path, f"lm-eval's gold (`target`) differs from {task.name}'s gold label on {len(wrong)} of "
                              f"{len(pairs)} items ({named(wrong)}): a log of another task (or data set)? give the "
                              f"log of {task.name}", field="target")


def _choice_order(log: LmevalLog, sample: LmevalSample, task: LikertTask) -> list[int]:
    """Where each of the task's choices is in the sample's; a wrong number of choices, or others, is an error."""
    choices = list(task.choices)
    if len(sample.loglikelihoods) != len(choices):
        raise DataError(log.path, f"item {sample.id}: {len(sample.loglikelihoods)} choices logged, but {task.name} has "
                                  f"{len(choices)} ({', '.join(choices)})", row=sample.line, field="filtered_resps")
    if not sample.continuations:
        return list(range(len(choices)))
    logged = [c[len(TARGET_DELIMITER):] if c.startswith(TARGET_DELIMITER) else c for c in sample.continuations]
    if sorted(logged) != sorted(choices):
        raise DataError(log.path, f"item {sample.id}: lm-eval scored the continuations {logged!r}, but {task.name}'s "
                                  f"choices are {choices!r}", row=sample.line, field="arguments")
    return [logged.index(c) for c in choices]


def _missing(log: LmevalLog, items: Sequence[LikertItem], pool: Sequence[LikertItem]) -> str | None:
    missing = [item.id for item in items if item.id not in log.samples]
    if not missing:
        return None
    message = f"the log lacks {len(missing)} of the {len(items)} items scored: {named(missing)}"
    k = len(log.samples)
    if {item.id for item in pool[:k]} == set(log.samples):
        message += (f". It holds the first {k} items, as an lm-eval run limited to {k} documents writes: give senso "
                    f"the same --limit {k} (the run is then marked PARTIAL)")
    return message


def logged_prefix(log: LmevalLog, pool: Sequence[LikertItem]) -> int | None:
    """k when the log holds exactly the first k < len(pool) items, as `lm_eval --limit k` writes; else None."""
    k = len(log.samples)
    return k if 0 < k < len(pool) and {item.id for item in pool[:k]} == set(log.samples) else None


BUILT_IN_LMEVAL_TASKS = ("abricot_abs", "abricot_inc")  # the CALAMITA harness's names of the built-in tasks


def _check_task_name(log: LmevalLog, task: LikertTask) -> None:
    """A log named after another built-in task (samples_abricot_inc_<date>.jsonl given for abricot-abs) is refused."""
    logged, mine = _task_of(log.path), task.name.replace("-", "_")
    if logged in BUILT_IN_LMEVAL_TASKS and mine in BUILT_IN_LMEVAL_TASKS and logged != mine:
        raise DataError(log.path, f"a log of lm-eval's task {logged} (by its file name), not of {task.name}: give "
                                  f"the log of {mine}")


def match_items(log: LmevalLog, task: LikertTask, items: Sequence[LikertItem],
                pool: Sequence[LikertItem]) -> tuple[list[list[float]], list[str]]:
    """Each item's log-likelihoods, in item order and the task's choice order, and the warnings for the reader
    (prompts other than senso's). Unknown ids, missing items, other choices and another task's gold are
    DataErrors naming them."""
    _check_task_name(log, task)
    known = {item.id for item in pool}
    unknown = [i for i in log.samples if i not in known]
    if unknown:
        first = log.samples[unknown[0]]
        raise DataError(log.path, f"{len(unknown)} logged item(s) are not in the data set ({named(unknown)}): a log "
                                  "of another data set? give --data-dir the data lm-eval read", row=first.line,
                        field="doc")
    message = _missing(log, items, pool)
    if message:
        raise DataError(log.path, message)
    _check_gold(log, task, items)
    ordered = []
    for item in items:
        sample = log.samples[item.id]
        ordered.append([sample.loglikelihoods[k] for k in _choice_order(log, sample, task)])
    other = [item.id for item in items if log.samples[item.id].prompt is not None
             and not log.samples[item.id].prompt.endswith(render_prompt(item, task))]
    warnings = []
    if other:
        warnings.append(f"lm-eval's prompts differ from senso's {task.name} prompt on {len(other)} of {len(items)} "
                        f"items ({named(other)}): the scores are those of lm-eval's prompts ({log.path.name})")
    return ordered, warnings


def _task_of(path: Path) -> str | None:
    """The lm-eval task a samples log is of, from its name (`samples_<task>_<date>.jsonl`)."""
    name = path.name
    if not name.startswith("samples_") or "_" not in name[len("samples_"):]:
        return None
    return name[len("samples_"):].rsplit("_", 1)[0]


def read_lmeval_results(path: str | Path, samples_path: str | Path) -> dict[str, Any]:
    """What the record keeps of lm-eval's results file: its version, model, model args, shots and metrics of
    the samples log's task (named by the log's file name), and the file's checksum."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SensoError(f"{path}: no such file (lm-eval's results_<date>.json)") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(path, f"not lm-eval's results JSON ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("config"), dict):
        raise DataError(path, "no `config` object: not a results file written by lm-eval", field="config")
    task = _task_of(Path(samples_path))
    results = data.get("results") or {}
    if task is not None and results and task not in results:
        raise DataError(path, f"has no results of task {task!r} (the samples log's, by its name); it has "
                              f"{named(sorted(results))}: the results of another lm-eval run?", field="results")
    config = data["config"]
    return {"file": {"path": str(path.resolve()), "sha256": file_sha256(path)}, "lm_eval_version": data.get("lm_eval_version"),
            "lmeval_task": task, "model": data.get("model_name") or config.get("model"),
            "model_backend": config.get("model"), "model_args": config.get("model_args"),
            "n_shot": (data.get("n-shot") or {}).get(task), "transformers_version": data.get("transformers_version"),
            "git_hash": data.get("git_hash"), "lmeval_metrics": results.get(task)}
