"""Functions stay short: the longest function or method anywhere in the repository (src/senso, the tests, scripts
and benchmarks) is under 80 lines (the house aims for 60)."""

from __future__ import annotations

import ast
from pathlib import Path

import senso

SRC = Path(senso.__file__).resolve().parent
REPO = Path(__file__).resolve().parents[1]
ROOTS = (SRC, REPO / "tests", REPO / "scripts", REPO / "benchmarks")
LIMIT = 80


def function_lengths(path: Path) -> list[tuple[int, str, int]]:
    """(lines, name, first line) of every function and method defined in `path`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(node.end_lineno - node.lineno + 1, node.name, node.lineno) for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]


def test_no_function_reaches_the_limit():
    paths = sorted({path for root in ROOTS for path in root.rglob("*.py")})
    long = [f"{path}:{line} {name} ({length} lines)" for path in paths
            for length, name, line in function_lengths(path) if length >= LIMIT]
    assert len(paths) > 200, f"only {len(paths)} modules found under {', '.join(map(str, ROOTS))}"
    assert not long, f"functions of {LIMIT} lines or more:\n" + "\n".join(long)


def test_the_measure_counts_a_long_function(tmp_path):
    module = tmp_path / "long.py"
    module.write_text("def f():\n" + "    x = 1\n" * 90, encoding="utf-8")
    assert function_lengths(module) == [(91, "f", 1)]
