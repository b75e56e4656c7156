"""How long `senso report` takes on an AdMIRe Subtask A run of 100 items with 500 images.

    python benchmarks/report_speed.py                      # a synthetic 100-item split, 256x256 PNG images
    python benchmarks/report_speed.py --run runs/<run>     # an existing run folder instead
    python benchmarks/report_speed.py --smoke              # seconds: a synthetic split of 3 items

The synthetic split is written to a temporary folder (images: smooth gradients plus noise, ~80 KB each like
the downscaled official ones), run with the seeded `random` system, then rendered. Prints the seconds spent
building the page (thumbnails, plots, template) and the size of the HTML file; imports are timed apart.
`--items N` makes the synthetic split N items long.
"""

from __future__ import annotations

import argparse
import csv
import tempfile
import time
from pathlib import Path

import numpy as np

from _smoke import add_smoke_option, smoke


def write_split(root: Path, n_items: int = 100) -> Path:
    from PIL import Image

    rng = np.random.default_rng(0)
    split_dir = root / "admire" / "subtask_a" / "en" / "dev"
    columns = ["compound", "subset", "sentence_type", "sentence", "expected_order"] + [
        c for k in range(1, 6) for c in (f"image{k}_name", f"image{k}_caption")]
    rows = []
    ramp = np.linspace(0, 255, 256)
    for i in range(n_items):
        compound = f"compound {i}"
        names = [f"{i:03d}{k}.png" for k in range(5)]
        row = {"compound": compound, "subset": "Dev", "sentence_type": "idiomatic" if i % 2 else "literal",
               "sentence": f"A sentence that uses {compound} in context.", "expected_order": repr(names)}
        (split_dir / compound).mkdir(parents=True)
        for k, name in enumerate(names, 1):
            base = np.stack([np.add.outer(ramp, ramp * (c + 1) / 3) % 256 for c in range(3)], axis=-1)
            pixels = np.clip(base + rng.normal(0, 12, base.shape), 0, 255).astype(np.uint8)
            Image.fromarray(pixels).save(split_dir / compound / name)
            row[f"image{k}_name"] = name
            row[f"image{k}_caption"] = "The image shows a scene. " * 20
        rows.append(row)
    with (split_dir / "subtask_a_dev.tsv").open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns, delimiter="\t", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, help="an existing run folder to render")
    parser.add_argument("--items", type=int, default=100, help="items of the synthetic split")
    add_smoke_option(parser)
    args = smoke(parser.parse_args(), items=3)
    started = time.perf_counter()
    from senso.reporting.run_page import write_run_report
    from senso.catalog import RunOptions
    imported = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = args.run
        if run_dir is None:
            import contextlib
            import io
            import os

            from senso.api import run as run_admire

            os.environ.setdefault("SENSO_CACHE_DIR", str(Path(tmp) / "cache"))
            data = write_split(Path(tmp) / "data", args.items)
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                run_dir = run_admire(RunOptions(task="admire-a", data_dir=data, out=Path(tmp) / "run", split="dev",
                                                system="random", no_cache=True))
        t0 = time.perf_counter()
        page = write_run_report(run_dir, out=Path(tmp) / "report.html")
        seconds = time.perf_counter() - t0
        html = page.read_text(encoding="utf-8")
        print(f"{run_dir}: {html.count('data:image/jpeg;base64,')} thumbnails, page built in {seconds:.2f} s "
              f"({page.stat().st_size / 1e6:.1f} MB); imports {imported:.2f} s")


if __name__ == "__main__":
    main()
