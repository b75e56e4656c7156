"""Data of the report tests: small ABRICOT and AdMIRe items and a fake LM with fixed answers."""

from __future__ import annotations

import csv
from pathlib import Path

# id, domain, text, target token, lemma, abs_mean (gold label: min(round(5m), 4) + 1)
ABRICOT_ROWS = [
    ("CANE_1", "opensub", "Il cane <abbaia> & corre.", "cane", "cane", 0.05),  # gold 1
    ("CANE_2", "opensub", "Un cane di razza.", "cane", "cane", 0.25),  # gold 2
    ("CANE_3", "wikihow", "Un cane tra tanti.", "cane", "cane", 0.45),  # gold 3
    ("CANE_4", "wikihow", "I cani sono mammiferi.", "cani", "cane", 0.85),  # gold 5
    ("IDEA_1", "opensub", "Ho un'idea.", "idea", "idea", 0.65),  # gold 4
    ("IDEA_2", "wikihow", "Le idee contano.", "idee", "idea", 0.65),  # gold 4
    ("IDEA_3", "opensub", "L'idea di giustizia.", "idea", "idea", 0.85),  # gold 5
    ("SALE_1", "wikihow", "Passami il sale.", "sale", "sale", 0.45),  # gold 3
    ("SALE_2", "opensub", "Il sale da cucina.", "sale", "sale", 0.45),  # gold 3
    ("LUCE_1", "wikihow", "Accendi la luce.", "luce", "luce", 0.05),  # gold 1
]
GOLD = {"CANE_1": 1, "CANE_2": 2, "CANE_3": 3, "CANE_4": 5, "IDEA_1": 4, "IDEA_2": 4, "IDEA_3": 5,
        "SALE_1": 3, "SALE_2": 3, "LUCE_1": 1}
# Run A's answers: r defined for cane, constant predictions for idea, constant gold for sale, one item for luce
ANSWERS_A = {"CANE_1": 1, "CANE_2": 2, "CANE_3": 3, "CANE_4": 4, "IDEA_1": 2, "IDEA_2": 2, "IDEA_3": 2,
             "SALE_1": 1, "SALE_2": 5, "LUCE_1": 5}
ANSWERS_B = {**ANSWERS_A, "IDEA_1": 4, "SALE_1": 3, "LUCE_1": 1}  # differs from A on 3 items



class AnswerModel:
    """Log-probs that make the likert system answer a fixed label per item (-1 for it, -3 for the others)."""

    spec = "fake:answers"
    fingerprint = "fake-fingerprint"

    def __init__(self, answers: dict[str, int]):
        self.answers = answers

    def describe(self):
        return {"spec": self.spec, "fingerprint": self.fingerprint}

    def loglikelihood_choices(self, prompts, batch_size=8, progress=None):
        if progress:
            progress(len(prompts))
        return [[-1.0 if k + 1 == self.answers[p.item_id] else -3.0 for k in range(5)] for p in prompts]


# ---------------------------------------------------------------------------- AdMIRe
A_COLUMNS = ["compound", "subset", "sentence_type", "sentence", "expected_order"] + [
    c for n in range(1, 6) for c in (f"image{n}_name", f"image{n}_caption")]
B_COLUMNS = ["compound", "subset", "sentence_type", "expected_item", "sequence_caption1", "sequence_caption2"] + [
    c for n in range(1, 5) for c in (f"image{n}_name", f"image{n}_caption")]
A_ITEMS = [  # compound, sentence type, sentence
    ("bad apple", "idiomatic", "He was the one bad apple in a good team."),
    ("night owl", "literal", "A night owl hooted from the oak."),
    ("devil's advocate", "idiomatic", "She played devil's advocate <again> & won."),
    ("green fingers", "literal", "His green-fingers were stained with paint."),
]
COLOURS = [(200, 40, 40), (40, 160, 60), (40, 80, 200), (220, 180, 30), (120, 60, 160)]


def write_tsv(path: Path, columns: list[str], rows: list[dict[str, str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns, delimiter="\t", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
