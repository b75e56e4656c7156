"""The house rules: imports only go down the layers (import-linter's contracts in pyproject.toml), and no
import cycle between senso's packages."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"


def lint_imports_command() -> list[str]:
    found = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    if not Path(found).exists():
        pytest.fail("lint-imports is not installed: pip install -e '.[test]' (import-linter is in the test extra)")
    return [found, "--config", str(REPO / "pyproject.toml")]


def test_lint_imports_keeps_every_contract():
    done = subprocess.run(lint_imports_command(), cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout, done.stdout


def module_imports() -> dict[str, set[str]]:
    """Every senso module and the senso modules it imports (lazy imports inside functions included)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for path in (SRC / "senso").rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        name = ".".join(parts)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = parts if is_package else parts[:-1]
                if node.level:
                    base = base[: len(base) - node.level + 1]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                targets = [module] + [f"{module}.{a.name}" for a in node.names]
            else:
                continue
            graph[name].update(t for t in targets if t.startswith("senso"))
        graph.setdefault(name, set())
    modules = set(graph)
    return {m: {t for t in ts if t in modules and t != m} for m, ts in graph.items()}


def package_of(module: str, depth: int) -> str:
    return ".".join(module.split(".")[: depth + 1])


@pytest.mark.parametrize("depth", [1, 2])
def test_no_import_cycle_between_packages(depth):
    """depth 1: senso.core, senso.backends, senso.likert, ...; depth 2: senso.admire.systems, senso.admire.ranking, ..."""
    edges: dict[str, set[str]] = defaultdict(set)
    for module, targets in module_imports().items():
        for target in targets:
            a, b = package_of(module, depth), package_of(target, depth)
            if a != b and not b.startswith(a + ".") and not a.startswith(b + "."):
                edges[a].add(b)
    seen: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        seen[node] = 1
        for nxt in sorted(edges.get(node, ())):
            if seen.get(nxt) == 1:
                cycle = path[path.index(nxt):] + [nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in seen:
                visit(nxt, path + [nxt])
        seen[node] = 2

    for start in sorted(edges):
        if start not in seen:
            visit(start, [start])
