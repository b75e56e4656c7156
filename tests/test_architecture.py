"""The house rules: imports only go down the layers (import-linter's contracts in pyproject.toml), and no
import cycle at any depth: between modules, and between the packages of every level (senso.admire,
senso.admire.systems, ...)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib
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


def shared_layers() -> set[str]:
    """The top-level packages and modules of the main layers contract (pyproject.toml): every one but the wings."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    [main] = [c for c in config["tool"]["importlinter"]["contracts"] if c.get("containers") is None]
    return {name.strip() for layer in main["layers"] for name in layer.split("|")}


def wings() -> set[str]:
    """The family folders: every package of senso that is no shared layer (a new one is one as soon as it exists)."""
    shared = shared_layers()
    return {f"senso.{path.parent.name}" for path in (SRC / "senso").glob("*/__init__.py")} - shared


def wing_of(module: str) -> str:
    return ".".join(module.split(".")[:2])


def test_a_wing_imports_only_core_and_backends_and_no_other_module_imports_a_wing():
    """The wings' layer of the main contract, found rather than listed: a wing (any folder of senso that is no
    shared layer) imports only senso.core, senso.backends and itself, and nothing outside it imports it."""
    found, offending = wings(), []
    for module, targets in module_imports().items():
        for target in targets:
            inside, to = wing_of(module) in found, wing_of(target)
            allowed = (to in ("senso.core", "senso.backends", wing_of(module))) if inside else to not in found
            if not allowed:
                offending.append(f"{module} imports {target}")
    assert {"senso.likert", "senso.admire"} <= found and "senso.core" not in found
    assert not offending, "\n".join(offending)


def module_name(path: Path) -> tuple[str, bool]:
    """The dotted name of a module file under src/, and whether it is a package's __init__."""
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    return ".".join(parts[:-1] if is_package else parts), is_package


def imported(node: ast.AST, name: str, is_package: bool, modules: set[str]) -> list[str]:
    """What one import statement of module `name` imports: `from pkg import mod` is the module pkg.mod (pkg's
    __init__ runs for any import of its modules, so it is no edge of its own); `from mod import name`, mod."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = name.split(".") if is_package else name.split(".")[:-1]
    if node.level:
        base = base[: len(base) - node.level + 1]
        module = ".".join(base + ([node.module] if node.module else []))
    else:
        module = node.module or ""
    submodules = [f"{module}.{alias.name}" for alias in node.names if f"{module}.{alias.name}" in modules]
    others = len(submodules) < len(node.names)
    return submodules + ([module] if others else [])


def module_imports() -> dict[str, set[str]]:
    """Every senso module and the senso modules it imports (lazy imports inside functions included)."""
    files = {path: module_name(path) for path in (SRC / "senso").rglob("*.py")}
    modules = {name for name, _ in files.values()}
    graph: dict[str, set[str]] = {}
    for path, (name, is_package) in files.items():
        targets = {t for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                   for t in imported(node, name, is_package, modules)}
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def first_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of the graph (its nodes, the first repeated at the end), or None."""
    seen: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> list[str] | None:
        seen[node] = 1
        for nxt in sorted(edges.get(node, ())):
            if seen.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in seen and (cycle := visit(nxt, path + [nxt])):
                return cycle
        seen[node] = 2
        return None

    for start in sorted(edges):
        if start not in seen and (cycle := visit(start, [start])):
            return cycle
    return None


def test_no_import_cycle_between_modules():
    """A module never imports, through any chain of imports (lazy ones included), a module that imports it."""
    cycle = first_cycle(module_imports())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_finder_finds_a_lazy_circle_inside_a_package():
    """The finder itself: three modules of one package, the circle closed by an import inside a function."""
    sources = {"senso.w.a": "from senso.w import b\n", "senso.w.b": "from senso.w.c import f\n",
               "senso.w.c": "def f():\n    from senso.w.a import g\n", "senso.w": "from senso.w import a\n"}
    modules = set(sources)
    graph = {name: {t for node in ast.walk(ast.parse(text)) for t in imported(node, name, name == "senso.w", modules)
                    if t in modules and t != name} for name, text in sources.items()}
    assert first_cycle(graph) == ["senso.w.a", "senso.w.b", "senso.w.c", "senso.w.a"]
    del graph["senso.w.c"]
    assert first_cycle(graph) is None


def package_of(module: str, depth: int) -> str:
    return ".".join(module.split(".")[: depth + 1])


DEPTHS = range(1, max(name.count(".") for name in module_imports()) + 1)


@pytest.mark.parametrize("depth", DEPTHS)
def test_no_import_cycle_between_packages(depth):
    """depth 1: senso.core, senso.backends, senso.likert, ...; depth 2: senso.admire.systems, senso.admire.ranking,
    ...; and so on to the deepest package: no circle between the packages (or modules) of one level."""
    edges: dict[str, set[str]] = defaultdict(set)
    for module, targets in module_imports().items():
        for target in targets:
            a, b = package_of(module, depth), package_of(target, depth)
            if a != b and not b.startswith(a + ".") and not a.startswith(b + "."):
                edges[a].add(b)
    cycle = first_cycle(edges)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)
