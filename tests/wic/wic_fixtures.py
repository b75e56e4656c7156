"""A small word-in-context data set written by tests: WiC-ITA's layout (JSONL, character offsets, binary labels
and graded scores on the same pairs, an Italian-Italian and an Italian-English test set with gold) and a pairs
task file for each of its two tasks."""

from __future__ import annotations

import json
import random
from pathlib import Path

LEMMAS = ("banco", "pianta", "collo", "lira", "vite", "campo", "carta", "corso")
SENSES = {  # a lemma's two senses, each a pool of sentence frames (the target is {w})
    0: ("Ho lasciato il {w} vicino al fiume .", "Il {w} era vicino al fiume e al ponte ."),
    1: ("Il {w} della banca ha chiuso presto .", "Al {w} della banca ho pagato il conto ."),
}
ENGLISH = ("The {w} near the river was wet .", "The {w} at the bank closed early .")


def _usage(frame: str, word: str) -> tuple[str, int, int]:
    start = frame.index("{w}")
    return frame.replace("{w}", word), start, start + len(word)


def make_pairs(n: int, seed: int, prefix: str, english: bool = False) -> list[dict]:
    """`n` pairs of the lemmas: the same sense (gold 4 or 3.5) or not (1 or 1.5), label 1 exactly when score >= 3."""
    rng = random.Random(seed)
    rows = []
    for k in range(n):
        lemma = LEMMAS[k % len(LEMMAS)]
        a, b = rng.randrange(2), rng.randrange(2)
        s1, st1, en1 = _usage(rng.choice(SENSES[a]), lemma)
        s2, st2, en2 = _usage(ENGLISH[b] if english else rng.choice(SENSES[b]), lemma)
        score = rng.choice((3.5, 4.0)) if a == b else rng.choice((1.0, 1.5, 2.5))
        row = {"id": f"{prefix}{k}", "sentence1": s1, "sentence2": s2, "start1": st1, "end1": en1,
               "start2": st2, "end2": en2, "label": int(score >= 3), "score": score}
        row.update({"lemma1": lemma, "lemma2": lemma} if english else {"lemma": lemma})
        rows.append(row)
    return rows


def write_jsonl(path: Path, rows: list[dict], keep: str | None) -> Path:
    """Rows without the gold field other than `keep` ("label", "score" or None: no gold)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    drop = {"label", "score"} - ({keep} if keep else set())
    path.write_text("".join(json.dumps({k: v for k, v in r.items() if k not in drop}) + "\n" for r in rows),
                    encoding="utf-8")
    return path


SPLITS = {"train": (60, 1, False), "dev": (24, 2, False), "test": (20, 3, False), "test_eng": (16, 4, True)}


def write_wicita(folder: Path) -> dict[str, Path]:
    """WiC-ITA's layout with gold everywhere (binary/ and ranking/), and a task file for each: name -> path."""
    rows = {split: make_pairs(n, seed, f"{split}.", english) for split, (n, seed, english) in SPLITS.items()}
    files = {}
    for part, gold, extra in (("binary", "label", 'headline = "macro_f1"\n'), ("ranking", "score", "scale = [1, 4]\n")):
        for split, split_rows in rows.items():
            write_jsonl(folder / part / f"{split}.jsonl", split_rows, gold)
        files[part] = folder / f"mini-{part}.toml"
        files[part].write_text(
            f'kind = "pairs"\nname = "mini-{part}"\nlanguage = "it"\ngold = "{"binary" if part == "binary" else "graded"}"\n'
            f'submission = "wicita"\ntrain = "train"\n{extra}[splits]\ntrain = ["{part}/train.jsonl"]\n'
            f'dev = ["{part}/dev.jsonl"]\ntest = [{{file = "{part}/test.jsonl"}}, {{file = "{part}/test_eng.jsonl", '
            f'lang2 = "en", columns = {{lemma = "lemma1", lemma2 = "lemma2"}}}}]\n', encoding="utf-8")
    return files
