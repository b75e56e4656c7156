"""Embedding evidence about one AdMIRe item, shared by sense classifiers and rankers.

For each item: the sentence, its context (the sentence with the compound cut out), the idiomatic
meaning (when a meaning source knows it), the literal reading of the compound's words, the compound's
content words, the context's content words, and the captions — all embedded once with one embedder
(the embedder's cache makes a second request for the same text free).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from senso.backends.embedders import Embedder
from senso.admire.items import AdmireAItem
from senso.admire.systems.compound import substitute
from senso.admire.systems.meaning import MeaningSource, content_words, literal_reading
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
    context = substitute(sentence, compound, " ") or sentence
    words = re.findall(r"[^\W\d_][^\W\d_'’-]+", context)
    return [w for w in words if w.lower() not in STOPWORDS and len(w) > 2]


@dataclass
class ItemEvidence:
    """Embeddings (L2-normalised rows) of everything about one item; `meaning_vec` and `substituted` may be None."""

    item: AdmireAItem
    sentence: np.ndarray
    context: np.ndarray  # the sentence with the compound cut out; the whole sentence when it is not found there
    literal: np.ndarray
    meaning_vec: np.ndarray | None
    substituted: np.ndarray | None
    captions: np.ndarray | None  # (n_images, dim); None when the item has no captions (PT targets only)
    component_vecs: np.ndarray
    context_word_vecs: np.ndarray | None

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

    def describe(self) -> dict:
        return {"embedder": self.embedder.spec, "meaning": self.meanings.describe() if self.meanings else None,
                "wordnet": str(self.wordnet.source) if self.wordnet else None}

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self.embedder.embed(texts, "query")

    def captions(self, items: list[AdmireAItem]) -> list[np.ndarray | None]:
        """Each item's caption embeddings, a row per image; None when it has no captions, or an empty one."""
        texts = []
        for item in items:
            captions = [image.caption for image in item.images]
            texts.append(captions if all(c.strip() for c in captions) else [])
        passages = [caption for captions in texts for caption in captions]
        p = dict(zip(passages, self.embedder.embed(passages, "passage"))) if passages else {}
        return [np.stack([p[c] for c in captions]) if captions else None for captions in texts]

    def _texts(self, item: AdmireAItem) -> dict[str, list[str]]:
        """The item's texts embedded as queries, by what they stand for (one text, or none, for the first five)."""
        meaning = self.meanings.meaning(item.compound, item.sentence, item.lang) if self.meanings else None
        substituted = substitute(item.sentence, item.compound, meaning.text) if meaning else None
        return {"sentence": [item.sentence],
                "context": [(substitute(item.sentence, item.compound, "") or "").strip() or item.sentence],
                "literal": [literal_reading(item.compound, self.wordnet, item.lang)],
                "meaning": [meaning.text] if meaning else [], "substituted": [substituted] if substituted else [],
                "components": content_words(item.compound), "words": context_words(item.sentence, item.compound)}

    def build(self, items: list[AdmireAItem]) -> list[ItemEvidence]:
        plans = [self._texts(item) for item in items]
        queries = [text for plan in plans for texts in plan.values() for text in texts]
        q = dict(zip(queries, self.embed_queries(queries))) if queries else {}
        out = []
        for item, plan, captions in zip(items, plans, self.captions(items)):
            one = {key: q[texts[0]] if texts else None for key, texts in plan.items()}
            out.append(ItemEvidence(
                item=item, sentence=one["sentence"], context=one["context"], literal=one["literal"],
                meaning_vec=one["meaning"], substituted=one["substituted"], captions=captions,
                component_vecs=np.stack([q[w] for w in plan["components"]]),
                context_word_vecs=np.stack([q[w] for w in plan["words"]]) if plan["words"] else None))
        return out
