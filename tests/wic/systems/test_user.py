"""A researcher's own system through the adapter: strict about methods, counts and types; numpy numbers welcome."""

from __future__ import annotations

import numpy as np
import pytest

from senso.core.errors import SensoError
from senso.wic.systems.user import UserWicSystem

from conftest import toy_pairs


class Judges:
    name = "coin"

    def __init__(self, answers=None):
        self.answers, self.seen = answers, None

    def fit(self, pairs):
        self.seen = len(pairs)

    def judge(self, pairs):
        return self.answers if self.answers is not None else [np.float32(0.25)] * len(pairs)

    def describe(self):
        return {"rule": "a quarter"}


class Relates:
    def relate(self, pairs):
        return np.arange(len(pairs), dtype=np.int64)


def test_answers_are_read_as_numbers_and_the_run_records_the_object():
    pairs = toy_pairs()[:3]
    system = UserWicSystem(Judges()).fit(pairs)
    assert system.system.seen == 3 and system.judge(pairs) == [0.25] * 3
    assert UserWicSystem(Judges([True, False, np.bool_(True)])).judge(pairs) == [1.0, 0.0, 1.0]
    assert UserWicSystem(Relates()).relate(pairs) == [0.0, 1.0, 2.0]
    assert system.describe() == {"system": "user:coin", "user_supplied": True,
                                 "class": f"{Judges.__module__}.Judges", "rule": "a quarter"}


@pytest.mark.parametrize("answers, message", [
    ([0.5], "returned 1 answers for 3 pairs"),
    ("yes", "returned str, not a list"),
    ([0.5, 1.5, 0.5], r"pair bank.0.2: answers P\(same meaning\) in \[0, 1\] or True/False, got 1.5"),
    ([0.5, "0.5", 0.5], "got '0.5'"),
    ([0.5, float("nan"), 0.5], "got nan"),
    ([0.5, None, 0.5], "got None"),
])
def test_bad_judgments_are_errors_naming_method_and_pair(answers, message):
    with pytest.raises(SensoError, match=message):
        UserWicSystem(Judges(answers)).judge(toy_pairs()[:3])


def test_missing_methods_and_bool_scores_are_errors():
    with pytest.raises(SensoError, match=r"has neither judge\(pairs\) .* nor relate\(pairs\)"):
        UserWicSystem(object())
    with pytest.raises(SensoError, match=r"Judges has no relate\(pairs\) method"):
        UserWicSystem(Judges()).relate(toy_pairs()[:2])

    class BoolScores:
        def relate(self, pairs):
            return [True] * len(pairs)

    with pytest.raises(SensoError, match="relate: pair bank.0.1: answers a finite number"):
        UserWicSystem(BoolScores()).relate(toy_pairs()[:2])
