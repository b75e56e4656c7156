"""The parts every family's report section draws alike (`senso.core.page`): the target marked in its sentence,
the items on which runs differ."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from senso.core.page import differing, mark_phrase, mark_span


def test_mark_span_escapes_and_uses_the_inclusive_end():
    text = "Il cane <abbaia> & corre."
    assert str(mark_span(text, 3, 6)) == "Il <mark>cane</mark> &lt;abbaia&gt; &amp; corre."
    with pytest.raises(ValueError, match="outside"):
        mark_span(text, 3, len(text))


def test_mark_phrase_variants_and_escaping():
    assert str(mark_phrase("He was a bad apple.", "bad apple")) == "He was a <mark>bad apple</mark>."
    assert str(mark_phrase("Two Bad Apples & more", "bad apple")) == "Two <mark>Bad Apples</mark> &amp; more"
    assert str(mark_phrase("his green-fingers", "green fingers")) == "his <mark>green-fingers</mark>"
    assert str(mark_phrase("played devil's advocate <again>", "devil's advocate")) == \
        "played <mark>devil&#39;s advocate</mark> &lt;again&gt;"
    assert str(mark_phrase("no match here", "night owl")) == "no match here"


def test_differing_matches_items_by_key_and_keeps_the_first_run_s_order():
    def run(answers):
        samples = [{"id": key, "prediction": value} for key, value in answers]
        return SimpleNamespace(samples=samples, item_id=lambda sample: sample["id"])

    a = run([("x", 1), ("y", 2), ("z", 3)])
    b = run([("z", 3), ("y", 5), ("x", 1)])  # another order: matched by id
    found = differing([a, b], lambda s: s["prediction"])
    assert [(k, [s["prediction"] for s in at]) for k, at in found] == [(1, [2, 5])]
