"""What scored Likert items share with a supervised system's training data: the group (ABRICOT: the lemma) and
the text (the same sentence, another target or another group).

A supervised Likert run is leave-one-group-out (`systems/supervised.py`): each item is predicted by a model fit
on every item of the other groups, so no item shares its group, but one may share its text with a training
item. Every supervised run records each item's overlap and reports the metrics on the items that share nothing
(`unseen`) beside the all-items figure; `senso data overlap` prints the table for any two data sets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from senso.likert.items import LikertItem

OVERLAP_FIELDS = ("group", "text")


def overlap_words(noun: str) -> dict[str, str]:
    """How the overlap sentence names each field (`noun`: the task's group, ABRICOT's lemma)."""
    return {"group": f"the {noun}", "text": "the text"}


def _by_text(training: Sequence[LikertItem]) -> dict[str, list[LikertItem]]:
    texts: dict[str, list[LikertItem]] = {}
    for item in training:
        texts.setdefault(item.text.strip(), []).append(item)
    return texts


def leave_one_group_out_overlaps(items: Sequence[LikertItem], pool: Sequence[LikertItem]) -> list[dict[str, bool]]:
    """Per item, what it shares with its own training fold: the items of `pool` in other groups."""
    groups_of_text: dict[str, set[str]] = {}
    for other in pool:
        groups_of_text.setdefault(other.text.strip(), set()).add(other.group)
    return [{"group": False, "text": bool(groups_of_text.get(item.text.strip(), set()) - {item.group})}
            for item in items]


@dataclass(frozen=True)
class OverlapRow:
    """One evaluation item that shares something with the training data: its id, group and text, and the ids of
    the training items with the same group and with the same text."""

    id: str
    group: str
    text: str
    same_group: tuple[str, ...]
    same_text: tuple[str, ...]


def overlap_rows(eval_items: Sequence[LikertItem], train_items: Sequence[LikertItem]) -> list[OverlapRow]:
    """The table `senso data overlap` prints for a Likert task: every evaluation item sharing a group or a text."""
    groups: dict[str, list[str]] = {}
    for item in train_items:
        groups.setdefault(item.group, []).append(item.id)
    texts = _by_text(train_items)
    rows = []
    for item in eval_items:
        same_group = tuple(groups.get(item.group, ()))
        same_text = tuple(o.id for o in texts.get(item.text.strip(), ()))
        if same_group or same_text:
            rows.append(OverlapRow(item.id, item.group, item.text, same_group, same_text))
    return rows
