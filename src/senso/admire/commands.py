"""The AdMIRe family's part of the command line: its own commands `senso leaderboard` and `senso submission pack`
(registered by `register_commands`), and its part of the common ones: `senso fit admire-a`, `senso score` of a
submission file, `senso data overlap` of a subtask, and AdMIRe's `senso data stats` / `data fetch` (called through
its `Task`, `Family` and `DataSet` values, so the command line never asks which family a task is)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from senso.admire.card import print_admire_card as stats  # `senso data stats admire`
from senso.admire.options import SubmissionFlags


def register_commands(cli: Any) -> None:
    """The family's own commands on the command line (`cli.app`; printed on `cli.out`)."""
    from senso.core.tables import folded

    @cli.app.command()
    def leaderboard(
        runs: list[Path] = typer.Argument(..., help="Run folders (test or xeval, scored with gold)."),
        allow_partial: bool = typer.Option(False, "--allow-partial", help="Show runs that scored part of a split."),
    ) -> None:
        """Where the run(s) would have ranked on the published AdMIRe leaderboards."""
        from senso.admire.leaderboard import leaderboards, rank_notes, render

        for board in leaderboards(runs, allow_partial=allow_partial):
            cli.out.print(folded(render(board)))
            for note in [*rank_notes(board), *board.notes]:
                cli.out.print(note, style="dim", soft_wrap=True)
        cli.out.print("Official rule: first metric, the second breaking ties, on values rounded to 2 decimals as "
                      "published; each run is placed on its own. Source: senso/resources/SOURCES.md", style="dim",
                      soft_wrap=True)

    submission_app = typer.Typer(no_args_is_help=True, help="Official AdMIRe submission files.")
    cli.app.add_typer(submission_app, name="submission")

    @submission_app.command("pack")
    def submission_pack(
        inputs: list[Path] = typer.Argument(..., help="Submission files or run folders holding one."),
        output: Path = typer.Option(..., "-o", "--output", help="The zip to write (files at its root)."),
        allow_partial: bool = typer.Option(False, "--allow-partial", help="Accept row counts other than the "
                                                                          "official split sizes."),
    ) -> None:
        """Validate submission files and zip them at the archive's root, as Codabench expects."""
        from senso.admire.submission import pack

        names = pack(inputs, output, allow_partial=allow_partial)
        cli.out.print(f"wrote {output}: {', '.join(names)}", soft_wrap=True)


def submission_options(task: str, file: Path, flags: SubmissionFlags) -> dict[str, Any]:
    """`senso score TASK FILE --gold TARGETS`: the run options of the submission system on the targets' split (the
    language and split are the targets file's, as the organisers name it: a_en_dev_targets.tsv)."""
    from senso.admire.systems.submitted import SYSTEM_NAME
    from senso.admire.task import parse_targets_name
    from senso.core.errors import SensoError

    gold = flags.gold
    parsed = parse_targets_name(gold.name)
    if parsed is None:
        raise SensoError(f"--gold {gold}: the language and split are read from the organisers' name of the targets "
                         "file (<a|b>_<lang>_<split>_targets.tsv, e.g. a_en_dev_targets.tsv); rename it so")
    _, lang, split = parsed
    return {"system": SYSTEM_NAME, "lang": lang, "split": split, "gold": gold,
            "system_options": {"submission": file, "allow_partial": flags.allow_partial}}


def submission_json(result: Any, file: Path, flags: SubmissionFlags) -> dict[str, Any]:
    """`senso score --json`: the submission's metrics and items, and the run folder they were written to."""
    n_expected = result.record.extra.get("n_official")
    return {"task": result.task, "submission": str(file), "gold": str(flags.gold), "n": result.n, "n_expected": n_expected,
            "partial": result.n != n_expected, "metrics": {k: v.to_json() for k, v in result.metrics.items()},
            "metrics_by_group": {g: {k: v.to_json() for k, v in ms.items()} for g, ms in result.metrics_by_group.items()},
            "per_item": [sample.to_json() for sample in result.samples], "notes": result.notes,
            "warnings": list(result.warnings), "run_dir": str(result.run_dir)}


def fit(options: Any, out_path: Path) -> tuple[list[str], list[str]]:
    """Fit an AdMIRe Subtask A system on a split with gold and save it: (notes, lines to print)."""
    from senso.core.cache import ResponseCache

    document = fit_to_file(options, ResponseCache(enabled=options.use_cache), out_path)
    return [], [f"fitted {document['system']} on {document['n_items']} items ({len(document['compounds'])} compounds): "
                f"{out_path}; use it with `senso run {options.task} --system {document['system']} --set model_file={out_path}`"]


def overlap(task: str, train: str, eval_: str | None, lang: str | None, data_dir: Path | None) -> None:
    """`senso data overlap` of an AdMIRe subtask: compounds, sentences and identical captions shared with training."""
    from senso.admire.overlap import overlap_rows
    from senso.admire.tables import print_overlap
    from senso.admire.task import DEFAULT_LANG, SUBTASK_OF
    from senso.core.errors import SensoError

    if not eval_:
        raise SensoError(f"--eval names the split to check, e.g. `senso data overlap {task} --train train+dev --eval xeval`")
    lang = lang or DEFAULT_LANG
    evaluated, training, described = overlap_sides(SUBTASK_OF[task], train, eval_, lang, data_dir)
    print_overlap(overlap_rows(evaluated, training), len(evaluated), f"{lang} {eval_}", described)


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


def overlap_sides(subtask: str, train: str, eval_split: str, lang: str, data_dir: Path | None
                  ) -> tuple[list[Any], Any, str]:
    """`senso data overlap admire-*`: the evaluation split's items, and the training side: (split, item) of the
    splits `train` (e.g. train+dev) or, when `train` is a model file `senso fit admire-a` wrote, what it recorded."""
    from senso.admire.data import load_splits_b
    from senso.admire.overlap import TrainingIndex
    from senso.admire.rankdata import admire_a_items
    from senso.admire.systems.fitting import read_model_document

    def load(split: str) -> list[Any]:
        return admire_a_items(lang, split, data_dir)[0] if subtask == "a" else load_splits_b(data_dir, lang, split)

    evaluated = load(eval_split)
    if Path(train).suffix == ".json":
        document = read_model_document(Path(train), f"--train {train}")
        return evaluated, TrainingIndex.from_document(document, f"the model file {train}"), f"model file {train}"
    return evaluated, [(getattr(i, "split", train), i) for i in load(train)], f"{lang} {train}"


def fit_to_file(options: Any, cache: Any, out_path: Path, models: Any = None) -> dict:
    """`senso fit admire-a`: fit `options.system` (default fitted-pipeline) on the gold items of
    `options.lang` / `options.split` (e.g. train+dev) of `options.data_dir`, and write the model file."""
    import json
    from dataclasses import replace

    from senso.admire.rankdata import admire_a_items
    from senso.admire.rankfile import shipped_task
    from senso.admire.systems.fitting import TrainingRows, is_fittable, model_document
    from senso.admire.systems.registry import check_system, chosen_row, system_context, system_params
    from senso.core.errors import SensoError
    from senso.core.output import check_output_file, write_text

    options = replace(options, lang=options.lang or "en", split=options.split or "train+dev")
    row = chosen_row(options, None, "a", shipped_task("admire-a", "en").default_system)
    params = check_system(row, options)
    check_output_file(out_path, "-o")  # before the fit
    items, paths = admire_a_items(options.lang, options.split, options.data_dir)
    rows = TrainingRows.of(items, paths, f"{options.lang} {options.split}")
    system = row.build(system_context(row, options, cache, models, params, training=lambda: rows))
    if not is_fittable(system):
        raise SensoError(f"system {row.name!r} has no fitted parts; fit fitted-pipeline, or sense-pipeline with "
                         "--sense learned or --set roles=learned")
    system.fit(rows.items)
    document = {**model_document(system, rows.items, rows.sha256),
                "options": system_params(row, options).to_json(params), "description": system.describe()}
    write_text(out_path, json.dumps(document, indent=1, sort_keys=True, default=str), "-o")
    return document
