"""Sense by definition choice: which definition does a causal LM find more fitting in this sentence?

For an item with an idiomatic meaning M (from the meaning source) and the literal reading L (the
compound's words with their first WordNet senses, `literal_reading`), a causal LM scores each definition
as a continuation of two contexts:

    with the sentence:   '<sentence>\\nIn this sentence, "<compound>" means' + ' <definition>'
    without it (prior):  '"<compound>" means' + ' <definition>'

The signal is the pointwise mutual information of the sentence with each definition, contrasted:

    pmi = [log P(M | sentence) - log P(M | prior)] - [log P(L | sentence) - log P(L | prior)]

Subtracting the prior removes what the definitions' own length and wording do to their probability
(without it, the raw difference separates nothing: on EN train+dev its AUC was 0.49 with the default
model; with it, 0.81; measured by an analysis script not kept in the repository). P(idiomatic) = sigmoid(2 * (pmi - centre) / scale). For the built-in default model
(Gemma-3-270M) centre and scale are the median and standard deviation of pmi over the EN dev items that
have a meaning (`benchmarks/admire_sense_calibration.py --definition`); another model uses centre 0 and
scale `UNCALIBRATED_SCALE` nats. Items without a meaning, or without a literal reading other than the
bare words, are undecided (p = 0.5) and say so. The likelihoods come from the ABRICOT scorer (batched, cached).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from senso.admire.items import AdmireAItem
from senso.core.options import DEFAULT_BATCH_SIZE
from senso.admire.systems.meaning import MeaningSource, literal_reading
from senso.admire.systems.sense import LOGIT_GAIN, SenseDecision, sigmoid
from senso.admire.systems.wordnet import WordNet

DEFINITION_CONTEXT = '{sentence}\nIn this sentence, "{compound}" means'
PRIOR_CONTEXT = '"{compound}" means'
# From benchmarks/admire_sense_calibration.py --definition on the EN dev items with a meaning (dev only).
DEFINITION_CALIBRATION = {"default": {"centre": -2.0597, "scale": 5.3580}}
UNCALIBRATED_SCALE = 5.0  # nats; the default model's dev spread, rounded, for models without calibration


@dataclass(frozen=True)
class DefinitionPrompt:
    """A `LikelihoodPrompt`: the two definitions as continuations of one context."""

    context: str
    continuations: tuple[str, ...]
    shared_prefix: str = ""


def definitions(item: AdmireAItem, meanings: MeaningSource | None, wordnet: WordNet | None) -> tuple[str, str] | None:
    """(idiomatic meaning, literal reading) of the item's compound, or None when either is missing."""
    meaning = meanings.meaning(item.compound, item.sentence, item.lang) if meanings else None
    literal = literal_reading(item.compound, wordnet, item.lang)
    if meaning is None or ": " not in literal:  # no literal reading beyond the bare words
        return None
    return meaning.text, literal.split(": ", 1)[1]


def definition_prompts(item: AdmireAItem, idiomatic: str, literal: str) -> tuple[DefinitionPrompt, DefinitionPrompt]:
    """The prompt with the sentence and the prior prompt, each continued by ' <idiomatic>' and ' <literal>'."""
    continuations = (" " + idiomatic, " " + literal)
    return (DefinitionPrompt(DEFINITION_CONTEXT.format(sentence=item.sentence, compound=item.compound), continuations),
            DefinitionPrompt(PRIOR_CONTEXT.format(compound=item.compound), continuations))


def definition_pmi(with_sentence: Sequence[float], prior: Sequence[float]) -> float:
    """[lp(M|s) - lp(M|prior)] - [lp(L|s) - lp(L|prior)] from the two prompts' (idiomatic, literal) scores."""
    return (with_sentence[0] - prior[0]) - (with_sentence[1] - prior[1])


@dataclass
class DefinitionSense:
    """Training-free: P(idiomatic) from the definition-choice PMI of a causal LM (module docstring)."""

    lm: Any  # anything with loglikelihood_choices(prompts, batch_size=) -> list[list[float]]
    meanings: MeaningSource | None
    wordnet: WordNet | None
    centre: float = 0.0
    scale: float = UNCALIBRATED_SCALE
    batch_size: int = DEFAULT_BATCH_SIZE
    name: str = "lm-definition"
    fitted_compounds: frozenset[str] = frozenset()

    def signals(self, items: Sequence[AdmireAItem]) -> list[dict[str, Any] | None]:
        """Per item: the raw pmi and the four log-likelihoods, or None when the item has no definitions."""
        plans = [definitions(item, self.meanings, self.wordnet) for item in items]
        prompts = [p for item, d in zip(items, plans) if d for p in definition_prompts(item, *d)]
        scores = iter(self.lm.loglikelihood_choices(prompts, batch_size=self.batch_size) if prompts else [])
        out: list[dict[str, Any] | None] = []
        for plan in plans:
            if plan is None:
                out.append(None)
                continue
            with_sentence, prior = next(scores), next(scores)
            out.append({"pmi": definition_pmi(with_sentence, prior), "idiomatic": plan[0], "literal": plan[1],
                        "loglik_with_sentence": list(with_sentence), "loglik_prior": list(prior)})
        return out

    def standardised(self, signal: dict[str, Any]) -> float:
        return (signal["pmi"] - self.centre) / self.scale

    def classify(self, items: Sequence[AdmireAItem]) -> list[SenseDecision]:
        return [SenseDecision(0.5, {"note": "no idiomatic meaning or literal reading: undecided (p = 0.5)"})
                if signal is None else SenseDecision(sigmoid(LOGIT_GAIN * self.standardised(signal)), {"definition": signal})
                for signal in self.signals(items)]

    def describe(self) -> dict:
        return {"name": self.name, "context": DEFINITION_CONTEXT, "prior_context": PRIOR_CONTEXT,
                "centre": self.centre, "scale": self.scale, "gain": LOGIT_GAIN,
                "model": getattr(self.lm, "spec", None), "fingerprint": getattr(self.lm, "fingerprint", None),
                "meaning": self.meanings.describe() if self.meanings else None}
