"""The README stays a five-minute read and every relative link in it and in docs/ resolves (file and #anchor), as
does every file of the repository named in prose (`docs/protocols.md`, `tests/test_docs.py` in a doc, a docstring
or a comment); no internal work-item numbers in the docs or the code's comments."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
README_MAX_LINES = 250
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
# A path from the repository's root named in text; an upper-case name (`benchmarks/X.py`, `benchmarks/SCRIPT`)
# stands for any file there.
NAMED_PATH = re.compile(r"(?<![\w./-])((?:docs|tests|benchmarks|scripts|src|\.ci)/[\w./-]*\w)")
PLACEHOLDER = re.compile(r"/[A-Z_]+(\.\w+)?$")
WORK_ITEM = re.compile(r"(?<![&\w'])#\d{1,3}\b(?![;'])|\b[Ii]ssues? #?\d+\b")


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    found = {slug(m.group(1)) for m in re.finditer(r"^#+ (.+)$", text, flags=re.M)}
    return found | set(re.findall(r'<a id="([^"]+)"', text))


def links(path: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)  # code blocks hold no links
    return [target for target in LINK.findall(text) if not re.match(r"[a-z]+:", target)]


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_relative_links_resolve(path):
    broken = []
    for target in links(path):
        file, _, anchor = target.partition("#")
        resolved = (path.parent / file).resolve() if file else path
        if not resolved.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{target} (no such heading)")
    assert not broken, f"{path.relative_to(REPO)}: {', '.join(broken)}"


def prose_sources() -> list[Path]:
    return [*DOCS, *(REPO / "src").rglob("*.py"), *(REPO / "benchmarks").glob("*.py"), *(REPO / "tests").rglob("*.py"),
            REPO / "Makefile", REPO / ".ci" / "run"]


def test_files_named_in_prose_exist():
    missing = []
    for path in prose_sources():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for named in NAMED_PATH.findall(line):
                if not PLACEHOLDER.search(named) and not (REPO / named).exists():
                    missing.append(f"{path.relative_to(REPO)}:{number} names {named}")
    assert not missing, "no such file: " + "; ".join(missing)


def test_readme_is_a_five_minute_read():
    lines = (REPO / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; move detail to docs/"


def test_no_work_item_numbers_in_docs_or_comments():
    found = []
    for path in prose_sources():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if WORK_ITEM.search(line) and "WORK_ITEM" not in line:
                found.append(f"{path.relative_to(REPO)}:{number}")
    assert not found, f"internal work-item numbers: {', '.join(found[:10])}"
