"""Find a compound in its sentence, surviving inflection, case and hyphenation.

*hen parties* must match *hen party*, *two-way streets* match *two-way street*, Portuguese
*pé de meia* match *pé-de-meia*, *copycat* match *copy cat*. The match is a character span, so
callers can cut the compound out of the sentence (its context) or substitute a meaning for it.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# Endings an English or Portuguese noun phrase word may gain (plural, possessive, gender/number
# agreement). Tried after the word's own stem variants below.
_SUFFIXES = r"(?:'s|s'|’s|s’|s|es|a|as|os)?"
_IRREGULAR_PLURALS = {"child": "children", "foot": "feet", "tooth": "teeth", "goose": "geese",
                      "mouse": "mice", "louse": "lice", "person": "people", "ox": "oxen", "die": "dice"}


def _strip_accents(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")


def compound_words(compound: str) -> list[str]:
    """The compound's words, split on spaces, hyphens and underscores (apostrophes kept)."""
    return [w for w in re.split(r"[\s\-_‐–]+", compound.strip()) if w]


def _word_pattern(word: str) -> str:
    """A word and its inflected forms: -s/-es/-'s, y->ies, f(e)->ves, man->men, child->children, o->a (PT)."""
    stems = {re.escape(word)}
    lower = word.lower()
    if lower.endswith("y") and len(word) > 2:
        stems.add(re.escape(word[:-1]) + "ies")
    if lower.endswith("fe"):
        stems.add(re.escape(word[:-2]) + "ves")
    elif lower.endswith("f"):
        stems.add(re.escape(word[:-1]) + "ves")
    if lower in _IRREGULAR_PLURALS:
        stems.add(re.escape(_IRREGULAR_PLURALS[lower]))
    if lower.endswith("man"):
        stems.add(re.escape(word[:-3]) + "men")
    if lower.endswith(("o", "a", "e")) and len(word) > 2:
        stems.add(re.escape(word[:-1]))  # PT: negro/negra/negros, grande/grandes via suffix
    if lower.endswith(("ão",)):
        stems.add(re.escape(word[:-2]) + "(?:ões|ães|ãos)")
    if lower.endswith("l") and len(word) > 3:
        stems.add(re.escape(word[:-1]) + "is")  # PT: animal -> animais
    alternatives = "|".join(sorted(stems, key=len, reverse=True))
    return f"(?:{alternatives}){_SUFFIXES}"


@lru_cache(maxsize=4096)
def _compound_regex(compound: str) -> re.Pattern[str]:
    words = [_strip_accents(w) for w in compound_words(compound)]
    if not words:
        raise ValueError("empty compound")
    # Words may be joined by spaces, hyphens, or nothing (copy cat ~ copycat).
    separator = r"[\s\-‐–_]*"
    body = separator.join(_word_pattern(w) for w in words)
    return re.compile(rf"(?<![\w]){body}(?![\w])", re.IGNORECASE)


def find_compound(sentence: str, compound: str) -> slice | None:
    """The characters of `sentence` that hold the first occurrence of `compound` (any inflection, case,
    hyphenation, accents); None when the compound is not there, callers decide what that means.
    Matching is done on an accent-stripped copy of the same length, so the slice indexes the original.
    """
    plain = _strip_accents(sentence)
    if len(plain) != len(sentence):  # precomposed characters that NFD expands: map char by char
        plain = "".join(_strip_accents(c)[:1] or c for c in sentence)
    match = _compound_regex(compound).search(plain)
    if match is None:
        return None
    return slice(match.start(), match.end())


def substitute(sentence: str, compound: str, replacement: str) -> str | None:
    """`sentence` with the compound replaced by `replacement`; None when the compound is not found."""
    span = find_compound(sentence, compound)
    if span is None:
        return None
    return sentence[:span.start] + replacement + sentence[span.stop:]
