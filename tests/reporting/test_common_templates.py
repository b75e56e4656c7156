"""The common templates (reporting/templates) hold no family's matter: they read a run's results.json only by the
keys every run records (the evaluation loop's `RunRecord`), and their stylesheet names no class a family's
section alone uses (a family's CSS is its `Section.styles`)."""

from __future__ import annotations

import re
from pathlib import Path

from senso.core.records import RunRecord

TEMPLATES = Path(__file__).resolve().parents[2] / "src" / "senso" / "reporting" / "templates"
# what a family's page draws: its templates, and the HTML its page module writes itself
FAMILY_TEMPLATES = [path for pattern in ("*/templates/*.j2", "*/page.py") for path in TEMPLATES.parents[1].glob(pattern)
                    if path.parent != TEMPLATES and path.parent.name != "reporting"]


def results_keys(text: str) -> set[str]:
    """The keys a template reads of a run's results (`results.get("KEY")`, `results["KEY"]`)."""
    return set(re.findall(r"""results(?:\.get\(|\[)["']([A-Za-z_]+)["']""", text))


def common_keys() -> set[str]:
    record = RunRecord(task="t", system="s", n=0, metrics={}, config={})
    return set(record.to_json())


def test_the_scan_finds_a_familys_key():
    assert results_keys('{{ run.results.get("protocol") or run.results["track"] }}') == {"protocol", "track"}


def test_the_common_templates_read_only_what_every_run_records():
    read = {path.name: results_keys(path.read_text(encoding="utf-8")) - common_keys() for path in TEMPLATES.glob("*.j2")}
    assert not any(read.values()), read


def classes(text: str) -> set[str]:
    """The literal class names of a template's elements (not those a jinja expression makes)."""
    return {name for value in re.findall(r'class="([^"]*)"', text) for name in value.split()
            if re.fullmatch(r"[A-Za-z][\w-]*", name)}


def test_the_common_stylesheet_styles_no_class_that_one_family_alone_uses():
    common = set().union(*(classes(path.read_text(encoding="utf-8")) for path in TEMPLATES.glob("*.j2")))
    by_family: dict[str, set[str]] = {}
    for path in FAMILY_TEMPLATES:
        by_family.setdefault(path.relative_to(TEMPLATES.parents[1]).parts[0], set()).update(classes(path.read_text(encoding="utf-8")))
    shared = {name for a in by_family for b in by_family if a < b for name in by_family[a] & by_family[b]}
    own = set().union(*by_family.values()) - common - shared
    styled = set(re.findall(r"\.([A-Za-z][\w-]*)", (TEMPLATES / "base.html.j2").read_text(encoding="utf-8")))
    assert {"compound", "strip"} <= own and not own & styled, sorted(own & styled)
