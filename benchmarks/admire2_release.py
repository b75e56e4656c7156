"""AdMIRe 2's release at full size, run as it is: items/s and peak memory of the default system.

    PYTHONPATH=src python benchmarks/admire2_release.py [--langs 15] [--rows 180] [--subtask b] [--data-dir DIR]
    PYTHONPATH=src python benchmarks/admire2_release.py --smoke    # seconds: 2 languages x 6 rows, a few rows
    PYTHONPATH=src python benchmarks/admire2_release.py --tokens   # the texts and e5 tokens to embed; no run

The script writes a data set in the release's layout (`submission_<Language>.tsv` per language with `compound`,
`sentence`, an empty `expected_order`, `image1_name` ... `image5_caption`; tiny PNGs in
`<Language>/<expression>/`), copies the shipped task file (`admire2-a.toml` or `admire2-b.toml`) beside it and
times one `senso run` of it with the default system, as a child process: no --system, so the default is chosen on
AdMIRe 1's English train+dev of --data-dir, then run on every language; `--no-cache` (neither reads nor writes the
response cache: every embedding is computed). Each row's expression, sentence and captions are an AdMIRe 1 row's
(every split of --data-dir, in turn), the sentence and captions tagged with the language and row so that no two
texts are the same (a cache could not skip any); each language repeats one row, as the release does. The last
line gives the items, wall and CPU seconds, items/s and the child's peak RSS; the goal is the whole set (15 x 180)
in at most 10 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import csv
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _process_stats import run_measured, senso_env  # noqa: E402
from _smoke import add_smoke_option, real_data_dir, smoke  # noqa: E402

from senso.admire.rankfile import builtin_task_file, load_ranking_task  # noqa: E402

LANGUAGES = ("Chinese", "Georgian", "Greek", "Igbo", "Kazakh", "Norwegian", "Portuguese-Brazil",
             "Portuguese-Portugal", "Russian", "Serbian", "Slovak", "Slovenian", "Spanish-Ecuador", "Turkish", "Uzbek")
HEADER = ["compound", "sentence", "expected_order"] + [
    f"image{n}_{field}" for n in range(1, 6) for field in ("name", "caption")]


def admire1_rows(data_dir: Path) -> list[dict[str, str]]:
    """Every AdMIRe 1 English Subtask A row of the data folder (train, dev, test, xeval), in that order."""
    rows = []
    for split, name in (("train", "subtask_a_train"), ("dev", "subtask_a_dev"), ("test", "subtask_a_test"),
                        ("xeval", "subtask_a_xe")):
        path = data_dir / "admire" / "subtask_a" / "en" / split / f"{name}.tsv"
        with path.open(encoding="utf-8", newline="") as fh:
            rows += list(csv.DictReader(fh, delimiter="\t"))
    return rows


def _png(path: Path, shade: int) -> None:
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (4, 4), (shade, 255 - shade, 128)).save(path)


def write_release(root: Path, source: list[dict[str, str]], languages: list[str], n_rows: int) -> int:
    """The data set under `root`; the number of rows written."""
    for offset, language in enumerate(languages):
        lines = []
        for row_no in range(n_rows - 1):
            row = source[(offset * 37 + row_no) % len(source)]
            tag = f"[{language} {row_no}]"
            names = [f"{language[:3].lower()}{row_no}_{n}.png" for n in range(1, 6)]
            captions = [f"{row[f'image{n}_caption']} {tag}" for n in range(1, 6)]
            lines.append([row["compound"], f"{row['sentence']} {tag}", ""] + [
                c for pair in zip(names, captions) for c in pair])
            for n, name in enumerate(names):
                _png(root / language / row["compound"] / name, 50 * n)
        repeated = lines[0][:3] + [c for pair in reversed(list(zip(lines[0][3::2], lines[0][4::2]))) for c in pair]
        lines.insert(1, repeated)  # the same expression and sentence, the images in another order
        with (root / f"submission_{language}.tsv").open("w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh, delimiter="\t", lineterminator="\n")
            writer.writerow(HEADER)
            writer.writerows(lines)
    return len(languages) * n_rows


class _Recorder:
    """An embedder that keeps the texts it is asked for (by kind) and computes nothing."""

    spec = "e5-f64"

    def __init__(self) -> None:
        self.texts: dict[str, set[str]] = {"query": set(), "passage": set()}

    def embed(self, texts, kind="passage"):
        import numpy as np

        self.texts[kind].update(texts)
        return np.zeros((len(texts), 4), dtype=np.float32)


def count_tokens(task: Path, codes: list[str], data_dir: Path) -> str:
    """The distinct texts the default system embeds (sentences, contexts, words, captions of the training and
    test rows; no meanings: WordNet serves none of the languages) and their e5 tokens, windows and markers counted."""
    from senso.admire.rankdata import load_entries
    from senso.admire.systems.evidence import EvidenceBuilder
    from senso.admire.systems.wordnet import WordNet
    from senso.backends.e5_f32 import E5F32, _windows

    ranking = load_ranking_task(task)
    entries = [d for d in ranking.data if d.language in codes or d.split == "train"]
    recorder = _Recorder()
    EvidenceBuilder(recorder, None, WordNet.locate(None)).build(load_entries(ranking, entries, data_dir, False)[0])
    tokenizer, parts = E5F32(exact=True).tokenizer, []
    for kind, texts in recorder.texts.items():
        ids = tokenizer.content_ids(sorted(texts), kind)
        parts.append(f"{len(texts)} {kind} texts, {sum(len(w) + 2 for i in ids for w in _windows(i, 510))} tokens")
    return "; ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--langs", type=int, default=len(LANGUAGES), help="how many of the 15 languages")
    parser.add_argument("--rows", type=int, default=180, help="rows per language (one of them repeated)")
    parser.add_argument("--subtask", choices=("a", "b"), default="b", help="a: images; b: captions only")
    parser.add_argument("--data-dir", default=None, help="AdMIRe 1's data folder (the training rows, the texts)")
    parser.add_argument("--keep", default=None, help="write the data set and the run folder here and keep them")
    parser.add_argument("--tokens", action="store_true", help="count the texts and e5 tokens to embed; run nothing")
    add_smoke_option(parser)
    args = smoke(parser.parse_args(), langs=2, rows=6)
    data_dir = real_data_dir(args.data_dir)
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="admire2-bench-"))
    release = root / "release"
    n = write_release(release, admire1_rows(data_dir), list(LANGUAGES[: args.langs]), args.rows)
    task = Path(shutil.copy(builtin_task_file(f"admire2-{args.subtask}"), release))
    codes = [d.language for d in load_ranking_task(task).data if d.split == "test"][: args.langs]
    if args.tokens:
        print(f"{n} items; to embed: {count_tokens(task, codes, data_dir)}")
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
        return
    command = [sys.executable, "-m", "senso.cli", "run", str(task), "--lang", "+".join(codes), "--data-dir",
               str(data_dir), "--no-cache", "--out", str(root / "run")]
    print(f"data set: {args.langs} languages x {args.rows} rows in {release}", flush=True)
    print("command: " + " ".join(command), flush=True)
    stats = run_measured(command, env=senso_env())
    if stats.returncode != 0:
        raise SystemExit(f"senso run failed ({stats.returncode}):\n{stats.stderr[-3000:]}")
    chosen = [line for line in stats.stdout.splitlines() + stats.stderr.splitlines() if "default system:" in line]
    print(chosen[0].strip() if chosen else "default system: (not printed)")
    print(f"admire2-{args.subtask}: {args.langs} languages x {args.rows} rows = {n} items in {stats.wall_s:.1f} s "
          f"wall, {stats.cpu_s:.1f} s CPU; {n / stats.wall_s:.2f} items/s; peak RSS {stats.peak_rss_mb:.0f} MB")
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
