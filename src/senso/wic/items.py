"""A word-in-context item: two usages of one word, each a sentence with the target located by character offsets
(end exclusive), judged the same meaning or not (binary) and/or how related (graded)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Usage:
    """One usage: the sentence, the target's character span in it (`text[start:end]` is the target as written),
    and the sentence's language (ISO 639-1)."""

    text: str
    start: int
    end: int
    lang: str

    @property
    def target(self) -> str:
        return self.text[self.start:self.end]


@dataclass(frozen=True)
class WicPair:
    """A pair of usages of one word. `pair_id` is the item's key (unique in its data set); `lemma` the group
    (leave-lemma-out folds, the unseen-lemma headline); `label` 1 = same meaning, 0 = not, None = no binary gold;
    `score` the graded gold on the task's declared scale, None = no graded gold; `source` names the file and row
    the pair came from (for messages)."""

    pair_id: str
    lemma: str
    first: Usage
    second: Usage
    label: int | None = None
    score: float | None = None
    source: str = ""

    @property
    def langs(self) -> str:
        """The language pair as reported apart: "it" for it-it, "it-en" for cross-lingual pairs."""
        a, b = self.first.lang, self.second.lang
        return a if a == b else f"{a}-{b}"
