"""Embedding evidence about one AdMIRe item, shared by sense classifiers and rankers.

For each item: the sentence, its context (the sentence with the compound cut out), the idiomatic
meaning (when a meaning source knows it), the literal reading of the compound's words, the compound's
content words, the context's content words, and the captions — all embedded once with one embedder
(the embedder's cache makes a second request for the same text free).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from senso.backends.embedders import Embedder
from senso.admire.items import AdmireAItem
from senso.core.errors import SensoError
from senso.admire.systems.compound import find_compound, mask, substitute
from senso.admire.systems.meaning import Meaning, MeaningSource, content_words, literal_reading
from senso.admire.systems.wordnet import WordNet

# Words that carry no topic; the context-word signal looks only at the others.
STOPWORDS = frozenset("""a an the of in on at to for from by with and or but is are was were be been being it its
this that these those as he she they we you i his her their our my your me him them us not no so if then than there
here who whom which what when where why how all any some can could would should will shall may might must do does did
have has had also just very more most much many such into about over after before up down out off again once only own
same too one two get got make made like well even still really way o a os as um uma de da do das dos e em no na nos nas
que se por para com ao à é foi ser seu sua""".split())


def context_words(sentence: str, compound: str) -> list[str]:
    """Content words of the sentence outside the compound (letters only, 3+ characters, no stopwords)."""
    context = mask(sentence, compound, " ") or sentence
    words = re.findall(r"[^\W\d_][^\W\d_'’-]+", context)
    return [w for w in words if w.lower() not in STOPWORDS and len(w) > 2]


@dataclass
class ItemEvidence:
    """Embeddings (L2-normalised rows) of everything about one item; `meaning` may be None."""

    item: AdmireAItem
    meaning: Meaning | None
    literal_text: str
    context_text: str
    sentence: np.ndarray
    context: np.ndarray
    literal: np.ndarray
    meaning_vec: np.ndarray | None
    substituted: np.ndarray | None
    captions: np.ndarray | None  # (n_images, dim); None when the item has no captions (PT targets only)
    component_vecs: np.ndarray
    context_word_vecs: np.ndarray | None
    found_compound: bool
    notes: list[str] = field(default_factory=list)

    def caption_sims(self, vector: np.ndarray) -> np.ndarray:
        return self.captions @ vector

    @property
    def meaning_or_context(self) -> np.ndarray:
        """What the idiomatic sense looks like: the meaning when known, else the sentence's own context."""
        return self.meaning_vec if self.meaning_vec is not None else self.context


@dataclass
class EvidenceBuilder:
    """Builds `ItemEvidence` for items with one embedder, meaning source and (optional) WordNet."""

    embedder: Embedder
    meanings: MeaningSource | None
    wordnet: WordNet | None
    caption_lang: str | None = None

    def describe(self) -> dict:
        return {"embedder": self.embedder.spec, "meaning": self.meanings.describe() if self.meanings else None,
                "wordnet": str(self.wordnet.source) if self.wordnet else None}

    def build(self, items: list[AdmireAItem]) -> list[ItemEvidence]:
        plans = []
        queries: list[str] = []
        passages: list[str] = []
        for item in items:
            meaning = self.meanings.meaning(item.compound, item.sentence, item.lang) if self.meanings else None
            literal = literal_reading(item.compound, self.wordnet, item.lang)
            found = find_compound(item.sentence, item.compound) is not None
            context = (mask(item.sentence, item.compound, "") if found else "").strip() or item.sentence
            substituted = substitute(item.sentence, item.compound, meaning.text) if (meaning and found) else None
            try:
                captions = [item.caption(i.name, self.caption_lang) for i in item.images]
            except SensoError:  # e.g. Portuguese targets-only items: sentences without captions
                captions = []
            has_captions = bool(captions) and all(c.strip() for c in captions)
            ctx_words = context_words(item.sentence, item.compound)
            components = content_words(item.compound)
            plan = {"item": item, "meaning": meaning, "literal": literal, "context": context, "found": found,
                    "substituted": substituted, "captions": captions if has_captions else None,
                    "ctx_words": ctx_words, "components": components}
            queries += [item.sentence, context, literal] + ([meaning.text] if meaning else []) \
                + ([substituted] if substituted else []) + components + ctx_words
            if has_captions:
                passages += captions
            plans.append(plan)
        q = dict(zip(queries, self.embedder.embed(queries, "query"))) if queries else {}
        p = dict(zip(passages, self.embedder.embed(passages, "passage"))) if passages else {}
        out = []
        for plan in plans:
            item = plan["item"]
            notes = [] if plan["found"] else [f"compound {item.compound!r} not found in the sentence; context = whole sentence"]
            out.append(ItemEvidence(
                item=item, meaning=plan["meaning"], literal_text=plan["literal"], context_text=plan["context"],
                sentence=q[item.sentence], context=q[plan["context"]], literal=q[plan["literal"]],
                meaning_vec=q[plan["meaning"].text] if plan["meaning"] else None,
                substituted=q[plan["substituted"]] if plan["substituted"] else None,
                captions=np.stack([p[c] for c in plan["captions"]]) if plan["captions"] else None,
                component_vecs=np.stack([q[w] for w in plan["components"]]),
                context_word_vecs=np.stack([q[w] for w in plan["ctx_words"]]) if plan["ctx_words"] else None,
                found_compound=plan["found"], notes=notes,
            ))
        return out
