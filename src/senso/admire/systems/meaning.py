"""Meaning sources: what a compound means idiomatically, and what its words mean literally.

A meaning source answers `meaning(compound, sentence, lang) -> Meaning | None`: WordNet, a user glossary (how
Portuguese gets meanings without a model), a generative model (`generative.GeneratedMeaning`), or the first of
several that knows. `literal_reading(compound)` describes the words taken at face value (their first WordNet
senses), which rankers and sense classifiers compare against the idiomatic meaning.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from senso.core.csvfile import read_rows
from senso.core.errors import DataError, SensoError
from senso.admire.systems.compound import compound_words
from senso.admire.systems.wordnet import Synset, WordNet

_FUNCTION_WORDS = {"of", "in", "the", "a", "an", "and", "on", "to", "for", "de", "da", "do", "das", "dos", "e", "em",
                   "no", "na", "o", "um", "uma"}


@dataclass(frozen=True)
class Meaning:
    """The idiomatic meaning of `compound` as a short definition, and where it came from."""

    compound: str
    text: str
    source: str  # "wordnet:<synset id>", "glossary:<file>", "generated:<model>"


class MeaningSource(Protocol):
    name: str

    def meaning(self, compound: str, sentence: str | None = None, lang: str = "en") -> Meaning | None: ...

    def describe(self) -> dict: ...


def content_words(compound: str) -> list[str]:
    """The compound's words without function words (*pain in the neck* -> pain, neck)."""
    words = [w.lower().replace("'s", "").replace("’s", "") for w in compound_words(compound)]
    return [w for w in words if w not in _FUNCTION_WORDS] or words


def lemma_variants(compound: str) -> list[str]:
    """Spellings WordNet may list a compound under: underscored, hyphenated, closed up (copy cat -> copycat)."""
    words = [w.lower() for w in compound_words(compound)]
    return list(dict.fromkeys(["_".join(words), "-".join(words), "".join(words)]))


def _mentions_own_words(synset: Synset, compound: str) -> bool:
    definition = synset.definition.lower()
    return any((word[:-1] if len(word) > 4 and word.endswith("s") else word) in definition
               for word in content_words(compound))


@dataclass
class WordNetMeaning:
    """The compound's WordNet definition: the first sense not defined by the compound's own words (the literal
    sense: *black sheep* gives "a reckless and unprincipled reprobate", not "sheep with a black coat")."""

    wordnet: WordNet
    name: str = "wordnet"

    def synsets(self, compound: str) -> list[Synset]:
        return next((found for lemma in lemma_variants(compound) if (found := self.wordnet.synsets(lemma, "n"))), [])

    def meaning(self, compound: str, sentence: str | None = None, lang: str = "en") -> Meaning | None:
        if lang.split("-")[0] != "en":  # WordNet is English (en, en-GB): a Portuguese *mesa* is not a geological mesa
            return None
        found = self.synsets(compound)
        if not found:
            return None
        figurative = [s for s in found if not _mentions_own_words(s, compound)]
        chosen = (figurative or found)[0]
        return Meaning(compound, chosen.definition, f"wordnet:{chosen.id}")

    def describe(self) -> dict:
        return {"name": self.name, "database": str(self.wordnet.source)}


def read_glossary(path: str | Path) -> dict[str, str]:
    """A glossary TSV: `compound<TAB>meaning` per line, optional header `compound\tmeaning`, `#` comments.

    Keys are lower-cased. Bad lines and duplicates are errors naming the file and row.
    """
    path = Path(path)
    if not path.exists():
        raise SensoError(f"glossary file not found: {path}")
    table: dict[str, str] = {}
    for row_number, row in enumerate(read_rows(path, "\t"), start=1):
        if not row or not "".join(row).strip() or row[0].startswith("#"):
            continue
        if row_number == 1 and [c.strip().lower() for c in row[:2]] == ["compound", "meaning"]:
            continue
        if len(row) != 2 or not row[0].strip() or not row[1].strip():
            raise DataError(path, "expected two non-empty tab-separated fields: compound, meaning", row=row_number)
        key = " ".join(compound_words(row[0].lower()))
        if key in table:
            raise DataError(path, f"compound {row[0]!r} appears twice", row=row_number, field="compound")
        table[key] = row[1].strip()
    return table


@dataclass
class GlossaryMeaning:
    """Meanings from a user glossary file (compound -> meaning); compounds match ignoring case and hyphens."""

    path: Path
    name: str = "glossary"

    def __post_init__(self):
        self.path = Path(self.path)
        self.table = read_glossary(self.path)

    def meaning(self, compound: str, sentence: str | None = None, lang: str = "en") -> Meaning | None:
        text = self.table.get(" ".join(compound_words(compound.lower())))
        return Meaning(compound, text, f"glossary:{self.path.name}") if text else None

    def describe(self) -> dict:
        from senso.core.records import text_hash

        return {"name": self.name, "file": str(self.path), "sha256": text_hash(self.path.read_text(encoding="utf-8")),
                "entries": len(self.table)}


@dataclass
class FallbackMeaning:
    """The first of `sources` that knows the compound."""

    sources: list[MeaningSource]
    name: str = "fallback"

    def meaning(self, compound: str, sentence: str | None = None, lang: str = "en") -> Meaning | None:
        return next((found for source in self.sources if (found := source.meaning(compound, sentence, lang))), None)

    def describe(self) -> dict:
        return {"name": self.name, "sources": [s.describe() for s in self.sources]}


def literal_reading(compound: str, wordnet: WordNet | None, lang: str = "en") -> str:
    """The words at face value: `"night owl: owl (nocturnal bird of prey ...); night (the time after sunset ...)"`.

    Uses each content word's first noun sense (adjective when it has no noun sense); without WordNet,
    or for words WordNet lacks, or for a language other than English, just the words.
    """
    if wordnet is None or lang.split("-")[0] != "en":
        return compound
    parts = []
    for word in content_words(compound):
        synsets = wordnet.synsets(word, "n") or wordnet.synsets(word, "a")
        parts.append(f"{word} ({synsets[0].definition})" if synsets else word)
    return f"{compound}: " + "; ".join(parts)
