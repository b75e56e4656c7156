"""`senso systems NAME` for every name `senso systems` lists: a system prints its options, a part (a sense, a
meaning, a ranker, an aggregator, an embedder) what it is and which systems use it; any other name is unknown."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from senso.api import systems
from senso.catalog import families
from senso.cli import app

PARTS = [(family.called, kind, name, summary) for family in families() for kind, name, summary in family.catalog()
         if name not in {s.name for s in systems()}]


def _systems(name: str):
    """(exit code, what it printed or the error it raised, on one line)."""
    result = CliRunner().invoke(app, ["systems", name], terminal_width=200, env={"COLUMNS": "200"})
    said = result.output if result.exception is None else str(result.exception)
    return result.exit_code, " ".join(said.split())


def test_the_table_lists_the_parts_this_test_walks():
    assert len(PARTS) >= 28
    assert {"context-similarity", "wordnet", "structure", "borda", "e5-f64", "st:NAME"} <= {p[2] for p in PARTS}


@pytest.mark.parametrize("family, kind, name, summary", PARTS, ids=[p[2] for p in PARTS])
def test_every_part_says_what_it_is_and_who_uses_it(family, kind, name, summary):
    code, output = _systems(name)
    assert code == 0, output
    assert output.startswith(f"{name}: {kind}, a part of {family} systems")
    assert " ".join(summary.split()) in output
    assert "Used by: " in output, output


@pytest.mark.parametrize("name, users", [
    ("context-similarity", ["sense-pipeline (admire-a; its default)", "fitted-pipeline (admire-a)",
                            "sense-classifier (admire-sense; its default)"]),
    ("learned", ["fitted-pipeline (admire-a; its default)", "sense-pipeline (admire-a)"]),
    ("borda", ["ensemble (admire-a; its default)"]),
    ("image", ["sense-pipeline (admire-a)"]),
    ("e5-f64", ["caption-similarity (admire-a; its default)", "sequence-continuation (admire-b; its default)"]),
])
def test_a_part_names_the_systems_that_use_it(name, users):
    code, output = _systems(name)
    assert code == 0 and all(user in output for user in users), output


def test_a_name_that_is_neither_is_unknown():
    code, output = _systems("context-similarty")
    assert code != 0 and "unknown system or part 'context-similarty'; `senso systems` lists them" in output
