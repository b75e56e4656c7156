"""The three word-in-context data sets (English WiC, WiC-ITA, DWUG EN) as WicPair lists for the systems' benchmarks
and tests: WiC and WiC-ITA through the family's readers (`senso.wic.data.read_split` on the shipped tasks); DWUG
through a reader of its own that can keep each lemma's most-judged uses (a sample the family's reader does not
draw)."""

from __future__ import annotations

import csv
import random
import statistics
from collections import Counter
from pathlib import Path

from senso.wic.data import read_split
from senso.wic.items import Usage, WicPair
from senso.wic.taskfile import shipped_task

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "wic"


def read_wic_en(split: str, root: Path = DATA) -> list[WicPair]:
    """English WiC's `split` through the family's reader (`root`: the data folder's wic/)."""
    return read_split(shipped_task("wic-en"), split, root.parent)


def read_wic_ita(task: str, name: str, root: Path = DATA) -> list[WicPair]:
    """`task`: binary or ranking; `name`: train, dev, test or test_eng (the family's test split holds both test
    files, the Italian one first: test_eng is its second part)."""
    pairs = read_split(shipped_task(f"wicita-{task}"), "test" if name == "test_eng" else name, root.parent)
    if name.startswith("test"):
        english = [p.second.lang == "en" for p in pairs]
        pairs = [p for p, eng in zip(pairs, english) if eng == (name == "test_eng")]
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
