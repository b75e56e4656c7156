"""The AdMIRe family's part of the command line's data and fitting commands: `senso fit admire-a`, `senso data
overlap` of a subtask, and AdMIRe's `senso data stats` / `data fetch` (called through its `Task` and `DataSet`
values, so the command line never asks which family a task is)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def fit(options: Any, out_path: Path) -> tuple[list[str], list[str]]:
    """Fit an AdMIRe Subtask A system on a split with gold and save it: (notes, lines to print)."""
    from senso.admire.systems.fitting import fit_to_file
    from senso.core.cache import ResponseCache

    document = fit_to_file(options, ResponseCache(enabled=options.use_cache), out_path)
    task = options.task
    return [], [f"fitted {document['system']} on {document['n_items']} items ({len(document['compounds'])} compounds): "
                f"{out_path}; use it with `senso run {task} --system {document['system']} --set model_file={out_path}`"]


def overlap(task: str, train: str, eval_: str | None, lang: str, data_dir: Path | None) -> None:
    """`senso data overlap` of an AdMIRe subtask: compounds, sentences and identical captions shared with training."""
    from senso.admire.overlap import overlap_rows
    from senso.admire.systems.fitting import overlap_sides
    from senso.admire.tables import print_overlap
    from senso.core.errors import SensoError

    if not eval_:
        raise SensoError(f"--eval names the split to check, e.g. `senso data overlap {task} --train train+dev --eval xeval`")
    evaluated, training, described = overlap_sides(task[-1], train, eval_, lang, data_dir)
    print_overlap(overlap_rows(evaluated, training), len(evaluated), f"{lang} {eval_}", described)


def stats(data_dir: Path | None, out_dir: Path, console: Any) -> None:
    from senso.admire.card import print_admire_card

    console.print(f"figure: {print_admire_card(data_dir, out_dir, console)}")


def fetch(data_dir: Path | None, api_url: str | None, force: bool, console: Any, err: Any) -> None:
    """Download AdMIRe's official files, verify their checksums and unpack them."""
    from senso.admire.fetch import fetch_admire

    report = fetch_admire(data_dir, api_url=api_url, force=force)
    console.print(f"AdMIRe (doi {report.article.get('doi')}, version {report.article.get('version')}) in {report.root}",
                  soft_wrap=True)
    console.print(f"downloaded {len(report.downloaded)} file(s), reused {len(report.reused)} verified download(s); "
                  f"{report.copied} file(s) copied, {report.unchanged} already in place", soft_wrap=True)
    for placed in report.placed:
        console.print(f"  {placed}", soft_wrap=True)
    if report.not_placed:
        err.print(f"{len(report.not_placed)} file(s) of the release are not part of the official layout and were "
                  "not placed:", style="yellow", soft_wrap=True)
        for name in report.not_placed[:20]:
            err.print(f"  {name}", soft_wrap=True)
