"""Image systems for AdMIRe A: clip-rank, fusion, vlm-judge (pointwise and Borda over orders)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from image_models import tiny_hf_dir, tiny_llava_dir, write_png
from senso.backends.cached import with_cache
from senso.backends.image_text import ImageTextModel
from senso.backends.vlm import TransformersVLM, YesNo
from senso.admire.items import AdmireAItem, AdmireBItem, ImageOption
from senso.core.errors import SensoError
from senso.core.cache import ResponseCache
from senso.admire.systems.base import ranking_by_scores
from senso.admire.systems.images.similarity import ClipRanker, FusionRanker, check_fusion
from senso.admire.systems.parts import FusionOptions, VlmJudgeOptions
from senso.core.options import RunOptions
from senso.core.params import OptionError
from senso.core.stats import zscores
from senso.admire.systems.images.vlm_judge import VlmJudgeRanker, borda, check_vlm_judge, parse_ranking, rotations
from senso.admire.systems.base import Ranking

pytestmark = pytest.mark.images

COLORS = {"red": (230, 10, 10), "green": (10, 230, 10), "blue": (10, 10, 230), "yellow": (230, 230, 10),
          "grey": (128, 128, 128)}


def make_item(folder: Path, compound: str, sentence: str, names=tuple(COLORS)) -> AdmireAItem:
    images = tuple(
        ImageOption(name=f"{n}.png", caption=f"a {n} picture", path=write_png(folder / compound / f"{n}.png", COLORS[n]))
        for n in names
    )
    return AdmireAItem(compound=compound, subset="Test", sentence=sentence, images=images)


class ColourEncoder:
    """A transparent encoder: an image is its mean RGB, a text the RGB of the colour words it names."""

    WORDS = {"red": (1, 0, 0), "green": (0, 1, 0), "blue": (0, 0, 1), "yellow": (1, 1, 0)}

    def encode_images(self, images: list) -> np.ndarray:
        return np.asarray([np.asarray(im, dtype=np.float64).reshape(-1, 3).mean(0) for im in images])

    def encode_texts(self, texts: list[str]) -> np.ndarray:
        return np.asarray([np.sum([self.WORDS.get(w, (0.01, 0.01, 0.01)) for w in t.split()], axis=0) for t in texts])

    def truncated(self, text: str) -> bool:
        return False

    def describe(self) -> dict[str, Any]:
        return {"library": "test colour encoder"}


def colour_model(**kwargs) -> ImageTextModel:
    return ImageTextModel("colours", encoder=ColourEncoder(), fingerprint_value="colours-v1", **kwargs)


def test_clip_rank_orders_by_similarity(tmp_path):
    items = [make_item(tmp_path, "red tape", "yellow"), make_item(tmp_path, "blue moon", "a blue sea")]
    ranker = ClipRanker(colour_model())
    rankings = ranker.rank(items)
    assert rankings[0].order[0] == "yellow.png" and rankings[1].order[0] == "blue.png"
    # "yellow" = (1, 1, 0): yellow 0.999, grey 0.816, red and green 0.737 (equal up to float rounding), blue 0.061
    assert rankings[0].order[:2] == ("yellow.png", "grey.png") and rankings[0].order[-1] == "blue.png"
    assert rankings[0].scores["red.png"] == pytest.approx(240 / (2 ** 0.5 * (230 ** 2 + 200) ** 0.5), abs=1e-6)
    assert rankings[0].extra["query"] == "yellow"
    assert ranker.describe()["track"] == "text+images"


def test_clip_rank_missing_image(tmp_path):
    item = make_item(tmp_path, "green light", "they gave the project the green light")
    no_file = AdmireAItem(compound="green light", subset="Test", sentence="s",
                          images=(ImageOption("a.png", "c"),) + item.images[1:])
    with pytest.raises(SensoError, match=r"'green light', image a.png: no image file"):
        ClipRanker(colour_model()).rank([no_file])


def test_clip_rank_tiny_clip_batch_invariant_and_cached(tmp_path):
    folder = tiny_hf_dir(tmp_path / "clip")
    items = [make_item(tmp_path, "big fish", "the big fish of the office"), make_item(tmp_path, "dirty money", "dirty money")]
    cache = ResponseCache(tmp_path / "c.sqlite")
    one = ClipRanker(ImageTextModel(f"hf:{folder}", batch_size=1)).rank(items)
    many_model = with_cache(ImageTextModel(f"hf:{folder}", batch_size=7), cache)
    many = ClipRanker(many_model).rank(items)
    for a, b in zip(one, many):
        assert a.order == b.order and sorted(a.order) == sorted(i.name for i in items[0].images)
        assert np.allclose([a.scores[n] for n in a.order], [b.scores[n] for n in a.order], atol=1e-5)
    # the five pictures are the same files in both items: embedded once
    assert many_model.computed == 5 + 2
    rerun = with_cache(ImageTextModel(f"hf:{folder}"), cache)
    assert [r.order for r in ClipRanker(rerun).rank(items)] == [r.order for r in many] and rerun.computed == 0


@dataclass
class FixedRanker:
    name: str
    table: dict[str, list[float]]
    fitted_compounds: frozenset[str] = frozenset()
    uses_images: bool = False

    def describe(self) -> dict[str, Any]:
        return {"system": self.name}

    def rank(self, items):
        return [ranking_by_scores(item.image_names, self.table[item.compound]) for item in items]


def test_fusion_sums_weighted_zscores(tmp_path):
    item = make_item(tmp_path, "x y", "s")
    captions = FixedRanker("captions", {"x y": [0.9, 0.8, 0.1, 0.2, 0.0]})
    images = FixedRanker("images", {"x y": [0.1, 0.3, 0.2, 0.25, 0.15]}, uses_images=True)
    fused = FusionRanker([captions, images], weights=[1.0, 2.0])
    ranking = fused.rank([item])[0]
    expected = zscores([0.9, 0.8, 0.1, 0.2, 0.0]) + 2 * zscores([0.1, 0.3, 0.2, 0.25, 0.15])
    assert np.allclose([ranking.scores[i.name] for i in item.images], expected)
    assert ranking.order == tuple(item.images[i].name for i in np.argsort(-expected, kind="stable"))
    assert fused.describe()["track"] == "text+images" and fused.uses_images
    assert not FusionRanker([captions]).uses_images
    assert np.allclose(zscores([1, 2, 3]), [-1.2247449, 0, 1.2247449]) and not zscores([2, 2, 2]).any()
    with pytest.raises(SensoError, match="2 weights for 1 members"):
        FusionRanker([captions], weights=[1, 2])


def test_parse_ranking_and_borda_by_hand():
    assert parse_ranking("3, 1, 5, 2, 4", 5) == [2, 0, 4, 1, 3]
    assert parse_ranking("Picture 2 is best, then 2 again, then 9 and 4.", 5) == [1, 3]
    assert parse_ranking("none of them", 5) == []
    # full ballots: 4,3,2,1,0 points; partial [1]: candidate 1 gets 4, the four others share 3+2+1+0 = 6
    assert borda([[0, 1, 2, 3, 4]], 5) == [4, 3, 2, 1, 0]
    assert borda([[1]], 5) == [1.5, 4, 1.5, 1.5, 1.5]
    assert borda([[], [4, 3, 2, 1, 0]], 5) == [0, 1, 2, 3, 4]
    assert rotations(3, 3) == [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    with pytest.raises(SensoError):
        rotations(5, 6)


@dataclass
class ScriptedVLM:
    """A stand-in VLM with known behaviour, to test the aggregation (not a model)."""

    preference: list[str]  # image file stems, best first; answers follow it, or position when biased
    position_biased: bool = False
    seen: list[Any] = field(default_factory=list)
    name: str = "scripted"

    def describe(self):
        return {"backend": "scripted"}

    def yes_probabilities(self, requests):
        self.seen.extend(requests)
        out = []
        for _, path in requests:
            stem = Path(path).stem
            out.append(YesNo(None, None, "maybe") if stem not in self.preference else
                       YesNo(1.0 - self.preference.index(stem) / 10, "logprobs"))
        return out

    def generate(self, requests, max_tokens):
        self.seen.extend(requests)
        answers = []
        for _, paths in requests:
            stems = [Path(p).stem for p in paths]
            if self.position_biased:
                answers.append("1, 2, 3, 4, 5")
            else:
                answers.append(", ".join(str(stems.index(s) + 1) for s in self.preference))
        return answers


def test_vlm_judge_pointwise_orders_by_p_yes_and_flags_unscored(tmp_path):
    item = make_item(tmp_path, "hot potato", "the issue became a hot potato")
    vlm = ScriptedVLM(["blue", "grey", "red", "green"])  # yellow gets no usable answer
    ranking = VlmJudgeRanker(vlm).rank([item])[0]
    assert ranking.order == ("blue.png", "grey.png", "red.png", "green.png", "yellow.png")
    assert ranking.extra["unscored"] == ["yellow.png"] and ranking.extra["answers"] == {"yellow.png": "maybe"}
    prompt, path = vlm.seen[0]
    assert '"the issue became a hot potato"' in prompt and '"hot potato"' in prompt and path.name == "red.png"


def test_vlm_judge_list_borda_recovers_preference_and_cancels_position_bias(tmp_path):
    item = make_item(tmp_path, "hot potato", "s")
    truthful = VlmJudgeRanker(ScriptedVLM(["green", "yellow", "blue", "grey", "red"]), mode="list", orders=5)
    ranking = truthful.rank([item])[0]
    assert ranking.order == ("green.png", "yellow.png", "blue.png", "grey.png", "red.png")
    assert len(ranking.extra["orders"]) == 5 and ranking.extra["orders"][1]["shown"][0] == "green.png"
    biased_vlm = ScriptedVLM([], position_biased=True)
    biased = VlmJudgeRanker(biased_vlm, mode="list", orders=5).rank([item])[0]
    # "1,2,3,4,5" under all 5 rotations gives every image 4+3+2+1+0 points: a full tie, image order kept
    assert set(biased.scores.values()) == {10.0} and biased.order == tuple(i.name for i in item.images)
    assert [Path(p).stem for p in biased_vlm.seen[2][1]] == ["blue", "yellow", "grey", "red", "green"]
    one_order = VlmJudgeRanker(ScriptedVLM([], position_biased=True), mode="list", orders=1).rank([item])[0]
    assert one_order.order == tuple(i.name for i in item.images) and one_order.scores["red.png"] == 4


def test_vlm_judge_in_process_tiny_llava(tmp_path):
    folder = tiny_llava_dir(tmp_path / "llava")
    item = make_item(tmp_path, "hot potato", "the issue became a hot potato")
    cache = ResponseCache(tmp_path / "c.sqlite")
    vlm = with_cache(TransformersVLM(f"hf:{folder}"), cache)
    ranking = VlmJudgeRanker(vlm).rank([item])[0]
    probs = [ranking.scores[i.name] for i in item.images]
    assert all(0 < p < 1 for p in probs) and len(set(probs)) == 5  # the pictures differ, so do the answers
    assert sorted(ranking.order) == sorted(i.name for i in item.images)
    assert list(ranking.order) == [item.images[i].name for i in np.argsort(-np.asarray(probs), kind="stable")]
    listed = VlmJudgeRanker(vlm, mode="list", orders=2).rank([item])[0]
    assert len(listed.extra["orders"]) == 2 and all(isinstance(o["answer"], str) for o in listed.extra["orders"])
    # everything is cached: a fresh backend on the same cache never builds the model
    again = with_cache(TransformersVLM(f"hf:{folder}"), cache)
    assert VlmJudgeRanker(again).rank([item])[0].order == ranking.order and again.model.model is None  # (again.model: the wrapped VLM)


def test_ranking_by_scores_keeps_unscored_last(tmp_path):
    item = make_item(tmp_path, "a b", "s")
    ranking = ranking_by_scores(item.image_names, [None, 0.5, 0.5, None, 0.9])
    assert ranking.order == ("grey.png", "green.png", "blue.png", "red.png", "yellow.png")
    assert ranking.extra["ties"] and isinstance(ranking, Ranking)


@dataclass
class FixedChooser:
    """A text chooser with known answers (the sense part of sequence-continuation)."""

    table: dict[str, tuple[str, dict[str, float]]]
    name: str = "fixed-text"
    fitted_compounds: frozenset[str] = frozenset()

    def describe(self):
        return {"system": self.name}

    def choose(self, items):
        from senso.admire.systems.base import SequenceChoice

        out = []
        for item in items:
            sense, scores = self.table[item.compound]
            out.append(SequenceChoice(expected_item=max(scores, key=scores.get), sentence_type=sense, scores=scores))
        return out


def make_b_item(folder: Path, compound: str) -> AdmireBItem:
    seq = (write_png(folder / compound / "s1.png", (240, 20, 20)), write_png(folder / compound / "s2.png", (220, 60, 10)))
    candidates = tuple(ImageOption(f"{n}.png", f"a {n} picture", path=write_png(folder / compound / f"{n}.png", COLORS[n]))
                       for n in ("blue", "red", "green", "grey"))
    return AdmireBItem(compound=compound, subset="Test", sequence_captions=("c1", "c2"), candidates=candidates,
                       sequence_paths=seq)


def test_sequence_continuation_with_images(tmp_path):
    from senso.admire.systems.images.sequence import ImageSequenceChooser

    item = make_b_item(tmp_path, "red flag")
    text = FixedChooser({"red flag": ("idiomatic", {"blue.png": 0.9, "red.png": 0.1, "green.png": 0.2, "grey.png": 0.3})})
    images_only = ImageSequenceChooser(colour_model(), text, text_weight=0.0).choose([item])[0]
    # the red candidate is the closest in colour to the red/orange story; the sense comes from the text chooser
    assert images_only.expected_item == "red.png" and images_only.sentence_type == "idiomatic"
    coherence = images_only.extra["image_coherence"]
    assert coherence["red.png"] > coherence["grey.png"] > coherence["green.png"] > coherence["blue.png"]
    # with the text scores weighted heavily, the text chooser's pick wins
    assert ImageSequenceChooser(colour_model(), text, text_weight=10.0).choose([item])[0].expected_item == "blue.png"
    from dataclasses import replace

    with pytest.raises(SensoError, match="'red flag': no sequence images"):
        ImageSequenceChooser(colour_model(), text).choose([replace(item, sequence_paths=None)])


def test_fusion_and_vlm_judge_options_are_checked_before_anything_loads():
    with pytest.raises(OptionError, match=r"3 weights for 2 --members \(caption-similarity, clip-rank\)"):
        check_fusion(FusionOptions(weights=(1.0, 1.0, 1.0)))
    check_fusion(FusionOptions(weights=(1.0, 2.0)))
    with pytest.raises(OptionError, match="between 1 and 5 .* got 6"):
        check_vlm_judge(RunOptions(task="admire-a", generator="hf:judge"), VlmJudgeOptions(orders=6))
    assert check_vlm_judge(RunOptions(task="admire-a", generator="hf:judge"), VlmJudgeOptions(orders=5)) == "hf:judge"
    with pytest.raises(SensoError, match="write --generator hf:lm instead of --model hf:lm"):
        check_vlm_judge(RunOptions(task="admire-a", model="hf:lm"))
    with pytest.raises(SensoError, match="vlm-judge needs a vision-language model"):
        check_vlm_judge(RunOptions(task="admire-a"))
