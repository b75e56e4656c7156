"""AdMIRe 2's release in its real shape, run as it is: wall, CPU, items/s and peak memory of the default system,
from an empty response cache, then again with only the default's choice cached.

    PYTHONPATH=src python benchmarks/admire2_release.py [--langs 15 | --languages A,B] [--rows N] [--subtask b]
    PYTHONPATH=src python benchmarks/admire2_release.py --smoke    # seconds: 2 languages x 6 rows, a few rows
    PYTHONPATH=src python benchmarks/admire2_release.py --tokens   # the texts and e5 tokens to embed; no run

The script writes a data set in the release's layout (`submission_<Language>.tsv` per language with `compound`,
`sentence`, an empty `expected_order`, `image1_name` ... `image5_caption`; tiny PNGs in
`<Language>/<expression>/`, one set per expression), copies the shipped task file (`admire2-a.toml` or
`admire2-b.toml`) beside it and times `senso run` of it with the default system, as a child process with a
private, empty $SENSO_CACHE_DIR: no --system, so the default is chosen on AdMIRe 1's English train+dev of
--data-dir, then run on every language.

The shape is the release's: an expression's rows (about three) share its five images and captions, each row a
sentence of its own, and each language repeats one row with the images in another order. The Chinese, Igbo and
Turkish test files are given their released counts (rows / expressions / distinct captions: 179/57/285, 115/42/205,
180/54/270; in Igbo two spellings of one expression share its captions); the other twelve languages, whose counts
were not taken, get 180 rows each over 60, 57 or 54 expressions in turn (3.0 to 3.3 rows per expression, the range
of the three): 2 634 rows, 4 180 distinct captions in all. The texts are AdMIRe 1's English rows (every split
of --data-dir, in turn): an expression takes a row's compound and captions, its rows that compound's sentences,
each tagged with its language and row (the captions with their language and expression), so that no text of one
language is another's. `--rows N` keeps each language's rows per expression and cuts it to N rows.

Two runs, each from an empty response cache: the first, from an empty cache folder, chooses the default (grouped
cross-validation of the candidates over the 85 training items) and fits it on them, and caches both; the second
keeps only those two (`admire_choices.json`, `admire-fits/`: what the training rows determine, as a second run or a
run on other languages finds them) and computes every embedding of the release again (`--once`: the first only). Each line gives the items, wall and CPU seconds, items/s, the child's
peak RSS and the load before and after. The goals: the whole set in at most 10 minutes on 2 cores, at most 7
with the choice cached.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _process_stats import run_measured, senso_env  # noqa: E402
from _smoke import add_smoke_option, real_data_dir, smoke  # noqa: E402

from senso.admire.rankfile import builtin_task_file, load_ranking_task  # noqa: E402
from senso.admire.ranking.select import CHOICES_MEMO  # noqa: E402
from senso.admire.systems.fitting import FITS_FOLDER  # noqa: E402

HEADER = ["compound", "sentence", "expected_order"] + [
    f"image{n}_{field}" for n in range(1, 6) for field in ("name", "caption")]


@dataclass(frozen=True)
class Shape:
    """One language's test file: its rows, its expressions and the sets of five captions they use."""

    rows: int
    expressions: int
    caption_sets: int

    def cut(self, rows: int | None) -> "Shape":
        """At most `rows` rows, the rows per expression kept (at least one expression, one caption set)."""
        if rows is None or rows >= self.rows:
            return self
        expressions = max(1, round(rows * self.expressions / self.rows))
        return Shape(rows, expressions, max(1, expressions - (self.expressions - self.caption_sets)))


RELEASED = {"Chinese": Shape(179, 57, 57), "Igbo": Shape(115, 42, 41), "Turkish": Shape(180, 54, 54)}
OTHERS = (Shape(180, 60, 60), Shape(180, 57, 57), Shape(180, 54, 54))  # in turn, for the languages not counted
LANGUAGES = ("Chinese", "Georgian", "Greek", "Igbo", "Kazakh", "Norwegian", "Portuguese-Brazil",
             "Portuguese-Portugal", "Russian", "Serbian", "Slovak", "Slovenian", "Spanish-Ecuador", "Turkish", "Uzbek")


def shapes(languages: list[str], rows: int | None) -> dict[str, Shape]:
    others = [language for language in LANGUAGES if language not in RELEASED]
    return {language: (RELEASED.get(language) or OTHERS[others.index(language) % len(OTHERS)]).cut(rows)
            for language in languages}


def admire1_rows(data_dir: Path) -> list[dict[str, str]]:
    """Every AdMIRe 1 English Subtask A row of the data folder (train, dev, test, xeval), in that order."""
    rows = []
    for split, name in (("train", "subtask_a_train"), ("dev", "subtask_a_dev"), ("test", "subtask_a_test"),
                        ("xeval", "subtask_a_xe")):
        path = data_dir / "admire" / "subtask_a" / "en" / split / f"{name}.tsv"
        with path.open(encoding="utf-8", newline="") as fh:
            rows += list(csv.DictReader(fh, delimiter="\t"))
    return rows


def _png_bytes(shade: int) -> bytes:
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (4, 4), (shade, 255 - shade, 128)).save(out, format="PNG")
    return out.getvalue()


def captions_of(source: list[dict[str, str]], compound: str) -> list[str]:
    """The five captions of the compound's first row."""
    row = next(row for row in source if row["compound"] == compound)
    return [row[f"image{n}_caption"] for n in range(1, 6)]


def _expressions(source: list[dict[str, str]], language: str, offset: int, shape: Shape) -> list[dict]:
    """Each expression of a language: its compound, its image names and captions (shared with another expression
    beyond `shape.caption_sets`) and its sentences (the compound's in AdMIRe 1)."""
    compounds = [c for c in dict.fromkeys(row["compound"] for row in source)
                 if len(set(captions_of(source, c))) == 5]  # a compound whose five captions differ
    if shape.expressions > len(compounds):
        raise SystemExit(f"{language}: {shape.expressions} expressions, but the source rows have {len(compounds)}")
    sentences: dict[str, list[str]] = {}
    for row in source:
        sentences.setdefault(row["compound"], []).append(row["sentence"])
    out = []
    for number in range(shape.expressions):
        compound = compounds[(offset * 7 + number) % len(compounds)]
        own = number % shape.caption_sets  # the expression whose images and captions it shows
        source_of_images = compounds[(offset * 7 + own) % len(compounds)]
        tag = f"[{language} {own}]"
        out.append({"compound": compound, "names": [f"{language[:3].lower()}{own}_{n}.png" for n in range(1, 6)],
                    "captions": [f"{caption} {tag}" for caption in captions_of(source, source_of_images)],
                    "sentences": sentences[compound]})
    return out


def _language_rows(source: list[dict[str, str]], language: str, offset: int, shape: Shape) -> list[list[str]]:
    """A language's rows: the expressions' rows in turn (the first `rows % expressions` one row more), each with
    its expression's images in a rotated order; the first expression's second row repeats its first, reversed."""
    expressions = _expressions(source, language, offset, shape)
    lines = []
    for number, expression in enumerate(expressions):
        count = shape.rows // shape.expressions + (number < shape.rows % shape.expressions)
        for k in range(count):
            pairs = list(zip(expression["names"], expression["captions"]))
            pairs = pairs[k % 5:] + pairs[: k % 5]
            sentence = f"{expression['sentences'][k % len(expression['sentences'])]} [{language} {len(lines)}]"
            if number == 0 and k == 1:  # the release repeats one expression and sentence, the images reordered
                sentence, pairs = lines[0][1], list(zip(lines[0][3::2], lines[0][4::2]))[::-1]
            lines.append([expression["compound"], sentence, ""] + [c for pair in pairs for c in pair])
    return lines


def write_release(root: Path, source: list[dict[str, str]], chosen: dict[str, Shape]) -> dict[str, tuple]:
    """The data set under `root`; per language, its (rows, expressions, distinct captions) as written."""
    pngs = [_png_bytes(50 * n) for n in range(5)]
    counts = {}
    for language, shape in chosen.items():
        offset = LANGUAGES.index(language)  # the same texts whichever languages are written
        lines = _language_rows(source, language, offset, shape)
        for expression in _expressions(source, language, offset, shape):
            folder = root / language / expression["compound"]
            folder.mkdir(parents=True, exist_ok=True)
            for name, data in zip(expression["names"], pngs):
                (folder / name).write_bytes(data)
        with (root / f"submission_{language}.tsv").open("w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh, delimiter="\t", lineterminator="\n")
            writer.writerow(HEADER)
            writer.writerows(lines)
        counts[language] = (len(lines), len({line[0] for line in lines}),
                            len({caption for line in lines for caption in line[4::2]}))
    return counts


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


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "?"


def _empty_but_choices(cache: Path) -> None:
    """The cache folder emptied of everything (the response cache, memos) but what the training rows determine:
    the default's remembered choice and the chosen system's fit on them."""
    for path in cache.iterdir() if cache.is_dir() else ():
        if path.name not in (CHOICES_MEMO, FITS_FOLDER):
            shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()


def measure(label: str, command: list[str], cache: Path, n: int, out: Path) -> None:
    """One run of `command` in a child with $SENSO_CACHE_DIR `cache`; its line, and where its choice came from."""
    env = {"SENSO_CACHE_DIR": str(cache)}
    wordnet = _wordnet()
    if wordnet:
        env["SENSO_WORDNET_DIR"] = wordnet  # the user's installed WordNet, found in the private cache's stead
    before = _load()
    stats = run_measured([*command, "--out", str(out)], env=senso_env(env))
    if stats.returncode != 0:
        raise SystemExit(f"senso run failed ({stats.returncode}):\n{stats.stderr[-3000:]}")
    choice = json.loads((out / "results.json").read_text(encoding="utf-8"))["default_system"]
    source = f"from the cache ({choice['fingerprint'][:12]})" if choice.get("from_cache") else "computed"
    given = "".join(f" --{name} {value}" for name, value in choice["options"].items())
    print(f"default system: {choice['chosen']}{given}, {source}", flush=True)
    print(f"{label}: {n} items in {stats.wall_s:.1f} s wall, {stats.cpu_s:.1f} s CPU; {n / stats.wall_s:.2f} items/s; "
          f"peak RSS {stats.peak_rss_mb:.0f} MB; load {before} -> {_load()}", flush=True)


def _wordnet() -> str | None:
    from senso.admire.systems.wordnet import WordNet

    found = WordNet.locate()
    return None if found is None else str(found.source)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--langs", type=int, default=len(LANGUAGES), help="how many of the 15 languages")
    parser.add_argument("--languages", default=None, help="these languages, comma-separated (instead of --langs)")
    parser.add_argument("--rows", type=int, default=None, help="at most this many rows per language")
    parser.add_argument("--subtask", choices=("a", "b"), default="b", help="a: images; b: captions only")
    parser.add_argument("--data-dir", default=None, help="AdMIRe 1's data folder (the training rows, the texts)")
    parser.add_argument("--keep", default=None, help="write the data set and the run folders here and keep them")
    parser.add_argument("--once", action="store_true", help="the run from an empty cache only")
    parser.add_argument("--tokens", action="store_true", help="count the texts and e5 tokens to embed; run nothing")
    add_smoke_option(parser)
    args = smoke(parser.parse_args(), langs=2, rows=6)
    data_dir = real_data_dir(args.data_dir)
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="admire2-bench-"))
    release = root / "release"
    languages = args.languages.split(",") if args.languages else list(LANGUAGES[: args.langs])
    if unknown := [language for language in languages if language not in LANGUAGES]:
        raise SystemExit(f"--languages: unknown {', '.join(unknown)}; choose from {', '.join(LANGUAGES)}")
    counts = write_release(release, admire1_rows(data_dir), shapes(languages, args.rows))
    n = sum(rows for rows, _, _ in counts.values())
    task = Path(shutil.copy(builtin_task_file(f"admire2-{args.subtask}"), release))
    codes = [d.language for d in load_ranking_task(task).data if Path(d.file).stem.split("_", 1)[-1] in languages]
    print(f"data set: {len(languages)} languages, {n} rows in {release}", flush=True)
    for language, (rows, expressions, captions) in counts.items():
        print(f"  {language}: {rows} rows, {expressions} expressions, {captions} distinct captions", flush=True)
    if args.tokens:
        print(f"{n} items; to embed: {count_tokens(task, codes, data_dir)}")
    else:
        command = [sys.executable, "-m", "senso.cli", "run", str(task), "--lang", "+".join(codes), "--data-dir",
                   str(data_dir), "--quiet"]
        print("command: " + " ".join(command), flush=True)
        cache = root / "cache"
        shutil.rmtree(cache, ignore_errors=True)
        measure(f"admire2-{args.subtask}, empty cache", command, cache, n, root / "run-empty")
        if not args.once:
            _empty_but_choices(cache)
            measure(f"admire2-{args.subtask}, choice cached", command, cache, n, root / "run-choice-cached")
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
