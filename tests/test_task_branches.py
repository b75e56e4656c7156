"""A family is one folder plus one row in the table of tasks: no module outside `src/senso/<family>/` and the
table (`senso/catalog.py`) holds a task's name, a family's or a record kind's as a string of its own (the
literal a branch on a task would compare with: `task == "admire-a"`, `kind == "likert"`,
`startswith("admire-")`, `{"likert": ...}`), nor a family's option or flag, a sample field only a family writes
(its tasks' item, gold and group keys) or the prefix of a family's warning; and none imports a family (the table
imports each family's `family` module, its row, and nothing else of it). Strings that only mention a task in a
longer text (help, messages, examples) are not branches and are not counted."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import fields
from pathlib import Path

import senso
from senso.catalog import all_tasks, families
from senso.core.options import PANELS, RUN_FIELDS, run_fields

SRC = Path(senso.__file__).resolve().parent
TABLE = SRC / "catalog.py"


# The same word in another sense: a transformers tokenizer's attribute, read by the backend that applies it.
OTHER_SENSE = {("backends/hf.py", "chat_template"), ("backends/fast_tokenizer.py", "chat_template")}
WARNING_PREFIX = re.compile(r"^([A-Z][A-Z ]*[A-Z]):")  # "NO WORDNET: ..." (a family's warning, by its prefix)


def family_folders() -> set[Path]:
    return {SRC / family.name for family in families()}


def branch_literals() -> set[str]:
    """Every task name, family and record kind, and the prefixes a branch on a family's names would test."""
    names = {task.name for task in all_tasks() if task.file_kind is None}
    literals = names | {task.family.name for task in all_tasks()} | {task.kind for task in all_tasks()}
    return literals | {name.split("-")[0] + "-" for name in names} | {name.split("-")[0] for name in names}


def family_markers() -> set[str]:
    """What only a family knows: its own options (name and flag), its system flags, the sample fields its tasks
    key, check and group items by (those every task has by default are common), and its warnings' prefixes."""
    common = set(RUN_FIELDS) | {f.flag for f in RUN_FIELDS.values()} | {"id", "gold"} | set(PANELS)  # the core's
    markers: set[str] = set()
    for family in families():
        if family.options is not None:
            markers |= {name for name in run_fields(family.options)} | {f.flag for f in run_fields(family.options).values()}
        markers |= {p.name for p in family.flags()} | {p.flag for p in family.flags()}
        if family.scoring is not None:  # its own `senso score` flags
            markers |= {f.name for f in fields(family.scoring.flags)} | {f.metadata["flag"] for f in fields(family.scoring.flags)}
    for task in all_tasks():
        keys = (task.item_key,) if isinstance(task.item_key, str) else task.item_key
        markers |= {*keys, *task.family.gold_keys, *task.group_keys}
    return (markers - common) | warning_prefixes()


def warning_prefixes() -> set[str]:
    """The prefix of every warning a family's modules spell out ("NO WORDNET:")."""
    prefixes = set()
    for folder in family_folders():
        for path in folder.rglob("*.py"):
            prefixes |= {m.group(0) for _, value in string_literals(path) if (m := WARNING_PREFIX.match(value))}
    return prefixes


def string_literals(path: Path) -> list[tuple[int, str]]:
    """Every plain string literal of a module (f-strings are messages), with its line."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if token.type == tokenize.STRING and not token.string.lstrip("rbuRBU").startswith(("f'", 'f"')):
            try:
                value = ast.literal_eval(token.string)
            except (ValueError, SyntaxError):
                continue
            if isinstance(value, str):
                found.append((token.start[0], value))
    return found


def literals_in(path: Path) -> list[tuple[int, str]]:
    return [(line, value) for line, value in string_literals(path) if value in branch_literals()]


def markers_in(path: Path, markers: set[str]) -> list[tuple[int, str]]:
    """A family's option, flag or field as a string of its own, or a literal opening with its warning's prefix."""
    return [(line, value) for line, value in string_literals(path)
            if value in markers or any(value.startswith(m) for m in markers if m.endswith(":"))]


def family_imports(path: Path) -> list[tuple[int, str]]:
    """The family modules `path` imports (none, the table of tasks included: it finds the families through their
    entry points)."""
    packages = {f"senso.{family.name}" for family in families()}
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else (
            [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        for name in names:
            package = next((p for p in packages if name == p or name.startswith(p + ".")), None)
            if package is not None:
                found.append((node.lineno, name))
    return found


def outside_families(table: bool = False) -> list[Path]:
    folders = family_folders()
    return [path for path in sorted(SRC.rglob("*.py"))
            if (table or path != TABLE) and not any(folder in path.parents for folder in folders)]


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


def test_the_markers_cover_options_flags_fields_and_warnings():
    markers = family_markers()
    assert {"caption_lang", "--caption-lang", "sense", "--meaning", "compound", "gold_mean",
            "domain", "NO WORDNET:", "--lmeval-samples", "lmeval_results", "--allow-partial"} <= markers
    # common: declared once in the core (the prompted-choice protocol's options too)
    assert not {"split", "--split", "lang", "gold", "id", "limit", "protocol", "--shots", "chat_template"} & markers


def test_no_shared_module_names_a_familys_option_field_or_warning():
    markers = family_markers()
    offending = [f"{path.relative_to(SRC)}:{line}: {value!r}" for path in outside_families(table=True)
                 for line, value in markers_in(path, markers) if (str(path.relative_to(SRC)), value) not in OTHER_SENSE]
    assert not offending, "a family's option, field or warning named outside its folder:\n" + "\n".join(offending)


def test_no_shared_module_imports_a_family():
    offending = [f"{path.relative_to(SRC)}:{line}: import {name}" for path in outside_families(table=True)
                 for line, name in family_imports(path)]
    assert not offending, "a family imported outside its folder:\n" + "\n".join(offending)


def planted(tmp_path: Path, source: str) -> Path:
    """A module planted for a scan to find what it holds."""
    module = tmp_path / "planted.py"
    module.write_text(source, encoding="utf-8")
    return module


def test_the_scan_finds_a_planted_marker_and_import(tmp_path):
    """The scan is not blind: an option, a field, a warning prefix and an import of a family are each caught."""
    module = planted(tmp_path, 'from senso.admire.systems.parts import FLAGGED\n'
                               'def pick(options, sample, warning):\n'
                               '    if options.system_options.get("sense") or sample["gold_mean"] > 3:\n'
                               '        return warning.startswith("NO WORDNET: no database")\n')
    assert [value for _, value in markers_in(module, family_markers())] == ["sense", "gold_mean", "NO WORDNET: no database"]
    assert [name for _, name in family_imports(module)] == ["senso.admire.systems.parts"]


# Reads of a declared option by its name as a string (`values["limit"]`, `given.get("sense")`,
# `getattr(options, "lang")`) bypass its declaration; the systems' own folders are another change's.
SETTINGS = {"values", "given", "options", "system_options", "params", "settings", "model_args", "kwargs"}
SYSTEMS_FOLDERS = ("admire/systems", "likert/systems")


def declared_names() -> set[str]:
    """Every option a run, a family, a system or `senso score` declares, by name."""
    names = set(RUN_FIELDS)
    for family in families():
        names |= set(run_fields(family.options)) if family.options is not None else set()
        names |= {p.name for p in family.flags()}
        names |= {f.name for f in fields(family.scoring.flags)} if family.scoring is not None else set()
    for task in all_tasks():
        names |= {name for entry in task.systems() if entry.options is not None for name in entry.options.names}
    return names


def _receiver(node: ast.AST) -> str | None:
    """The last name of an expression (`context.params` -> "params")."""
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None


def _named(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def string_reads(path: Path, names: set[str]) -> list[tuple[int, str]]:
    """`settings["name"]`, `settings.get("name")`, `settings.pop("name")`, `getattr(settings, "name")` of a declared
    name, where `settings` is one of SETTINGS."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        read = None
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and _receiver(node.value) in SETTINGS:
            read = _named(node.slice)
        elif isinstance(node, ast.Call) and node.args:
            function = node.func
            if isinstance(function, ast.Attribute) and function.attr in ("get", "pop") and _receiver(function.value) in SETTINGS:
                read = _named(node.args[0])
            elif isinstance(function, ast.Name) and function.id == "getattr" and len(node.args) > 1 \
                    and _receiver(node.args[0]) in SETTINGS:
                read = _named(node.args[1])
        if read in names:
            found.append((node.lineno, read))
    return found


def test_no_declared_option_is_read_by_its_name_as_a_string():
    names = declared_names()
    offending = [f"{path.relative_to(SRC)}:{line}: {name!r}" for path in sorted(SRC.rglob("*.py"))
                 if not str(path.relative_to(SRC)).startswith(SYSTEMS_FOLDERS) for line, name in string_reads(path, names)]
    assert not offending, "a declared option read by its name as a string:\n" + "\n".join(offending)


def test_the_scan_finds_a_planted_read(tmp_path):
    module = planted(tmp_path, 'def pick(values, context, options, record):\n'
                               '    a = values["limit"] or context.params.get("hedge")\n'
                               '    b = getattr(options, "lang") or options.system_options.pop("sense", None)\n'
                               '    return record["limit"], values["not-declared"]\n')
    assert [name for _, name in string_reads(module, declared_names())] == ["limit", "hedge", "lang", "sense"]
