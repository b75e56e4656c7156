"""A family is one folder plus one row in the table of tasks: no module outside `src/senso/<family>/` and the
table (`senso/catalog.py`) holds a task's name, a family's or a record kind's as a string of its own (the
literal a branch on a task would compare with: `task == "admire-a"`, `kind == "likert"`,
`startswith("admire-")`, `{"likert": ...}`). Strings that only mention a task in a longer text (help, messages,
examples) are not branches and are not counted."""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

import senso
from senso.catalog import all_tasks

SRC = Path(senso.__file__).resolve().parent
TABLE = SRC / "catalog.py"


def family_folders() -> set[Path]:
    return {SRC / task.family for task in all_tasks()}


def branch_literals() -> set[str]:
    """Every task name, family and record kind, and the prefixes a branch on a family's names would test."""
    names = {task.name for task in all_tasks() if task.file_kind is None}
    literals = names | {task.family for task in all_tasks()} | {task.kind for task in all_tasks()}
    return literals | {name.split("-")[0] + "-" for name in names} | {name.split("-")[0] for name in names}


def literals_in(path: Path) -> list[tuple[int, str]]:
    found = []
    for token in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if token.type == tokenize.STRING and not token.string.lstrip("rbuRBU").startswith(("f'", 'f"')):
            try:
                value = ast.literal_eval(token.string)
            except (ValueError, SyntaxError):
                continue
            if isinstance(value, str) and value in branch_literals():
                found.append((token.start[0], value))
    return found


def outside_families() -> list[Path]:
    folders = family_folders()
    return [path for path in sorted(SRC.rglob("*.py"))
            if path != TABLE and not any(folder in path.parents for folder in folders)]


def test_the_literals_cover_every_task_family_and_kind():
    literals = branch_literals()
    assert {"abricot-abs", "abricot-inc", "admire-a", "admire-b", "admire-sense", "likert", "admire",
            "admire-", "abricot-"} <= literals


def test_no_task_or_family_branch_outside_the_family_folders_and_the_table():
    offending = [f"{path.relative_to(SRC)}:{line}: {value!r}" for path in outside_families()
                 for line, value in literals_in(path)]
    assert not offending, "task or family literals outside the family folders and senso/catalog.py:\n" + "\n".join(offending)


def test_the_check_finds_a_branch(tmp_path):
    """The scan is not blind: a module that branches on a task's name or family is caught."""
    module = tmp_path / "branchy.py"
    module.write_text('def pick(task):\n    if task.startswith("admire-"):\n        return 1\n'
                      '    return {"likert": 2}.get(task.family, 3)\n', encoding="utf-8")
    assert [value for _, value in literals_in(module)] == ["admire-", "likert"]
