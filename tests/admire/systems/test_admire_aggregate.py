import pytest

from senso.core.errors import SensoError
from senso.admire.systems.aggregate import aggregate, borda, reciprocal_rank_fusion, score_average
from senso.admire.systems.base import Ranking
from senso.admire.systems.registry import check_system, get_system
from senso.core.options import RunOptions
from senso.core.params import OptionError


def r(*order, scores=None):
    return Ranking(order=tuple(order), scores=dict(scores or {}))


def test_borda_hand_computed():
    # points a: 2+1+2 = 5, b: 1+2+0 = 3, c: 0+0+1 = 1
    fused = borda([r("a", "b", "c"), r("b", "a", "c"), r("a", "c", "b")])
    assert fused.order == ("a", "b", "c")
    assert fused.scores == {"a": 5.0, "b": 3.0, "c": 1.0}
    assert fused.extra["ties"] == []


def test_borda_tie_broken_by_first_member_and_recorded():
    # a: 2+0 = 2, b: 1+1 = 2, c: 0+2 = 2: a three-way tie; first member's order decides
    tied = borda([r("c", "a", "b"), r("b", "a", "c")])  # c: 2+0, a: 1+1, b: 0+2 -> all 2
    assert tied.order == ("c", "a", "b")
    assert tied.extra["ties"] == [["c", "a", "b"]]
    assert "first member" in tied.extra["tie_break"]


def test_rrf_hand_computed():
    fused = reciprocal_rank_fusion([r("a", "b", "c"), r("c", "a", "b")], k=1)
    # a: 1/2 + 1/3, b: 1/3 + 1/4, c: 1/4 + 1/2
    assert fused.scores["a"] == pytest.approx(1 / 2 + 1 / 3)
    assert fused.scores["c"] == pytest.approx(1 / 4 + 1 / 2)
    assert fused.order == ("a", "c", "b")


def test_rrf_tie_is_recorded():
    fused = reciprocal_rank_fusion([r("a", "b"), r("b", "a")])
    assert fused.order == ("a", "b")
    assert fused.extra["ties"] == [["a", "b"]]


def test_score_average_standardises_scales():
    # member 1 in cosines, member 2 in log-probs: z-scores (population std) make them comparable.
    m1 = r("a", "b", "c", scores={"a": 0.9, "b": 0.8, "c": 0.4})  # z = 0.9258, 0.4629, -1.3887
    m2 = r("c", "b", "a", scores={"c": -1.0, "b": -50.0, "a": -100.0})  # z = -1.2288, 0.0082, 1.2206 (a, b, c)
    fused = score_average([m1, m2])
    assert fused.order == ("b", "c", "a")
    assert fused.scores["a"] == pytest.approx((0.92582 - 1.22882) / 2, abs=1e-4)
    assert fused.scores["b"] == pytest.approx((0.46291 + 0.00825) / 2, abs=1e-4)


def test_score_average_member_without_scores_uses_borda_points():
    fused = score_average([r("a", "b", "c"), r("a", "c", "b")])
    assert fused.order == ("a", "b", "c")
    assert fused.extra["ties"] == [["b", "c"]]


def test_different_images_refused():
    with pytest.raises(SensoError, match="different images"):
        borda([r("a", "b"), r("a", "c")])


def test_aggregate_item_by_item():
    per_member = [[r("a", "b"), r("x", "y")], [r("a", "b"), r("y", "x")]]
    fused = aggregate("borda", per_member)
    assert [f.order for f in fused] == [("a", "b"), ("x", "y")]
    ensemble = RunOptions(task="admire-a", system="ensemble", system_options={"aggregator": "vote"})
    with pytest.raises(OptionError, match="aggregator: unknown value 'vote'; choose from borda, rrf, mean"):
        check_system(get_system("a", "ensemble"), ensemble)  # before anything is built
