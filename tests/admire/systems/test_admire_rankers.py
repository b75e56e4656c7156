import math

import pytest

from senso.admire.systems.evidence import EvidenceBuilder
from senso.admire.systems.meaning import WordNetMeaning
from senso.admire.metrics import admire_dcg as dcg
from senso.admire.systems.rankers import (CaptionRanker, StructureRanker, SubstitutionRanker, assign_roles,
                                          best_expected_order)
from senso.admire.systems.sense import SenseDecision
from senso.admire.systems.wordnet import WordNet

from admire_parts_fixtures import (IDIOMATIC_SENTENCE, LITERAL_SENTENCE, BagOfWordsEmbedder, night_owl_item,
                                   write_wordnet)

GOLD_I = ("I1", "I2", "L2", "L1", "D")
GOLD_L = ("L1", "L2", "I2", "I1", "D")


@pytest.fixture()
def builder(tmp_path):
    wordnet = WordNet(write_wordnet(tmp_path / "dict"))
    return EvidenceBuilder(BagOfWordsEmbedder(), WordNetMeaning(wordnet), wordnet)


def test_dcg_official_weights():
    assert dcg(GOLD_I, GOLD_I) == pytest.approx(3 + 1 / math.log2(3))
    assert dcg(GOLD_L, GOLD_I) == pytest.approx(3 / math.log2(5) + 1 / math.log2(4))


def test_expected_dcg_order_confident_and_unsure():
    assert best_expected_order(GOLD_I, GOLD_I, GOLD_L, 1.0)[0] == GOLD_I
    # p = 0.9: positions 3-5 carry no weight under idiomatic gold, so the other sense's strong image goes
    # third (3/log2(4) + 1/log2(5) = 1.931 under literal gold, against 1.792 for the gold layout)
    assert best_expected_order(GOLD_I, GOLD_I, GOLD_L, 0.9)[0] == ("I1", "I2", "L1", "L2", "D")
    assert best_expected_order(GOLD_I, GOLD_I, GOLD_L, 0.0)[0] == GOLD_L
    # p = 0.5: the strong image of each sense in the two weighted positions. [I1, L1, I2, L2, D] and
    # [I1, L1, L2, I2, D] tie at 0.5 * (3 + 1/2) + 0.5 * (3/log2(3) + 1/log2(5)); the first permutation wins.
    order, value = best_expected_order(GOLD_I, GOLD_I, GOLD_L, 0.5)
    assert order == ("I1", "L1", "I2", "L2", "D")
    assert value == pytest.approx(0.5 * 3.5 + 0.5 * (3 / math.log2(3) + 1 / math.log2(5)))


def test_roles_from_literal_reading_and_meaning(builder):
    evidence = builder.build([night_owl_item(IDIOMATIC_SENTENCE, "idiomatic")])[0]
    names = [i.name for i in evidence.item.images]
    roles = {role: names[j] for role, j in assign_roles(evidence).items()}
    assert roles == {"strong idiomatic": "strong_idiom.png", "mild idiomatic": "mild_idiom.png",
                     "mild literal": "mild_literal.png", "strong literal": "strong_literal.png",
                     "distractor": "distractor.png"}


def test_structure_ranker_follows_the_sense(builder):
    items = [night_owl_item(IDIOMATIC_SENTENCE, "idiomatic"), night_owl_item(LITERAL_SENTENCE, "literal")]
    rankings = StructureRanker(builder, hedge=False).rank(items, [SenseDecision(0.9), SenseDecision(0.1)])
    assert rankings[0].order == items[0].expected_order
    assert rankings[1].order == items[1].expected_order
    hedged = StructureRanker(builder).rank(items[:1], [SenseDecision(0.5)])[0]
    assert hedged.order[:2] == ("strong_idiom.png", "strong_literal.png")
    assert hedged.extra["roles"]["distractor"] == "distractor.png"


def test_substitution_and_caption_rankers(builder):
    item = night_owl_item(IDIOMATIC_SENTENCE, "idiomatic")
    substituted = SubstitutionRanker(builder).rank([item], [SenseDecision(0.9)])[0]
    assert substituted.extra["query"] == "meaning substituted"
    assert substituted.order[0] == "strong_idiom.png"
    literal = SubstitutionRanker(builder).rank([item], [SenseDecision(0.1)])[0]
    assert literal.extra["query"] == "sentence"
    caption = CaptionRanker(builder).rank([item], [SenseDecision(0.1)])[0]
    assert sorted(caption.order) == sorted(i.name for i in item.images)
    assert caption.scores[caption.order[0]] >= caption.scores[caption.order[-1]]
