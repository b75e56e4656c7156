"""Subtask B `sequence-continuation`: decide the sense of the two-image story, then pick the candidate
that best continues it under that sense.

Sense: a literal story draws the compound's own things, so its captions name them (*a seal sitting on a
block of ice* for *seal of approval*): the `mentions` signal is (0.5 - the fraction of the compound's
content words the captions mention, any inflection) / 0.5, from +1 (none: idiomatic) to -1 (all:
literal). When a meaning is known, the `gloss` signal — the story (the mean of the two caption
embeddings) closer to the idiomatic meaning than to the literal reading — is averaged in, standardised
like the sense classifiers' signals.
Continuation: for each candidate, cos(candidate, caption 1) + cos(candidate, caption 2) — the same
characters and setting — plus cos(candidate, what the sense says the story is about: the meaning when
idiomatic, the literal reading when literal). Equal weights, fixed by reasoning; nothing is fit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from senso.backends.embedders import Embedder
from senso.admire.items import AdmireBItem
from senso.admire.systems.compound import find_compound
from senso.admire.systems.meaning import MeaningSource, content_words, literal_reading
from senso.admire.systems.sense import LOGIT_GAIN, SenseDecision, calibration, sigmoid
from senso.admire.systems.wordnet import WordNet
from senso.admire.systems.base import SequenceChoice


@dataclass
class SequenceContinuation:
    embedder: Embedder
    meanings: MeaningSource | None
    wordnet: WordNet | None
    name: str = "sequence-continuation"
    fitted_compounds: frozenset[str] = frozenset()
    uses_images: bool = False

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "embedder": self.embedder.spec,
                "meaning": self.meanings.describe() if self.meanings else None,
                "wordnet": str(self.wordnet.source) if self.wordnet else None,
                "continuation": "cos(cand, caption1) + cos(cand, caption2) + cos(cand, sense query)"}

    def sense(self, item: AdmireBItem, story: np.ndarray, literal: np.ndarray, meaning: np.ndarray | None) -> SenseDecision:
        text = " ".join(item.sequence_captions)
        words = content_words(item.compound)
        mentioned = [w for w in words if find_compound(text, w) is not None]
        signals = {"mentions": (0.5 - len(mentioned) / len(words)) / 0.5}
        standardised = [signals["mentions"]]
        if meaning is not None:
            signals["gloss"] = float(story @ meaning - story @ literal)
            standardised.append(signals["gloss"] / calibration(self.embedder.spec)[1])
        p = sigmoid(LOGIT_GAIN * sum(standardised) / len(standardised))
        return SenseDecision(p, {"signals": signals, "mentioned": mentioned})

    def choose(self, items: Sequence[AdmireBItem]) -> list[SequenceChoice]:
        out = []
        for item in items:
            meaning = self.meanings.meaning(item.compound, None, item.lang) if self.meanings else None
            literal_text = literal_reading(item.compound, self.wordnet, item.lang)
            queries = [literal_text] + ([meaning.text] if meaning else [])
            q = self.embedder.embed(queries, "query")
            literal_vec, meaning_vec = q[0], (q[1] if meaning else None)
            seq = self.embedder.embed(list(item.sequence_captions), "passage")
            cands = self.embedder.embed([c.caption for c in item.candidates], "passage")
            story = seq.mean(axis=0)
            story /= np.linalg.norm(story) or 1.0
            decision = self.sense(item, story, literal_vec, meaning_vec)
            about = meaning_vec if (decision.label == "idiomatic" and meaning_vec is not None) else literal_vec
            scores = cands @ seq[0] + cands @ seq[1] + cands @ about
            names = [c.name for c in item.candidates]
            best = names[int(np.argmax(scores))]  # argmax: first of equal scores, deterministic
            out.append(SequenceChoice(expected_item=best, sentence_type=decision.label,
                                      scores={n: float(s) for n, s in zip(names, scores)},
                                      extra={"p_idiomatic": decision.p_idiomatic, "sense_evidence": decision.evidence,
                                             "meaning": None if meaning is None else {"text": meaning.text, "source": meaning.source}}))
        return out
