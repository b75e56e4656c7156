"""Two runs that are not on the same items are refused saying which option chose other items: the split, the
language or --limit (an AdMIRe comparison of its own, and the comparison of any other task's runs)."""

from __future__ import annotations

import pytest

import senso
from senso.core.errors import SensoError

pytestmark = pytest.mark.real_data


def test_admire_runs_on_different_splits_say_the_splits_differ(data_dir):
    dev = senso.evaluate("admire-a", system="random", split="dev", data_dir=data_dir, limit=5)
    train = senso.evaluate("admire-a", system="random", split="train", data_dir=data_dir, limit=5)
    with pytest.raises(SensoError, match=r"<in memory: random> and <in memory: random> are not on the same items "
                                         r"\(5 vs 5\), run with different splits \(dev vs train\): only in A"):
        senso.compare(dev, train)


def test_admire_runs_with_other_limits_say_the_limits_differ(data_dir):
    five = senso.evaluate("admire-a", system="random", split="dev", data_dir=data_dir, limit=5)
    three = senso.evaluate("admire-a", system="random", split="dev", data_dir=data_dir, limit=3)
    with pytest.raises(SensoError, match=r"\(5 vs 3\), run with different --limit \(5 vs 3\): only in A"):
        senso.compare(five, three)


class Flat:
    """A Likert system that answers one flat distribution for every item."""

    name = "flat"

    def predict(self, items, task):
        return [[0.2] * 5 for _ in items]


def test_likert_runs_with_other_limits_say_the_limits_differ(data_dir):
    twelve = senso.evaluate("abricot-abs", system=Flat(), data_dir=data_dir, limit=12)
    ten = senso.evaluate("abricot-abs", system=Flat(), data_dir=data_dir, limit=10)
    with pytest.raises(SensoError, match=r"are not on the same items \(12 vs 10; run with different --limit "
                                         r"\(12 vs 10\); 2 only in the first"):
        senso.compare(twelve, ten)
