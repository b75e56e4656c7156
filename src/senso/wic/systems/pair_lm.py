"""`pair-lm`: the likelihood protocol. A language model reads both sentences and a question; the log-likelihoods of
the two answers, renormalised over the two, give P(same meaning) = P(yes), which is also the graded score.

Prompts:
- `lmeval-wic`: lm-evaluation-harness's SuperGLUE `wic` prompt and choices, byte for byte
  (lm_eval/tasks/super_glue/wic/default.yaml): "Sentence 1: {s1}\\nSentence 2: {s2}\\nQuestion: Is the word
  '{w}' used in the same way in the two sentences above?\\nAnswer:" with " no" / " yes", the word being
  sentence 1's target as written; lm-eval's answer is the likelier choice, ties to " no" (`decide`);
- `wicita`: the same question in Italian for WiC-ITA, "Frase 1: {s1}\\nFrase 2: {s2}\\nDomanda: la parola '{w}' ha
  lo stesso significato nelle due frasi?\\nRisposta:" with " no" / " sì"; a pair whose two targets differ as written
  (WiC-ITA's Italian–English pairs) names both: "la parola '{w1}' della frase 1 e la parola '{w2}' della frase 2
  hanno lo stesso significato?";
- `auto` (default): `wicita` for a pair whose first sentence is Italian, else `lmeval-wic`.
Few-shot (`shots` > 0): exemplars drawn (seeded by `seed` and the pair's id) from the training pairs of other
lemmas, as many of each label as can be (the odd one out by the draw), each written as its prompt, a space and its
gold answer, separated by a blank line (lm-eval's few-shot layout).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any, Sequence

from senso.core.errors import SensoError
from senso.core.params import Configurable, param
from senso.core.records import text_hash
from senso.wic.items import WicPair
from senso.wic.systems.context import WicContext, check_pairs, not_fitted

NAME = "pair-lm"
PROMPTS = ("auto", "lmeval-wic", "wicita")
TARGET_DELIMITER = " "  # lm-eval's, between the context and a choice
FEWSHOT_DELIMITER = "\n\n"
TEMPLATES = {
    "lmeval-wic": ("Sentence 1: {s1}\nSentence 2: {s2}\nQuestion: Is the word '{w1}' used in the same way in the two "
                   "sentences above?\nAnswer:"),
    "wicita": "Frase 1: {s1}\nFrase 2: {s2}\nDomanda: la parola '{w1}' ha lo stesso significato nelle due frasi?\nRisposta:",
    "wicita-two-words": ("Frase 1: {s1}\nFrase 2: {s2}\nDomanda: la parola '{w1}' della frase 1 e la parola '{w2}' della "
                         "frase 2 hanno lo stesso significato?\nRisposta:"),
}
CHOICES = {"lmeval-wic": ("no", "yes"), "wicita": ("no", "sì")}  # (different, same)


@dataclass(frozen=True)
class PairPrompt:
    """What `loglikelihood_choices` scores: `context` + each continuation."""

    pair_id: str
    context: str
    choices: tuple[str, str]
    shared_prefix: str = ""
    exemplar_ids: tuple[str, ...] = ()

    @property
    def continuations(self) -> tuple[str, ...]:
        return tuple(TARGET_DELIMITER + c for c in self.choices)


def prompt_name(pair: WicPair, prompt: str) -> str:
    if prompt == "auto":
        return "wicita" if pair.first.lang == "it" else "lmeval-wic"
    return prompt


def question(pair: WicPair, name: str) -> str:
    """The pair's prompt under `name` (lmeval-wic or wicita), up to and including "Answer:"/"Risposta:"."""
    template = TEMPLATES[name]
    if name == "wicita" and pair.first.target != pair.second.target:
        template = TEMPLATES["wicita-two-words"]
    return template.format(s1=pair.first.text, s2=pair.second.text, w1=pair.first.target, w2=pair.second.target)


def p_same(logprobs: Sequence[float]) -> float:
    """P(the second choice) with the two log-likelihoods renormalised over the two."""
    different, same = logprobs
    return 1.0 / (1.0 + math.exp(different - same))


@dataclass
class PairLM(Configurable):
    """The likelihood protocol; see the module's docstring."""

    prompt: str = param("auto", "the prompt: lmeval-wic (lm-eval's wic, English), wicita (Italian), auto (by the "
                                "first sentence's language)", choices=PROMPTS)
    shots: int = param(0, "exemplars (training pairs of other lemmas) before each pair", minimum=0)
    seed: int = param(1234, "seed of the exemplars' draw")
    exemplars_: list[WicPair] | None = field(default=None, init=False, repr=False)
    _context: WicContext | None = field(default=None, init=False, repr=False)
    _lm: Any = field(default=None, init=False, repr=False)

    def bind(self, context: WicContext) -> "PairLM":
        self._context, self._lm = context, None
        return self

    def __getstate__(self) -> dict[str, Any]:
        """What a pickle keeps: the options and the exemplars, not the run's context or its loaded model."""
        return {**self.__dict__, "_context": None, "_lm": None}

    @property
    def lm(self) -> Any:
        if self._lm is None:
            self._lm = (self._context or WicContext()).language_model()
        return self._lm

    def fit(self, pairs: Sequence[WicPair]) -> "PairLM":
        """Keeps the labelled training pairs as the pool of exemplars (nothing else is learned)."""
        pairs = check_pairs(pairs, f"{NAME}.fit")
        self.exemplars_ = [p for p in pairs if p.label is not None]
        return self

    def prompts(self, pairs: Sequence[WicPair]) -> list[PairPrompt]:
        pairs = check_pairs(pairs, f"{NAME}.prompts")
        if self.shots and self.exemplars_ is None:
            raise not_fitted(NAME, f"prompting with {self.shots} shots (its exemplars are training pairs)")
        return [self._prompt(pair) for pair in pairs]

    def _prompt(self, pair: WicPair) -> PairPrompt:
        name = prompt_name(pair, self.prompt)
        exemplars = self._draw(pair) if self.shots else []
        shown = [question(e, name) + TARGET_DELIMITER + CHOICES[name][e.label] for e in exemplars]
        prefix = "".join(text + FEWSHOT_DELIMITER for text in shown)
        return PairPrompt(pair.pair_id, prefix + question(pair, name), CHOICES[name], "",
                          tuple(e.pair_id for e in exemplars))

    def _draw(self, pair: WicPair) -> list[WicPair]:
        """`shots` exemplars of other lemmas, labels balanced, seeded by `seed` and the pair's id."""
        rng = random.Random(f"{self.seed}:{pair.pair_id}")
        by_label = [[e for e in self.exemplars_ or () if e.lemma != pair.lemma and e.label == label] for label in (0, 1)]
        if sum(map(len, by_label)) < self.shots:
            raise SensoError(f"{NAME}: {self.shots} shots asked, but only {sum(map(len, by_label))} labelled training "
                             f"pairs of lemmas other than {pair.lemma!r}")
        n_different = rng.choice([self.shots // 2, self.shots - self.shots // 2])
        n_different = min(max(n_different, self.shots - len(by_label[1])), len(by_label[0]))
        chosen = rng.sample(by_label[0], n_different) + rng.sample(by_label[1], self.shots - n_different)
        rng.shuffle(chosen)
        return chosen

    def logprobs(self, pairs: Sequence[WicPair]) -> list[list[float]]:
        return self.lm.loglikelihood_choices(self.prompts(pairs))

    def judge(self, pairs: Sequence[WicPair]) -> list[float]:
        return [p_same(lp) for lp in self.logprobs(check_pairs(pairs, f"{NAME}.judge"))]

    def relate(self, pairs: Sequence[WicPair]) -> list[float]:
        return self.judge(check_pairs(pairs, f"{NAME}.relate"))

    @staticmethod
    def decide(p: float) -> bool:
        """lm-eval's answer: "yes" only when strictly likelier than "no"."""
        return p > 0.5

    def describe(self) -> dict[str, Any]:
        return {"system": NAME, "model": getattr(self.lm, "fingerprint", type(self.lm).__name__),
                "prompt": self.prompt, "shots": self.shots, "seed": self.seed,
                "templates": {name: text_hash(text) for name, text in TEMPLATES.items()}}
