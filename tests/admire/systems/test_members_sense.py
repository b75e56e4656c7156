"""A composed system reports the sense its members decided: the mean of their P(idiomatic), labelled at 0.5."""

from __future__ import annotations

from senso.admire.systems.base import Ranking, members_sense
from senso.admire.systems.pipeline import Ensemble


class Fixed:
    fitted_compounds: frozenset = frozenset()
    uses_images = False

    def __init__(self, name, p):
        self.name, self.p = name, p

    def describe(self):
        return {"name": self.name}

    def rank(self, items):
        extra = {} if self.p is None else {"p_idiomatic": self.p}
        return [Ranking(order=("a", "b", "c", "d", "e"), scores={n: 1.0 for n in "abcde"}, extra=dict(extra))
                for _ in items]


def test_members_sense_is_the_mean_of_the_members_that_decide_one():
    rankings = [Ranking(("a",), extra={"p_idiomatic": 0.2}), Ranking(("a",), extra={"p_idiomatic": 0.9}),
                Ranking(("a",))]
    assert members_sense(rankings) == {"sense": "idiomatic", "p_idiomatic": 0.55}
    assert members_sense([Ranking(("a",))]) == {}


def test_an_ensemble_of_sense_deciding_members_reports_a_sense():
    [ranking] = Ensemble([Fixed("x", 0.1), Fixed("y", 0.3)]).rank(["item"])
    assert ranking.extra["sense"] == "literal" and ranking.extra["p_idiomatic"] == 0.2
    [ranking] = Ensemble([Fixed("x", None), Fixed("y", None)]).rank(["item"])
    assert "sense" not in ranking.extra
