"""A run's answers as the data sets' organisers take them, and such files read back as a system's answers.

- WiC-ITA (`submission = "wicita"`): a zip of `binary.jsonl`, `binary_eng.jsonl`, `ranking.jsonl` and
  `ranking_eng.jsonl`, one `{"id": ..., "label": 0|1}` or `{"id": ..., "score": x}` a line; `_eng` holds the
  Italian-English pairs. A binary run writes the two binary files, a graded run the two ranking files; `pack`
  zips them (`senso wic-submission RUN_DIR ... -o submission.zip`).
- Any other task (`submission = "lines"`, WiC's): `answers.txt`, one answer a line in the data's order, a binary
  answer written as the task file's `same`/`different` values (WiC: `T`/`F`), a graded one as the number.

`SubmittedAnswers` is the system that reads such a file (a zip, a folder, one .jsonl, or a lines file): what
`senso score TASK FILE` runs, so a submission is scored exactly as a run is.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from senso.core.errors import DataError, SensoError
from senso.core.params import Configurable, param
from senso.wic.items import WicPair
from senso.wic.systems.context import WicContext
from senso.wic.systems.row import WicSystem
from senso.wic.taskfile import PairsTask

WICITA = "wicita"
LINES_FILE = "answers.txt"
PARTS = {True: "binary", False: "ranking"}  # the task is binary -> its files' stem
ENGLISH_SUFFIX = "_eng"  # the Italian-English test set's files
SUBMISSION_FILES = tuple(f"{part}{suffix}.jsonl" for part in PARTS.values() for suffix in ("", ENGLISH_SUFFIX))


def file_name(task: PairsTask, cross_lingual: bool) -> str:
    return f"{PARTS[task.binary]}{ENGLISH_SUFFIX if cross_lingual else ''}.jsonl"


def _cross(pair: WicPair) -> bool:
    return pair.first.lang != pair.second.lang


def answer_files(task: PairsTask, pairs: Sequence[WicPair], answers: Sequence[float]) -> dict[str, str]:
    """The run folder's files of the organisers' format (name -> text): WiC-ITA's JSONL files of the sets the
    pairs hold, else the lines file. Binary answers are 0/1 decisions."""
    if task.submission != WICITA:
        write = (lambda a: task.same if a else task.different) if task.binary else (lambda a: repr(float(a)))
        return {LINES_FILE: "".join(f"{write(a)}\n" for a in answers)}
    key = "label" if task.binary else "score"
    files: dict[str, list[str]] = {}
    for pair, answer in zip(pairs, answers):
        value = int(answer) if task.binary else float(answer)
        files.setdefault(file_name(task, _cross(pair)), []).append(json.dumps({"id": pair.pair_id, key: value}))
    return {name: "".join(f"{line}\n" for line in lines) for name, lines in files.items()}


def pack(run_dirs: Sequence[Path], out: Path) -> list[str]:
    """WiC-ITA's submission zip from run folders holding its files (a binary and a ranking run): every file found,
    at the zip's root; SensoError when a file is found twice or none at all. Returns the names packed."""
    from senso.core.output import atomic_file, check_output_file

    check_output_file(out, "-o")
    found: dict[str, Path] = {}
    for run_dir in run_dirs:
        for name in SUBMISSION_FILES:
            path = Path(run_dir) / name
            if path.is_file():
                if name in found:
                    raise SensoError(f"{name} is in both {found[name].parent} and {run_dir}: give one run per part")
                found[name] = path
    if not found:
        raise SensoError(f"no WiC-ITA submission file ({', '.join(SUBMISSION_FILES)}) in {', '.join(map(str, run_dirs))}")
    with atomic_file(out, "-o", binary=True) as fh:
        with zipfile.ZipFile(fh, "w", zipfile.ZIP_DEFLATED) as archive:
            for name in SUBMISSION_FILES:
                if name in found:
                    archive.writestr(name, found[name].read_text(encoding="utf-8"))
    return [name for name in SUBMISSION_FILES if name in found]


def _read_member(path: Path, name: str) -> str | None:
    """The text of file `name` in a zip or a folder (None when absent); a .jsonl file given itself is its own."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            return archive.read(name).decode("utf-8") if name in archive.namelist() else None
    if path.is_dir():
        return (path / name).read_text(encoding="utf-8") if (path / name).is_file() else None
    return path.read_text(encoding="utf-8")


def _jsonl_answers(text: str, where: str, key: str) -> dict[str, Any]:
    answers: dict[str, Any] = {}
    for number, line in enumerate((line for line in text.splitlines() if line.strip()), start=1):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(where, f"not a JSON object ({exc.msg})", row=number) from None
        if not isinstance(row, dict) or "id" not in row or key not in row:
            raise DataError(where, f'expected {{"id": ..., "{key}": ...}}, got {line.strip()[:80]}', row=number)
        if str(row["id"]) in answers:
            raise DataError(where, f"id {row['id']!r} is answered twice", row=number, field="id")
        answers[str(row["id"])] = row[key]
    return answers


def _lines_answers(text: str, where: str, pairs: Sequence[WicPair]) -> dict[str, Any]:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) != len(pairs):
        raise DataError(where, f"has {len(lines)} answers, one a line, but the split has {len(pairs)} pairs")
    return {pair.pair_id: line for pair, line in zip(pairs, lines)}


def _binary(value: Any, task: PairsTask, where: str, pair_id: str) -> float:
    text = str(value).strip()
    for same, different in (("1", "0"), (task.same, task.different)):
        if text in (same, different):
            return float(text == same)
    raise DataError(where, f"pair {pair_id}: answer {value!r} is not a label (1/0 or {task.same}/{task.different})")


def _score(value: Any, where: str, pair_id: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise DataError(where, f"pair {pair_id}: answer {value!r} is not a number") from None
    return number


@dataclass
class SubmittedAnswers(Configurable):
    """A file of answers (WiC-ITA's zip, a folder of its files, one .jsonl file, or one answer a line) read as a
    system's: a binary task's labels are its P(same) (0 or 1), a graded task's scores its relatedness."""

    file: Path | None = param(None, "The file of answers: a WiC-ITA submission zip or folder, a .jsonl file of "
                                    "{id, label|score}, or one answer a line in the data's order.")
    task: Any = field(default=None, init=False, repr=False)  # the run's PairsTask, given when built

    def _answers(self, pairs: Sequence[WicPair]) -> dict[str, Any]:
        if self.file is None or not Path(self.file).exists():
            raise SensoError(f"the submission system reads a file of answers: --set file=PATH ({self.file} is not "
                             "there)" if self.file else "the submission system reads a file of answers: --set file=PATH")
        path, key = Path(self.file), "label" if self.task.binary else "score"
        if self.task.submission != WICITA and not (path.suffix == ".jsonl" or zipfile.is_zipfile(path) or path.is_dir()):
            return _lines_answers(path.read_text(encoding="utf-8"), str(path), pairs)
        answers: dict[str, Any] = {}
        for cross in sorted({_cross(p) for p in pairs}):
            name = file_name(self.task, cross)
            text = _read_member(path, name)
            if text is None:
                raise SensoError(f"{path}: no {name}, which holds the answers to the split's "
                                 f"{'Italian-English' if cross else 'monolingual'} pairs")
            where = str(path) if path.suffix == ".jsonl" else f"{path}, {name}"
            answers.update(_jsonl_answers(text, where, key))
        return answers

    def _values(self, pairs: Sequence[WicPair]) -> list[Any]:
        answers = self._answers(pairs)
        missing = [p.pair_id for p in pairs if p.pair_id not in answers]
        if missing:
            raise SensoError(f"{self.file}: {len(missing)} pair(s) of the split have no answer ({', '.join(missing[:5])})")
        unknown = sorted(set(answers) - {p.pair_id for p in pairs})
        if unknown:
            raise SensoError(f"{self.file}: {len(unknown)} answer(s) name no pair of the split ({', '.join(unknown[:5])})")
        return [answers[p.pair_id] for p in pairs]

    def judge(self, pairs: list[WicPair]) -> list[float]:
        return [_binary(v, self.task, str(self.file), p.pair_id) for v, p in zip(self._values(pairs), pairs)]

    def relate(self, pairs: list[WicPair]) -> list[float]:
        return [_score(v, str(self.file), p.pair_id) for v, p in zip(self._values(pairs), pairs)]

    def describe(self) -> dict:
        return {"file": str(self.file)}


def _with_task(configured: SubmittedAnswers, context: WicContext) -> SubmittedAnswers:
    configured.task = context.task
    return configured


SUBMITTED = WicSystem("submission", "a file of answers (WiC-ITA's submission zip, WiC's T/F lines; --set file=PATH): "
                                    "what `senso score TASK FILE` runs", SubmittedAnswers, build=_with_task)
