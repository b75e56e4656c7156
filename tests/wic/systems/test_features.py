"""Pair features: cosines row by row, each lemma's pairs set against their own mean (no gold read)."""

from __future__ import annotations

import numpy as np
import pytest

from senso.core.errors import SensoError
from senso.wic.systems.features import check_layers, lemma_relative, rowwise_cosine


def test_cosines_are_taken_row_by_row_over_the_last_axis():
    a = np.array([[[1.0, 0.0], [1.0, 1.0]], [[0.0, 0.0], [2.0, 0.0]]])
    b = np.array([[[1.0, 0.0], [-1.0, -1.0]], [[1.0, 0.0], [0.0, 3.0]]])
    assert rowwise_cosine(a, b).ravel().tolist() == pytest.approx([1.0, -1.0, 0.0, 0.0])


def test_each_value_is_set_against_its_lemmas_mean():
    values = np.array([[1.0], [3.0], [5.0], [7.0]])
    assert lemma_relative(values, ["a", "b", "a", "a"]).ravel().tolist() == pytest.approx(
        [1 - 13 / 3, 0.0, 5 - 13 / 3, 7 - 13 / 3])


def test_layers_outside_the_encoder_are_refused():
    assert check_layers((0, 12), 12, "x") == [0, 12]
    with pytest.raises(SensoError, match="x: layers are 0 .* to 12, at least one; got \\(\\)"):
        check_layers((), 12, "x")
