"""`senso score`: files of a system's answers (a submission, a harness's logged answers) scored as a run, the way
the task's family says (`Family.scoring`: its own flags, registered with the family, the run's options, what
`--json` prints). The command holds only what every family's scoring shares: the task, a file, `--json`,
`--seed`, `--data-dir` and `--out`."""

from __future__ import annotations

import dataclasses
import inspect
import typing
from pathlib import Path
from typing import Any, Optional

import typer

from senso.catalog import all_tasks, families, task_for
from senso.cli.app import DATA_DIR_HELP, LiveCommand, app, out
from senso.cli.run import _print_placements, _show_result
from senso.core.errors import SensoError
from senso.core.task import Family, FileScoring, Task

FILE = "FILE"  # the positional file, as a scoring's `needs` and messages name it
JSON = "--json"


def _scorings() -> list[tuple[Family, FileScoring]]:
    return [(family, family.scoring) for family in families() if family.scoring is not None]


def _scored(family: Family, scoring: FileScoring) -> list[Task]:
    """The tasks of `family` that `scoring` scores."""
    return [task for task in all_tasks() if task.family is family and scoring.serves(task)]


def _called(tasks: list[Task]) -> str:
    return ", ".join(task.called or task.name for task in tasks)


def _flags(scoring: FileScoring) -> list[tuple[dataclasses.Field, Any]]:
    """The fields of a scoring's flags dataclass, with their types."""
    hints = typing.get_type_hints(scoring.flags)
    return [(spec, hints[spec.name]) for spec in dataclasses.fields(scoring.flags)]


def _score_parameters() -> list[inspect.Parameter]:
    """`senso score`'s options: the task, a file and the common flags, and each family's own (`FileScoring.flags`)."""
    keyword, scorings = inspect.Parameter.KEYWORD_ONLY, _scorings()

    def param(name: str, annotation: Any, default: Any) -> inspect.Parameter:
        return inspect.Parameter(name, keyword, annotation=annotation, default=default)

    task_help = "; ".join(f"{_called(_scored(f, s))} (with {' and '.join(s.needs)})" for f, s in scorings)
    file_help = " ".join(s.file_help for _, s in scorings if s.file_help)
    params = [param("task", str, typer.Argument(..., help=task_help)),
              param("file", Optional[Path], typer.Argument(None, help=file_help))]
    for _, scoring in scorings:
        params += [param(spec.name, hint, typer.Option(spec.default, spec.metadata["flag"], help=spec.metadata["help"]))
                   for spec, hint in _flags(scoring)]
    return params + [
        param("as_json", bool, typer.Option(False, JSON, help="Print the report as JSON.")),
        param("seed", int, typer.Option(0, "--seed", help="Bootstrap seed.")),
        param("data_dir", Optional[Path], typer.Option(None, "--data-dir", help=DATA_DIR_HELP)),
        param("out_dir", Optional[Path], typer.Option(None, "--out", help="The run folder to write (default "
                                                      "runs/<time>-<task>-<system>/).")),
    ]


def _score_doc() -> str:
    return "Score " + "; or ".join(s.help for _, s in _scorings()) + ": a senso run folder."


def _given(scoring: FileScoring, values: dict[str, Any]) -> list[str]:
    """The flags of `scoring` given a value other than their default."""
    return [spec.metadata["flag"] for spec, _ in _flags(scoring) if values[spec.name] != spec.default]


def _refuse_others(task: str, own: FileScoring | None, file: Path | None, values: dict[str, Any]) -> None:
    """SensoError when the task scores no file, when a flag that leads another family's scoring is given while
    the task's own scoring lacks what it needs (the answers are of another kind), or when it lacks it."""
    given = {FILE} if file is not None else set()
    lacking = own is None or any(need not in given | set(_given(own, values)) for need in own.needs)
    for family, scoring in _scorings():
        lead = [flag for flag in _given(scoring, values) if flag in scoring.needs]
        if scoring is not own and lacking and lead:
            raise SensoError(f"{lead[0]} is for {family.called} tasks ({_called(_scored(family, scoring))}), not {task}")
    if own is None:
        scored = [t.called or t.name for f, s in _scorings() for t in _scored(f, s)]
        raise SensoError(f"senso score: {task} scores no file of answers; {', '.join(scored)} do")
    if lacking:
        raise SensoError(own.missing.format(task=task))


def _refuse_foreign(own: FileScoring, file: Path | None, as_json: bool, values: dict[str, Any]) -> None:
    """SensoError naming what was given beside the task's own scoring that only other scorings read (a FILE,
    `--json`, their flags), and whose they are."""
    def reads(scoring: FileScoring) -> list[str]:
        return [*([FILE] if scoring.file_help else []), *_given(scoring, values), *([JSON] if scoring.to_json else [])]

    given = [*([FILE] if file is not None else []), *(f for _, s in _scorings() if s is not own for f in _given(s, values)),
             *([JSON] if as_json else [])]
    foreign = [flag for flag in given if flag not in reads(own)]
    if foreign:
        owners = [f"{family.called} {scoring.noun}" for family, scoring in _scorings()
                  if scoring is not own and set(reads(scoring)) & set(foreign)]
        one = len(foreign) == 1
        whose = f"of {' or '.join(owners)} scoring" if owners else "that no scoring reads"
        raise SensoError(f"{', '.join(foreign)} {'is an option' if one else 'are options'} {whose}; leave "
                         f"{'it' if one else 'them'} out with {' and '.join(own.needs)}")


def _score(task: str, file: Optional[Path], as_json: bool, seed: int, data_dir: Optional[Path],
           out_dir: Optional[Path], **values: Any) -> None:
    """A file of a system's answers scored the way the task's family says (`Family.scoring`), written as any run."""
    from senso.api import Job, evaluate_many
    from senso.catalog import RunOptions
    from senso.core.records import default_run_dir
    from senso.reporting import write_report

    entry = task_for(task)
    own = entry.family.scoring if entry.family.scoring is not None and entry.family.scoring.serves(entry) else None
    _refuse_others(task, own, file, values)
    _refuse_foreign(own, file, as_json, values)
    flags = own.flags(**{spec.name: values[spec.name] for spec, _ in _flags(own)})
    options = RunOptions(task=task, data_dir=data_dir, out=out_dir, seed=seed, no_cache=True,
                         **own.options(task, file, flags))
    [result] = evaluate_many([Job(entry, options)], out=lambda plan: default_run_dir(plan.task, plan.system),
                             on_result=None if as_json else _show_result)  # --json: stdout holds the JSON alone
    if as_json:
        out.print_json(data=own.to_json(result, file, flags))
    elif own.page:
        out.print(f"report: {write_report([result.run_dir])}", soft_wrap=True)
        _print_placements([result.run_dir])


score = app.command("score")(LiveCommand(_score, _score_parameters, _score_doc))
