"""Whether a located target is where its file says: a whole word of its sentence that, where the task checks it,
begins as its lemma does."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from senso.core.errors import DataError
from senso.wic.items import Usage


def folded(text: str) -> str:
    """Lower case without accents: how a target is compared with its lemma."""
    return "".join(c for c in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(c))


def _inside_word(text: str, start: int, end: int) -> bool:
    """Whether the span cuts a word: a letter or digit on both sides of its start or of its end."""
    cut = lambda k: 0 < k < len(text) and text[k - 1].isalnum() and text[k].isalnum()
    return cut(start) or cut(end)


def check_target(usage: Usage, lemma: str, where: tuple[Path, int, str], lemma_check: bool = True) -> None:
    """A target is a whole word, or words (a span that cuts a word points elsewhere) and, with `lemma_check`,
    begins as its lemma does, case and accents aside (`Boards` for board, `minori` for minore; a task whose
    verbs have irregular forms, went for go, va for andare, turns the check off)."""
    target, word = folded(usage.target.strip()), folded(lemma)
    if not any(c.isalnum() for c in target) or _inside_word(usage.text, usage.start, usage.end):
        raise DataError(where[0], f"the target {usage.target!r} at {usage.start}:{usage.end} is not a whole word of "
                                  "the sentence: the offsets point elsewhere", row=where[1], field=where[2])
    if lemma_check and (not word or target[0] != word[0]):
        raise DataError(where[0], f"the target {usage.target!r} at {usage.start}:{usage.end} does not match the "
                                  f"lemma {lemma!r} (it should begin as the lemma does; a task with irregular forms "
                                  "says lemma_check = false)", row=where[1], field=where[2])
