"""The jinja2 environment of the report pages (templates shipped in senso/reporting/templates; a family's section
imports its own macros as `PACKAGE:FILE`)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import jinja2

from senso.core.tables import p_value_text


def _fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _estimate(estimate: dict | None, digits: int = 3) -> Any:
    """An {"value", "ci_low", "ci_high"} or {"value": None, "reason"} dict as HTML."""
    from markupsafe import Markup, escape

    if not estimate:
        return Markup('<span class="na">—</span>')
    if estimate.get("value") is None:
        reason = estimate.get("reason") or "no value"
        return Markup('<span class="undefined" title="{0}">undefined</span><div class="reason">{0}</div>').format(reason)
    text = Markup('<span class="value">{}</span>').format(f"{estimate['value']:.{digits}f}")
    if estimate.get("ci_low") is not None and estimate.get("ci_high") is not None:
        text += Markup(' <span class="ci">[{}, {}]</span>').format(
            f"{estimate['ci_low']:.{digits}f}", f"{estimate['ci_high']:.{digits}f}")
    return text + (Markup('<div class="reason">{}</div>').format(escape(estimate["reason"]))
                   if estimate.get("reason") else Markup(""))


def _shade(count: int, total: int, hue: str = "76, 114, 176") -> str:
    """CSS background for a heat-map cell: opacity by share of the row."""
    share = count / total if total else 0.0
    return f"background: rgba({hue}, {0.08 + 0.85 * share:.3f}); color: {'#fff' if share > 0.55 else '#222'}"


def _package_template(name: str) -> str | None:
    """A template a family's section imports by `PACKAGE:FILE` (its package's templates/FILE); None for any other
    name (the common templates' loader has it)."""
    from importlib import resources

    package, _, file = name.partition(":")
    if not file:
        return None
    try:
        return resources.files(package).joinpath("templates", file).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        return None


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader([jinja2.PackageLoader("senso.reporting", "templates"),
                                    jinja2.FunctionLoader(_package_template)]),
        autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
        trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined,
    )
    env.filters["fmt"] = _fmt
    env.filters["estimate"] = _estimate
    env.filters["shade"] = _shade
    env.filters["p_value"] = p_value_text
    return env


def render(template: str, context: dict[str, Any]) -> str:
    from senso.core.version import __version__

    return environment().get_template(template).render(senso_version=__version__, **context)


def section_template(section: Any) -> jinja2.Template | None:
    """A task's part of a page (`senso.core.task.Section`) as a template of this environment (its macros and
    filters), or None when the task has none."""
    return None if section is None else environment().from_string(section.template())
