"""The word-in-context family's commands: `senso wic-submission RUN_DIR ... -o submission.zip` (WiC-ITA's zip
from a binary and a ranking run), `senso score`'s options and `--json` for a file of answers, and `senso data
stats wic` / `data fetch wic` (called through its `DataSet`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from senso.wic.options import AnswerFlags


def answers_options(task: str, file: Path | None, flags: AnswerFlags) -> dict[str, Any]:
    """The run that scores FILE: the `submission` system reading it, on --wic-split."""
    values: dict[str, Any] = {"system": "submission", "system_options": {"file": file}}
    if flags.wic_split is not None:
        values["split"] = flags.wic_split
    if flags.wic_gold is not None:
        values["gold"] = flags.wic_gold
    return values


def answers_json(result: Any, file: Path | None, flags: AnswerFlags) -> dict[str, Any]:
    """What `senso score --json` prints: the file, the split, n and every metric (overall and per language pair)."""
    return {"file": str(file), "split": result.results.get("split"), "n": result.n,
            "metrics": {name: estimate.to_json() for name, estimate in result.metrics.items()},
            "by_langs": {group: {name: e.to_json() for name, e in ms.items()}
                         for group, ms in result.metrics_by_group.items()}}


def register_commands(cli: Any) -> None:
    """`senso wic-submission`."""

    @cli.app.command("wic-submission")
    def wic_submission(runs: list[Path] = typer.Argument(..., help="Run folders of wicita-binary and/or "
                                                                     "wicita-ranking (one each)."),
                       out: Path = typer.Option(..., "-o", "--out", help="The zip to write.")) -> None:
        """WiC-ITA's submission zip (binary.jsonl, binary_eng.jsonl, ranking.jsonl, ranking_eng.jsonl) from runs."""
        from senso.wic.submission import pack

        packed = pack(runs, out)
        cli.out.print(f"{out}: {', '.join(packed)}")


def stats(data_dir: Path | None, out_dir: Path, console: Any) -> None:
    """`senso data stats wic`: the tables of every built-in task's splits, and the figure of graded scores."""
    from senso.wic.card import print_wic_card

    figure = print_wic_card(data_dir, out_dir, console)
    if figure is not None:
        console.print(f"figure: {figure}", soft_wrap=True)


def fetch(data_dir: Path | None, api_url: str | None, force: bool, console: Any, err: Any) -> None:
    """`senso data fetch wic`: WiC, WiC-ITA and DWUG EN downloaded, verified and placed (`--api-url`: a mirror)."""
    from senso.wic.fetch import fetch_wic

    report = fetch_wic(data_dir, mirror=api_url, force=force)
    console.print(f"word-in-context data in {report.root}: " + ", ".join(f"{name} {n} files"
                                                                          for name, n in report.placed.items()),
                  soft_wrap=True)
    console.print(f"downloaded {len(report.downloaded)} file(s); {report.copied} file(s) copied, {report.unchanged} "
                  "already in place; checksums in FETCHED.json", soft_wrap=True)
