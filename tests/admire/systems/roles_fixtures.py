"""Synthetic AdMIRe A items whose captions follow the 5-role structure, for the learned parts' tests.

Each compound is two made-up words `a b` with a made-up meaning of three words. The strong idiomatic
caption says the meaning, the mild idiomatic one a third of it and a person, the strong literal one both
compound words, the mild literal one the first word only, the distractor unrelated words: a bag-of-words
embedder sees these relations, so a role model can learn them and a broken one cannot fake them.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from admire_fixtures import A_COLUMNS
from senso.admire.items import AdmireAItem, ImageOption

SYLLABLES = ("ba", "ko", "ri", "tu", "me", "sa", "lo", "vi", "ne", "du", "pe", "zo")


def _word(rng: np.random.Generator) -> str:
    return "".join(rng.choice(SYLLABLES, size=3))


def synthetic_item(k: int, sentence_type: str, seed: int = 0) -> AdmireAItem:
    rng = np.random.default_rng(1000 * seed + k)
    a, b = _word(rng), _word(rng)
    meaning = [_word(rng) for _ in range(3)]
    filler = [_word(rng) for _ in range(6)]
    captions = {
        "strong idiomatic": f"a person {' '.join(meaning)} {filler[0]}",
        "mild idiomatic": f"a person {meaning[0]} {filler[1]} {filler[2]}",
        "mild literal": f"a {a} {filler[3]}",
        "strong literal": f"a {a} {b} {a} {b}",
        "distractor": f"{filler[4]} {filler[5]} {_word(rng)}",
    }
    roles = list(captions)
    shuffled = rng.permutation(5)
    names = {role: f"{k}_{j}.png" for role, j in zip(roles, shuffled)}
    images = tuple(sorted((ImageOption(names[r], captions[r]) for r in roles), key=lambda i: i.name))
    if sentence_type == "idiomatic":
        sentence = f"He was such a {a} {b}, always {' '.join(meaning)}."
        gold = ("strong idiomatic", "mild idiomatic", "mild literal", "strong literal", "distractor")
    else:
        sentence = f"The {a} {b} stood there, a {a} with a {b}."
        gold = ("strong literal", "mild literal", "mild idiomatic", "strong idiomatic", "distractor")
    return AdmireAItem(f"{a} {b}", "Train", sentence, images, "en", sentence_type, tuple(names[r] for r in gold))


def synthetic_items(n: int, seed: int = 0) -> list[AdmireAItem]:
    return [synthetic_item(k, "idiomatic" if k % 2 == 0 else "literal", seed) for k in range(n)]


def synthetic_rows(items: list[AdmireAItem], gold: bool = True) -> list[dict[str, str]]:
    """Rows in the official Subtask A columns (for a data folder written by admire_fixtures.write_a_split)."""
    rows = []
    for item in items:
        row = {"compound": item.compound, "subset": "Train", "sentence": item.sentence,
               "sentence_type": item.sentence_type if gold else "",
               "expected_order": repr(list(item.expected_order)) if gold else ""}
        for n, image in enumerate(item.images, start=1):
            row[f"image{n}_name"], row[f"image{n}_caption"] = image.name, image.caption
        rows.append(row)
    return rows


def write_split(root: Path, split: str, items: list[AdmireAItem], gold: bool = True) -> Path:
    """admire/subtask_a/en/<split>/subtask_a_<split or xe>.tsv under `root` (no image files); returns root."""
    folder = root / "admire" / "subtask_a" / "en" / split
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / f"subtask_a_{'xe' if split == 'xeval' else split}.tsv").open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(A_COLUMNS), delimiter="\t", lineterminator="\n", extrasaction="ignore")
        writer.writeheader()
        writer.writerows(synthetic_rows(items, gold))
    return root
