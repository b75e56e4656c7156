"""The AdMIRe parts that use a generative model (`senso.backends.generator.Generator`, loaded by
`senso.admire.systems.context.SystemContext.generator`: --generator, default SmolLM2-135M-Instruct).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from senso.admire.items import AdmireAItem
from senso.backends.generator import Generator  # noqa: F401  (the type of a generator, for this module's parts)
from senso.admire.systems.compound import substitute
from senso.admire.systems.meaning import Meaning, MeaningSource
from senso.admire.systems.sense import SenseDecision, sigmoid

MEANING_PROMPT = ("What does the {language} expression \"{compound}\" mean when it is used figuratively, as an idiom? "
                  "Answer with a short definition only.")


@dataclass
class GeneratedMeaning:
    """The figurative meaning of the compound as a short definition written by the generator."""

    generator: Generator
    name: str = "generator"

    def meaning(self, compound: str, sentence: str | None = None, lang: str = "en") -> Meaning | None:
        language = {"en": "English", "pt": "Portuguese"}.get(lang, lang)
        prompt = MEANING_PROMPT.format(compound=compound, language=language)
        text = self.generator.generate([{"role": "user", "content": prompt}])
        text = text.split("\n")[0].strip().strip('"')
        return Meaning(compound, text, f"generated:{self.generator.name_or_path}") if text else None

    def describe(self) -> dict:
        return {"name": self.name, "prompt": MEANING_PROMPT, **self.generator.describe()}


SENSE_PROMPT = ("Sentence: \"{sentence}\"\nIn this sentence, is the expression \"{compound}\" used literally "
                "(its words mean exactly what they say) or idiomatically (a figurative meaning)? "
                "Answer with one word: literal or idiomatic.")
LITERAL_FIRST_PROMPT = "Write one short sentence that uses the expression \"{compound}\" literally, word by word."
LITERAL_FIRST_JUDGE = ("Here is a literal use of \"{compound}\": \"{example}\"\n" + SENSE_PROMPT)
ANSWERS = ("idiomatic", "literal")


@dataclass
class PromptSense:
    """Instruction prompt; P(idiomatic) = softmax over the log-probabilities of the two one-word answers.

    `literal_first`: the model first writes a literal use of the expression, which is shown before the
    question (the variant the best AdMIRe team reported to lift sense accuracy).
    """

    generator: Generator
    literal_first: bool = False
    name: str = "prompt"
    fitted_compounds: frozenset[str] = frozenset()

    def classify(self, items: Sequence[AdmireAItem]) -> list[SenseDecision]:
        out = []
        for item in items:
            evidence: dict[str, Any] = {}
            if self.literal_first:
                example = self.generator.generate(
                    [{"role": "user", "content": LITERAL_FIRST_PROMPT.format(compound=item.compound)}])
                evidence["literal_example"] = example
                prompt = LITERAL_FIRST_JUDGE.format(compound=item.compound, example=example, sentence=item.sentence)
            else:
                prompt = SENSE_PROMPT.format(compound=item.compound, sentence=item.sentence)
            idiomatic, literal = self.generator.choice_logprobs([{"role": "user", "content": prompt}], ANSWERS)
            evidence["logprobs"] = {"idiomatic": idiomatic, "literal": literal}
            out.append(SenseDecision(sigmoid(idiomatic - literal), evidence))
        return out

    def describe(self) -> dict:
        return {"name": "prompt-literal-first" if self.literal_first else "prompt", "prompt": SENSE_PROMPT,
                "literal_first_prompt": LITERAL_FIRST_PROMPT if self.literal_first else None, **self.generator.describe()}


@dataclass
class LikelihoodSense:
    """Mean per-token log-probability of the sentence with the meaning substituted minus with the compound.

    An idiomatic use survives the substitution (the sentence stays as plausible), a literal one does not.
    p = sigmoid(4 * difference); the gain maps a difference of 0.25 nats/token to p = 0.73 (by reasoning,
    not fit). Items without a meaning, or whose compound is not found, are undecided (p = 0.5).
    """

    generator: Generator
    meanings: MeaningSource | None
    gain: float = 4.0
    name: str = "lm-likelihood"
    fitted_compounds: frozenset[str] = frozenset()

    def classify(self, items: Sequence[AdmireAItem]) -> list[SenseDecision]:
        out = []
        for item in items:
            meaning = self.meanings.meaning(item.compound, item.sentence, item.lang) if self.meanings else None
            replaced = substitute(item.sentence, item.compound, meaning.text) if meaning else None
            if replaced is None:
                out.append(SenseDecision(0.5, {"note": "no meaning or compound not found: undecided"}))
                continue
            kept_lp, kept_n = self.generator.text_logprob(item.sentence)
            repl_lp, repl_n = self.generator.text_logprob(replaced)
            diff = repl_lp / repl_n - kept_lp / kept_n
            out.append(SenseDecision(sigmoid(self.gain * diff), {"per_token_difference": diff}))
        return out

    def describe(self) -> dict:
        return {"name": self.name, "gain": self.gain, **self.generator.describe()}
