"""Small readers of the three word-in-context data sets (English WiC, WiC-ITA, DWUG EN) into WicPair lists, for the
systems' benchmarks and tests (the family's own readers, with their checks and messages, are what runs use)."""

from __future__ import annotations

import csv
import json
import random
import statistics
from collections import Counter
from pathlib import Path

from senso.wic.items import Usage, WicPair

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "wic"


def _token_span(sentence: str, index: int) -> tuple[int, int]:
    """Character span of whitespace token `index` (as lm-eval's wic_local task computes it)."""
    tokens = sentence.split(" ")
    start = len(" ".join(tokens[:index])) + (1 if index else 0)
    return start, start + len(tokens[index])


def read_wic_en(split: str, root: Path = DATA) -> list[WicPair]:
    folder = root / "en" / split
    lines = (folder / f"{split}.data.txt").read_text(encoding="utf-8").splitlines()
    gold_file = folder / f"{split}.gold.txt"
    gold = gold_file.read_text(encoding="utf-8").split() if gold_file.exists() else [None] * len(lines)
    pairs = []
    for row, (line, label) in enumerate(zip(lines, gold), start=1):
        lemma, _pos, indices, s1, s2 = line.split("\t")
        i1, i2 = (int(x) for x in indices.split("-"))
        first, second = Usage(s1, *_token_span(s1, i1), "en"), Usage(s2, *_token_span(s2, i2), "en")
        pairs.append(WicPair(f"{split}.{row - 1}", lemma, first, second, None if label is None else int(label == "T"),
                             source=f"{split}.data.txt row {row}"))
    return pairs


def read_wic_ita(task: str, name: str, root: Path = DATA) -> list[WicPair]:
    """`task`: binary or ranking; `name`: train, dev, test or test_eng."""
    path = root / "it" / task / f"{name}.jsonl"
    pairs = []
    for row, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        d = json.loads(line)
        second_lang = "en" if name.endswith("_eng") else "it"
        pairs.append(WicPair(d["id"], d.get("lemma") or d["lemma1"],
                             Usage(d["sentence1"], d["start1"], d["end1"], "it"),
                             Usage(d["sentence2"], d["start2"], d["end2"], second_lang),
                             d.get("label"), d.get("score"), source=f"{path.name} row {row}"))
    return pairs


def _uses(path: Path) -> dict[str, Usage]:
    with path.open(encoding="utf-8", newline="") as f:
        rows = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        out = {}
        for r in rows:
            start, end = (int(x) for x in r["indexes_target_token"].split(":"))
            out[r["identifier"]] = Usage(r["context"], start, end, "en")
        return out


def read_dwug(root: Path = DATA / "dwug_en" / "data", lemmas: int | None = None,
              uses_per_lemma: int | None = None) -> list[WicPair]:
    """Every judged pair of every lemma (of the first `lemmas`): gold the median of its non-zero judgments. With
    `uses_per_lemma`, only the pairs among each lemma's that many most-judged uses (a sample that keeps the encoder's
    work small: 24 uses give 4,847 of the 43,784 pairs, every lemma kept)."""
    pairs = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir())[:lemmas]:
        uses = _uses(folder / "uses.csv")
        judged: dict[tuple[str, str], list[float]] = {}
        with (folder / "judgments.csv").open(encoding="utf-8", newline="") as f:
            for r in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
                key = tuple(sorted((r["identifier1"], r["identifier2"])))
                if float(r["judgment"]) > 0:
                    judged.setdefault(key, []).append(float(r["judgment"]))
        if uses_per_lemma:
            degree = Counter(use for pair in judged for use in pair)
            top = {use for use, _ in sorted(degree.items(), key=lambda kv: (-kv[1], kv[0]))[:uses_per_lemma]}
            judged = {pair: values for pair, values in judged.items() if set(pair) <= top}
        for (a, b), values in sorted(judged.items()):
            pairs.append(WicPair(f"{folder.name}|{a}|{b}", folder.name, uses[a], uses[b],
                                 score=float(statistics.median(values)), source=f"{folder.name}/judgments.csv"))
    return pairs


def sample_lemmas(pairs: list[WicPair], n: int, seed: int = 0) -> list[WicPair]:
    """The pairs of `n` lemmas drawn at random (seeded), in their order."""
    lemmas = sorted({p.lemma for p in pairs})
    chosen = set(random.Random(seed).sample(lemmas, min(n, len(lemmas))))
    return [p for p in pairs if p.lemma in chosen]
